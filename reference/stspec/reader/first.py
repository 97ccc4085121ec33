"""read()'s first-violation mode: stop once the first violation is certain.

The spec does not ask for it (other readers need report no id or offset);
read() raises exactly the violation validate() lists first, and a hostile
header is usually at fault within its first kilobytes, so read() stops there
instead of judging the rest.  Once a violation is recorded, what follows can
only come later, with two exceptions: a tensor that ends past the buffer is
located at its data_offsets, earlier in the text; and a fault that stops the
parse later voids the structural findings.  So the member scan
(reader/fast.py) asks :func:`settles` after each member, checks only the
syntax of the rest (:func:`rest`) once it does, and raises :class:`Settled`
from :func:`parse_fault` when a fault found while parsing is the first.
The plain path (reader/header.py) never imports this module.
"""

from __future__ import annotations

from stspec.reader.strict_json import (
    member_name,
    next_member,
    skip,
    syntax,
    trailing_comma,
)

# No typing at run time (start-up cost, see stspec/record.py); mypy reads this as True.
TYPE_CHECKING = False
if TYPE_CHECKING:
    import re

    from stspec.reader.fast import FastScan
    from stspec.reader.strict_json import Path, Text

__all__ = ["Settled", "parse_fault", "rest", "settles"]


class Settled(Exception):  # noqa: N818 - a verdict, not an accident
    """The report holds the file's first violation; nothing later can change it."""


def settles(state: FastScan) -> bool:
    """Whether the rest of the object can only be checked for syntax.

    Once a violation is recorded, what follows lies at later offsets, except
    a tensor that ends past the buffer (LAYOUT-BOUNDS is located at its
    data_offsets): an earlier one of those would still count.  A fault that
    stops the parse later would void the structural findings, so the syntax
    of the rest is still checked.
    """
    if state.past_buffer:
        return False  # it stays so: asked after every member, answered once
    _, _, offsets, _, _ = state.header.table.columns
    state.past_buffer = max(offsets[1::2], default=0) > state.buffer_length
    return not state.past_buffer


def parse_fault(state: FastScan, rule: str, pos: int, msg: str, path: Path) -> None:
    """Record a fault found while parsing, when one violation is wanted.

    Outside an entry, every violation before ``pos`` has been recorded
    already, except a tensor ending past the buffer (see settles); if
    there is none, this fault is the first and no later one can void it
    (only structural findings are voided by a stop).
    """
    report = state.report
    alone = not report and not state.in_entry and settles(state)
    report.add(rule, pos, msg, path)
    if alone:
        raise Settled


def rest(src: Text, pos: int, canonical: re.Pattern[str] | None) -> int:
    """Check the syntax of the members from ``pos`` on; return the object's end.

    ``canonical`` matches a whole member with a canonical entry (None: every
    member goes through the parser).
    """
    text = src.text
    src.fault = _ignore
    match = canonical.match if canonical is not None else None
    more = True
    while more:
        found = match(text, pos) if match is not None else None
        if found is not None:
            pos = found.end()
            if found.group(6):
                if text[pos : pos + 1] == "}":
                    raise trailing_comma(pos, "}")
                continue
            if text[pos : pos + 1] != "}":
                raise syntax(text, pos, "',' or '}'")
            return pos + 1
        pos, _ = member_name(src, pos, None)
        pos = skip(src, pos, 1, ())
        pos, more = next_member(text, pos, "}")
    return pos


def _ignore(_rule: str, _pos: int, _msg: str, _path: Path) -> None:
    pass
