"""read()'s first-violation mode: stop once the first violation is certain.

The spec does not ask for it (other readers need report no id or offset);
read() raises the first MUST violation validate() lists, else its first
(READ-PRECEDENCE), and a hostile header is usually at fault within its first
kilobytes, so read() stops there instead of judging the rest.  A MAY
violation settles nothing (see decided): a MUST one anywhere after it, a
repeated name among the members after an unknown one say, is the one to
name.  Once a MUST violation is recorded, what follows can only come
later, with two exceptions: a tensor that ends past the buffer is
located at its data_offsets, earlier in the text; and a fault that stops the
parse later voids the structural findings.  So the member scan
(reader/fast.py) asks :func:`settles` after each member, checks only the
syntax of the rest (:func:`rest`) once it does, and raises :class:`Settled`
from :func:`parse_fault` when a fault found while parsing is the first.
Before all that, :func:`early` looks for the answer in a large header's
first bytes alone.
The plain path (reader/header.py) never imports this module.
"""

from __future__ import annotations

import codecs

from stspec.reader.container import (
    JSON_WS,
    PREFIX_SIZE,
    not_utf8,
    object_start,
    read_prefix,
)
from stspec.reader.report import PARSE_RULES, OffsetMap, Report
from stspec.reader.strict_json import (
    JsonStop,
    member_name,
    next_member,
    skip,
    syntax,
    trailing_comma,
)
from stspec.rules import RULES

# No typing at run time (start-up cost, see stspec/record.py); mypy reads this as True.
TYPE_CHECKING = False
if TYPE_CHECKING:
    import re
    from collections.abc import Callable
    from typing import Final

    from stspec.errors import Violations
    from stspec.reader.container import Buffer
    from stspec.reader.strict_json import Path, Text
    from stspec.reader.table import TensorTable

    # Judges the members of a header text in first-violation mode
    # (text, its bytes, where the object starts, the report, the byte
    # buffer's length): see early().
    HeadScan = Callable[[str, memoryview, int, Report, int], object]

__all__ = [
    "EARLY_FROM",
    "FirstViolation",
    "Settled",
    "decided",
    "early",
    "parse_fault",
    "rest",
    "settles",
    "structural",
    "utf8_fault",
]


class Settled(Exception):  # noqa: N818 - a verdict, not an accident
    """The report holds the file's first violation; nothing later can change it."""


# The rules a lenient reader may tolerate: read() names one of them only
# when the file breaks no other (READ-PRECEDENCE).
_TOLERATED: Final = frozenset(rule.id for rule in RULES if rule.level != "MUST")


def decided(report: Report) -> bool:
    """Whether ``report`` holds a violation that makes the file invalid.

    Until it does, read() judges on: a MUST violation later in the header
    outranks a MAY one found first (READ-PRECEDENCE), so one pass finds
    both.
    """
    return not _TOLERATED.issuperset(report.counts)


class FirstViolation:
    """What read()'s first-violation mode follows while the members are scanned.

    report: where the violations go; table: the entries read so far;
    buffer_length: the byte buffer's length; past_buffer: some entry seen so
    far ends past the buffer (see settles); in_entry: the scan is inside a
    member's value, where some findings are made only at its end (ENTRY-OBJECT
    or META-OBJECT at the value, a surrogate in the name).
    """

    __slots__ = ("buffer_length", "in_entry", "past_buffer", "report", "table")

    def __init__(self, report: Report, table: TensorTable, buffer_length: int) -> None:
        self.report = report
        self.table = table
        self.buffer_length = buffer_length
        self.past_buffer = False
        self.in_entry = False


def settles(first: FirstViolation) -> bool:
    """Whether the rest of the object can only be checked for syntax.

    Once a violation is recorded, what follows lies at later offsets, except
    a tensor that ends past the buffer (LAYOUT-BOUNDS is located at its
    data_offsets): an earlier one of those would still count.  A fault that
    stops the parse later would void the structural findings, so the syntax
    of the rest is still checked.
    """
    if first.past_buffer:
        return False  # it stays so: asked after every member, answered once
    _, _, offsets, _, _ = first.table.columns
    first.past_buffer = max(offsets[1::2], default=0) > first.buffer_length
    return not first.past_buffer


def parse_fault(
    first: FirstViolation, rule: str, pos: int, msg: str, path: Path
) -> None:
    """Record a fault found while parsing, when one violation is wanted.

    Outside an entry, every violation before ``pos`` has been recorded
    already, except a tensor ending past the buffer (see settles); if
    there is none, this fault is the first and no later one can void it
    (only structural findings are voided by a stop).
    """
    report = first.report
    alone = not decided(report) and not first.in_entry and settles(first)
    report.add(rule, pos, msg, path)
    if alone and decided(report):
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


def structural(report: Report) -> bool:
    """Whether ``report`` holds any finding beyond the parse faults."""
    return any(rule not in PARSE_RULES for rule in report.counts)


# The answer from the header's first bytes ----------------------------------

# read() looks at the first 1/128 of a header at least this long on its own
# (a valid one then costs that much more), at most _HEAD_MAX bytes of it.
EARLY_FROM: Final = 1 << 19
_HEAD_MAX: Final = 1 << 16
# The rest is decoded this much at a time, and the text thrown away.
_CHUNK: Final = 1 << 18
_decode: Final = codecs.utf_8_decode


def early(buffer: Buffer, head: int | None, scan: HeadScan) -> Violations | None:
    """Return read()'s answer when the header's first bytes settle it, else None.

    A hostile header is usually at fault within its first kilobytes, and a
    lenient reader stops there; this reader must find exactly the violation
    read() raises (see decided), so an answer from the first bytes is taken only
    when nothing after them can come before it: what precedes the '{', a
    fault that settles the parse (see first.Settled), a nesting too deep.
    HEADER-UTF8 anywhere outranks every other fault, so the rest of the
    header is then decoded too, a chunk at a time, keeping none of the text:
    one pass over the bytes, and memory for a chunk instead of a copy.
    ``head`` is how many bytes to look at (None: 1/128 of a header of 512
    KiB or more, at most 64 KiB; 0: none); ``scan`` judges the members of
    the text decoded from them, in first-violation mode.
    """
    report = Report(1)
    header_length = read_prefix(buffer, report)
    if header_length is None:
        return None  # the pipeline finds the same at once
    if head is None:
        head = min(header_length >> 7, _HEAD_MAX) if header_length >= EARLY_FROM else 0
    if not 0 < head < header_length:
        return None
    raw = buffer[PREFIX_SIZE : PREFIX_SIZE + header_length]
    try:
        with raw[:head] as first:
            try:
                text, used = _decode(first, "strict", False)
            except UnicodeDecodeError as exc:
                # The first fault of all: nothing before it is a fault.
                not_utf8(report, exc.start, exc.reason)
                return report.errors(OffsetMap("", PREFIX_SIZE))
            with first[:used] as part:
                data_length = len(buffer) - PREFIX_SIZE - header_length
                if not _settled_by(text, part, report, data_length, scan):
                    return None
        fault = utf8_fault(raw, used)
    finally:
        raw.release()
    if fault is not None:
        report = Report(1)
        not_utf8(report, *fault)
        text = ""
    return report.errors(OffsetMap(text, PREFIX_SIZE))


def _settled_by(
    text: str, raw: memoryview, report: Report, data_length: int, scan: HeadScan
) -> bool:
    """Whether the first violation of a header starting with ``text`` is certain.

    ``raw`` holds the bytes of ``text``, ``report`` receives the violation.
    """
    if not text.lstrip(JSON_WS):
        return False  # what the whitespace precedes lies further on
    start = object_start(text, report)
    if start is None or start:
        # HEADER-OBJECT stops the check; HEADER-LEADING-WS, a MAY rule, does
        # not settle it: a MUST violation further on outranks it.
        return start is None
    try:
        scan(text, raw, 0, report, data_length)
    except Settled:
        return True
    except JsonStop as stop:
        # Found before the cut, a nesting too deep is one in the whole header
        # (and keeps the parse faults before it); another stop may be the cut
        # itself, as may the structure behind a structural fault.
        if stop.rule != "JSON-DEPTH" or structural(report):
            return False
        report.add(stop.rule, stop.pos, stop.msg, ())
        return True
    return False  # the object ended: what follows it needs the whole header


def utf8_fault(
    raw: memoryview, pos: int, chunk: int = _CHUNK
) -> tuple[int, str] | None:
    """Decode ``raw`` from ``pos`` on; return its first UTF-8 fault, if any.

    ``chunk`` (at least 4: a character is split at most once) bytes at a
    time; the text is thrown away.
    """
    end = len(raw)
    while pos < end:
        stop = min(pos + chunk, end)
        with raw[pos:stop] as part:
            try:
                # Not kept: a name would hold it while the next one is made.
                used = _decode(part, "strict", stop == end)[1]
            except UnicodeDecodeError as exc:
                return pos + exc.start, exc.reason
        pos += used
    return None
