"""Values nobody reads, checked by the C decoder (the shortcuts).

An unknown entry member, an array whose elements are only counted, a
sound entry: json's C decoder checks them when a byte-level bound
(nests_shallowly) shows that nothing nests deeper than JSON-DEPTH allows,
and anything it doubts goes back to the position-tracking parser.
"""

from __future__ import annotations

import re
from functools import cache

from stspec.reader import strict_json
from stspec.reader.strict_json import (
    Number,
    Path,
    Text,
    surrogate_escape,
)

# No typing at run time (start-up cost, see stspec/record.py); mypy reads this as True.
TYPE_CHECKING = False
if TYPE_CHECKING:
    import json
    from typing import Final

    from stspec.reader.strict_json import FaultSink


__all__ = ["Doubt", "FastText", "array_to_count", "entry_decoder", "nests_shallowly"]


class FastText(Text):
    """Header text whose values nobody reads the C decoder may check.

    raw: the header bytes, for the nesting bound (computed when first needed)
    """

    __slots__ = ("_shallow", "raw")

    def __init__(self, text: str, fault: FaultSink, raw: memoryview) -> None:
        super().__init__(text, fault)
        self.raw = raw
        self._shallow: bool | None = None

    @property
    def shallow(self) -> bool:
        """Whether nothing nests deeper than MAX_DEPTH (a recursive decoder is safe)."""
        if self._shallow is None:
            self._shallow = nests_shallowly(self.raw)
        return self._shallow

    def skip_container(self, pos: int, depth: int, path: Path) -> int:
        """Check the array or object at ``pos`` without building it; return its end.

        The C decoder does it when the header nests shallowly (it recurses)
        and the value needs nothing it cannot see; anything it doubts, the
        parser redoes, to report the fault where it is.
        """
        if self.shallow:
            try:
                _, end = _skipper().raw_decode(self.text, pos)
            except (ValueError, RecursionError, Doubt):
                pass
            else:
                if not (
                    self.surrogates and surrogate_escape().search(self.text, pos, end)
                ):
                    return end
        return super().skip_container(pos, depth, path)


def nests_shallowly(raw: memoryview) -> bool:
    """Whether no container in the header text nests deeper than MAX_DEPTH.

    An upper bound computed with byte operations only: escaped backslashes
    and quotes are removed, then everything but quotes and brackets, then the
    quoted runs; what is left is the bracket structure.  Up to the first
    syntax error it matches what a parser sees, which is all a decoder ever
    reads.  Removing every ``[]`` pair lowers the deepest nesting by at most
    one, so after k such passes the depth is at most k plus the depth of
    what is left, counted run by run.
    """
    # The parser's bound, as strict_json holds it when called.
    max_depth = strict_json.MAX_DEPTH
    parts = []
    start = 0
    while start < len(raw):
        end = min(start + _CHUNK, len(raw))
        # A run of backslashes and the byte it escapes stay in one chunk.
        while end < len(raw) and raw[end - 1] == _BACKSLASH:
            end += 1
        chunk = raw[start:end].tobytes().replace(b"\\\\", b"").replace(b'\\"', b"")
        chunk = chunk.translate(_BRACKETS, _NOT_STRUCTURE)
        if b"[" * (max_depth + 1) in chunk:
            # Too deep already, or brackets inside a string: either way the
            # parser, which needs no bound, decides (a nesting bomb stops here).
            return False
        parts.append(chunk)
        start = end
    data = _quoted().sub(b"", b"".join(parts))
    passes = 0
    # Each pass that runs shrinks the data by an eighth at least, so all of
    # them cost a few times one; the runs left are few enough to count.
    while data.count(b"[]") * 16 > len(data) and passes <= max_depth:
        data = data.replace(b"[]", b"")
        passes += 1
    depth = deepest = 0
    for run in _runs().finditer(data):
        if run.group()[0] == ord("["):
            depth += len(run.group())
            deepest = max(deepest, depth)
        else:
            # Never below zero: stray closers (only after a syntax error) must
            # not hide the openers that follow them.
            depth = max(depth - len(run.group()), 0)
    return passes + deepest <= max_depth


_CHUNK: Final = 1 << 20


_BACKSLASH: Final = ord("\\")


_BRACKETS: Final = bytes.maketrans(b"{}", b"[]")


_NOT_STRUCTURE: Final = bytes(set(range(256)) - set(b'"[]{}'))


@cache
def _quoted() -> re.Pattern[bytes]:
    # Adjacent strings (their separators are gone) are removed in one match.
    return re.compile(rb'(?:"[^"]*+")++')


@cache
def _runs() -> re.Pattern[bytes]:
    return re.compile(rb"\[++|\]++")


class Doubt(Exception):  # noqa: N818 - internal signal, never escapes
    """The C decoder met something only the parser can judge."""


def _distinct(pairs: list[tuple[str, object]]) -> None:
    if len({name for name, _ in pairs}) != len(pairs):
        raise Doubt


def _refuse(_token: str) -> None:
    raise Doubt


@cache
def _skipper() -> json.JSONDecoder:
    """Check a value without keeping it.

    Numbers become their length, objects are only looked at for repeated
    names.  Made on first use, as _counter(): json costs start-up time.
    """
    import json  # noqa: PLC0415

    return json.JSONDecoder(
        object_pairs_hook=_distinct,
        parse_int=len,
        parse_float=len,
        parse_constant=_refuse,
    )


def _int_token(token: str) -> object:
    # What the parser makes of a number token: an int only when plain.
    return int(token) if len(token) <= 20 and token[0] != "-" else Number(token)


def _checked_object(pairs: list[tuple[str, object]]) -> dict[str, object]:
    _distinct(pairs)
    return {}


@cache
def _counter() -> json.JSONDecoder:
    """Decode an array whose elements will only be counted, not located."""
    import json  # noqa: PLC0415 - see _skipper()

    return json.JSONDecoder(
        object_pairs_hook=_checked_object,
        parse_int=_int_token,
        parse_float=Number,
        parse_constant=_refuse,
    )


def array_to_count(src: FastText, pos: int) -> tuple[int, list[object]] | None:
    """Decode the array at ``pos`` at C speed, or None when in doubt.

    Objects inside become empty dicts: the caller only counts what is wrong.
    """
    if not (src.text[pos : pos + 1] == "[" and src.shallow):
        return None
    try:
        item, end = _counter().raw_decode(src.text, pos)
    except (ValueError, RecursionError, Doubt):
        return None
    if src.surrogates and surrogate_escape().search(src.text, pos, end):
        return None
    return end, item


class _Members(list[tuple[str, object]]):
    """An object's members as the entry decoder gives them: never a list value."""

    __slots__ = ()


@cache
def entry_decoder() -> json.JSONDecoder:
    """Decode an entry object at C speed into its list of (name, value) pairs.

    Integers are ints only when the parser would make them so (see
    _int_token); other numbers and constants leave the decoded way.
    """
    import json  # noqa: PLC0415 - see _skipper()

    return json.JSONDecoder(
        object_pairs_hook=_Members,
        parse_int=_int_token,
        parse_float=Number,
        parse_constant=_refuse,
    )
