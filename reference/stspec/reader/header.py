"""The header object, member by member: tensor entries and ``__metadata__``.

Members are judged as they are parsed, so nothing of the header is kept but
the table of entries: a canonical entry (the exact form writers emit, with
any JSON whitespace) is matched by one regular expression; anything else is
parsed with positions and checked field by field.
"""

from __future__ import annotations

import contextlib
import re
from array import array
from functools import cache
from math import prod

from stspec.dtypes import BITS, RANK
from stspec.errors import shown
from stspec.reader.strict_json import (
    INT,
    PLAIN_STRING,
    WS,
    JsonStop,
    Number,
    Path,
    Text,
    array_to_count,
    check_surrogates,
    kind,
    member_name,
    nests,
    next_member,
    opening,
    skip,
    string,
    syntax,
    value,
)
from stspec.reader.table import TensorInfo, TensorTable
from stspec.rules import U64_MAX

# No typing at run time (start-up cost, see stspec/record.py); mypy reads this as True.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from types import ModuleType
    from typing import Final

    from stspec.reader.report import Report

__all__ = [
    "FIELDS",
    "METADATA_KEY",
    "Header",
    "Settled",
    "TensorInfo",
    "TensorTable",
    "scan",
]

METADATA_KEY: Final = "__metadata__"
FIELDS: Final = frozenset(("dtype", "shape", "data_offsets"))

_W = WS.pattern
_NAME = PLAIN_STRING.pattern
# A canonical entry: dtype, shape (the dimensions with their separators),
# begin and end; any JSON whitespace between the tokens.
_ENTRY = (
    rf"\{{{_W}"
    rf'"dtype"{_W}:{_W}{_NAME}{_W},{_W}'
    rf'"shape"{_W}:{_W}\[{_W}((?:{INT}(?:{_W},{_W}{INT})*+)?){_W}\]{_W},{_W}'
    rf'"data_offsets"{_W}:{_W}\[{_W}({INT}){_W},{_W}({INT}){_W}\]{_W}\}}'
)
# A whole member with a canonical entry: the name first, then the comma
# after the entry if any.
# A tensor name may hold escapes (json.dumps writes every non-ASCII
# character as one); a valid one costs no more than a plain one.
_ESCAPED_NAME = r'"((?:[^"\\\x00-\x1f]++|\\(?:["\\/bfnrt]|u[0-9a-fA-F]{4}))*+)"'
_CANONICAL: Final = re.compile(rf"{_ESCAPED_NAME}{_W}:{_W}{_ENTRY}{_W}(,?){_W}")
# Entry members a reader may ignore, with plain names and scalar values, each
# followed by a comma: once ENTRY-UNKNOWN keeps no more, a run of them is
# checked at C speed and only counted.
_SCALAR = (
    r'(?:"[^"\\\x00-\x1f]*+"|true|false|null'
    r"|-?(?:0|[1-9][0-9]*+)(?:\.[0-9]++)?(?:[eE][-+]?[0-9]++)?)"
)


# Headers shorter than this (three or four entries) go member by member:
# the bulk way would not pay for loading it (a module and three patterns,
# about 2 % of a one-file check's start-up).
_BULK_MIN_LENGTH: Final = 256


@cache
def _bulk() -> ModuleType:
    from stspec.reader import bulk  # noqa: PLC0415 - on first use (start-up)

    return bulk


# Compiled on first use, as are the other patterns only odd headers need:
# compiling costs start-up time, and most headers have no such members.
@cache
def _plain_member() -> re.Pattern[str]:
    return re.compile(rf"{_NAME}{_W}:{_W}{_SCALAR}{_W},{_W}")


@cache
def _plain_run() -> re.Pattern[str]:
    # At most so many at a time, so that the names in hand stay few.
    return re.compile(rf'(?:"[^"\\\x00-\x1f]*+"{_W}:{_W}{_SCALAR}{_W},{_W}){{1,4096}}+')


# One metadata member whose value is a string (escapes are decoded after).
_PAIR: Final = re.compile(rf"{_ESCAPED_NAME}{_W}:{_W}{_ESCAPED_NAME}{_W}(,?){_W}")
_ARRAY: Final = "Q"
_SHAPES_KEPT: Final = 1024


class Header:
    """What the member scan established about the header object.

    table: every entry with usable data_offsets, in file order (a file with
        any violation never exposes it)
    where: per table entry, a position just past its data_offsets' ``[``
    layout_ready: False when some entry has no usable data_offsets (holes
        and overlaps are then meaningless, so the layout is not judged)
    names_unique: no tensor name repeats (else the layout is not judged)
    end: the position just past the header object
    """

    __slots__ = (
        "bulk_runs",
        "end",
        "layout_ready",
        "metadata",
        "names_unique",
        "table",
        "where_kept",
    )

    def __init__(self) -> None:
        self.metadata: dict[str, str] | None = None
        self.table = TensorTable()
        # Positions of the entries taken one by one; 0 for those taken in
        # bulk, whose positions are found again only if asked for (a tensor
        # that ends past the buffer): (text, first row, rows, text position).
        self.where_kept = array(_ARRAY)
        self.bulk_runs: list[tuple[str, int, int, int]] = []
        self.layout_ready = True
        self.names_unique = True
        self.end = 0

    @property
    def where(self) -> array[int]:
        """Per table entry, a position just past its data_offsets' ``[``."""
        where = self.where_kept
        for text, row, rows, pos in self.bulk_runs:
            where[row : row + rows] = _bulk().positions(text, pos, rows)
        self.bulk_runs.clear()
        return where


class _Scan:
    """The state of one scan: the text, the report and the header so far."""

    __slots__ = (
        "buffer_length",
        "bulk_from",
        "first_only",
        "header",
        "in_entry",
        "others",
        "past_buffer",
        "report",
        "src",
    )

    def __init__(
        self, src: Text, report: Report, buffer_length: int, *, first_only: bool
    ) -> None:
        self.src = src
        self.report = report
        self.buffer_length = buffer_length
        # Some tensor seen so far ends past the buffer (see _settles).
        self.past_buffer = False
        self.first_only = first_only
        self.header = Header()
        # Inside a member's value some findings are made only at its end
        # (ENTRY-OBJECT or META-OBJECT at the value, a surrogate in the name).
        self.in_entry = False
        # Names of members that are not in the table (metadata, faulty entries).
        self.others: set[str] = set()
        # Before this position, taking entries in bulk is not tried again.
        length = len(src.text)
        self.bulk_from = 0 if length >= _BULK_MIN_LENGTH else length + 1

    def fault(self, rule: str, pos: int, msg: str, path: Path) -> None:
        self.report.add(rule, pos, msg, path)

    def parse_fault(self, rule: str, pos: int, msg: str, path: Path) -> None:
        """Record a fault found while parsing, when one violation is wanted.

        Outside an entry, every violation before ``pos`` has been recorded
        already, except a tensor ending past the buffer (see _settles); if
        there is none, this fault is the first and no later one can void it
        (only structural findings are voided by a stop).
        """
        report = self.report
        alone = not report and not self.in_entry and _settles(self)
        report.add(rule, pos, msg, path)
        if alone:
            raise Settled


def scan(
    src: Text, start: int, report: Report, buffer_length: int, *, first_only: bool
) -> Header:
    """Judge every member of the object whose ``{`` is at ``start``.

    Raises JsonStop when the text cannot be parsed on; with ``first_only``
    (read() wants the first violation and nothing else) it may raise Settled
    once the report holds that one for certain.  Everything found is in
    ``report``.
    """
    state = _Scan(src, report, buffer_length, first_only=first_only)
    sink = src.fault
    if first_only:
        src.fault = state.parse_fault
    try:
        return _scan(state, start, first_only=first_only)
    finally:
        # The sink is a bound method of the state: a cycle to break.
        src.fault = sink


def _scan(  # noqa: C901, PLR0912, PLR0915 - the hot loop, kept in one piece
    state: _Scan, start: int, *, first_only: bool
) -> Header:
    src = state.src
    report = state.report
    text = src.text
    header = state.header
    index = header.table.columns[0]
    where = header.where_kept
    match = _CANONICAL.match if src.shortcuts else None
    bits_of = BITS.get
    pos, more = opening(text, start, "}")
    while more:
        if match is None:
            found = None
        elif not first_only or not report or state.past_buffer:
            # With nothing to settle (see _settles), runs of plain sound
            # entries go the short way.
            pos, found = _sound_run(state, pos)
        else:
            found = match(text, pos)
        escaped = False
        if found is not None:
            name, dtype, shape, begin_token, end_token, comma = found.groups()
            if "\\" in name:
                name = string(src, pos)[1]
                escaped = True
        if found is None or name == METADATA_KEY:
            pos, more = _member(state, pos)
            if first_only and report and _settles(state):
                if more:
                    pos = _rest(state, pos)
                break
            continue
        bits = bits_of(dtype)
        shape_ok = True
        if shape:
            if len(shape) >= 20 and _over_u64().search(shape):
                shape_ok = False
                sizes = []
            else:
                sizes = list(map(int, shape.split(",")))
                for size in sizes:
                    if bits is not None:
                        bits *= size
                        if bits > U64_MAX:
                            break
        else:
            sizes = []
        begin = int(begin_token)
        end = int(end_token)
        if (
            bits is None
            or not shape_ok
            or bits > U64_MAX
            or bits & 7
            or bits >> 3 != end - begin
            or end > U64_MAX
        ):
            _canonical_faults(state, found, name, sizes)
        elif name in index or name in state.others:
            # A sound entry under a name seen before: only the name is wrong.
            _repeated(state, name, found.start())
        else:
            # Rarer here than in _sound_run, which fills the columns itself.
            header.table.add(name, dtype, sizes, begin, end)
            where.append(found.start(4))
        if escaped:
            # After the entry's own findings, as on the general way (a
            # repeat of this name is reported at the same offset, first).
            check_surrogates(src, name, pos, (name,))
        pos = found.end()
        if comma:
            if text[pos : pos + 1] == "}":
                raise _trailing_comma(pos)
            if first_only and report and _settles(state):
                pos = _rest(state, pos)
                break
        elif text[pos : pos + 1] == "}":
            pos += 1
            more = False
        else:
            raise syntax(text, pos, "',' or '}'")
    header.end = pos
    return header


def _sound_run(state: _Scan, pos: int) -> tuple[int, re.Match[str] | None]:
    """Take the members from ``pos`` on that need no more than a table row.

    Runs of compact members go in bulk (see _bulk).  Else, a canonical entry
    whose name has no escapes and is new, of a known dtype and a shape under
    20 characters, whose size matches its offsets and which a comma and
    another member follow, is accepted as _scan would accept it, with fewer
    steps.  The first member that is anything else is left to _scan.
    Return the position of that member and its match.
    """
    text = state.src.text
    index, codes, offsets, dims, starts = state.header.table.columns
    where = state.header.where_kept
    others = state.others
    match = _CANONICAL.match
    bulk_from = state.bulk_from
    bits_of = BITS.get
    # Models repeat a few shapes; converting one costs more than the rest
    # of the entry.  Bounded, so that a header of distinct shapes costs no
    # more memory than the table it fills.
    shapes: dict[str, tuple[tuple[int, ...], int]] = {}
    while True:
        if pos >= bulk_from and _bulk().START.match(text, pos) is not None:
            pos, taken, bulk_from = _take(state, pos)
            if taken:
                continue
        found = match(text, pos)
        if found is None:
            break
        if pos >= bulk_from:
            # Canonical but not compact (or the last member): try the bulk
            # way again only a chunk further on.
            bulk_from = pos + _bulk().CHUNK
        name, dtype, shape, begin, end, comma = found.groups()
        bits = bits_of(dtype)
        if (
            bits is None
            or not comma
            or len(shape) >= 20  # where a dimension may pass 2^64-1
            or "\\" in name
            or name in index
            or name in others
            or name == METADATA_KEY
        ):
            break
        # Under 20 characters no dimension passes 2^64-1, and no prefix of
        # the product can pass it before a 0 brings it back (the other
        # dimensions hold at most 17 digits, times at most 64 bits): one
        # product judges what _scan's loop does.
        known = shapes.get(shape)
        if known is None:
            sizes = tuple(map(int, shape.split(","))) if shape else ()
            known = sizes, prod(sizes)
            if len(shapes) < _SHAPES_KEPT:
                shapes[shape] = known
        sizes, elements = known
        bits *= elements
        begin_at = int(begin)
        end_at = int(end)
        after = found.end()
        if (
            bits > U64_MAX
            or bits & 7
            or bits >> 3 != end_at - begin_at
            or end_at > U64_MAX
            or text[after : after + 1] == "}"
        ):
            break
        index[name] = len(codes)
        codes.append(RANK[dtype])
        offsets.append(begin_at)
        offsets.append(end_at)
        dims.extend(sizes)
        starts.append(len(dims))
        where.append(found.start(4))
        pos = after
    state.bulk_from = bulk_from
    return pos, found


def _take(state: _Scan, pos: int) -> tuple[int, int, int]:
    """Take a run of compact entries in bulk; return what _bulk.take does."""
    header = state.header
    text = state.src.text
    row = len(header.table)
    after, taken, retry = _bulk().take(text, pos, header.table, state.others)
    if taken:
        # Their positions are found again only if asked for (see Header).
        header.where_kept.frombytes(bytes(8 * taken))
        header.bulk_runs.append((text, row, taken, pos))
    return after, taken, retry


class Settled(Exception):  # noqa: N818 - a verdict, not an accident
    """The report holds the file's first violation; nothing later can change it."""


def _settles(state: _Scan) -> bool:
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


def _rest(state: _Scan, pos: int) -> int:
    """Check the syntax of the members from ``pos`` on; return the object's end."""
    src = state.src
    text = src.text
    src.fault = _ignore
    match = _CANONICAL.match if src.shortcuts else None
    more = True
    while more:
        found = match(text, pos) if match is not None else None
        if found is not None:
            pos = found.end()
            if found.group(6):
                if text[pos : pos + 1] == "}":
                    raise _trailing_comma(pos)
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


def _trailing_comma(pos: int) -> JsonStop:
    return JsonStop("JSON-SYNTAX", pos, "trailing comma before '}', expected a value")


def _duplicate(state: _Scan, name: str, pos: int, path: Path) -> None:
    if not state.report.full("KEY-UNIQUE", pos):
        msg = f"member name {shown(name)} appears twice in one object"
        state.fault("KEY-UNIQUE", pos, msg, path)


def _repeated(state: _Scan, name: str, pos: int) -> bool:
    """Report a top-level name seen before; True if it was."""
    if name in state.header.table or name in state.others:
        state.header.names_unique = False
        _duplicate(state, name, pos, ())
        return True
    return False


def _member(state: _Scan, pos: int) -> tuple[int, bool]:
    """Judge the member at ``pos`` the general way; return what next_member does."""
    src = state.src
    text = src.text
    key_pos = pos
    try:
        pos, name = member_name(src, pos, None)
        repeated = _repeated(state, name, key_pos)
        if name == METADATA_KEY:
            state.others.add(name)
            pos = _metadata(state, pos, keep=not repeated)
        else:
            pos = _entry(state, name, pos, repeated=repeated)
    except JsonStop:
        # The parse stops inside this member, so a fault in its name has no
        # path: the member never came to be.
        if text[key_pos : key_pos + 1] == '"':
            with contextlib.suppress(JsonStop):
                check_surrogates(src, string(src, key_pos)[1], key_pos, ())
        raise
    check_surrogates(src, name, key_pos, (name,))
    return next_member(text, pos, "}")


# Canonical entries with a fault, or a repeated name -------------------------


def _canonical_faults(
    state: _Scan, found: re.Match[str], name: str, sizes: list[int]
) -> None:
    text = state.src.text
    repeated = _repeated(state, name, found.start())
    dtype = found.group(2)
    if dtype not in BITS:
        _dtype_fault(state, name, dtype, found.start(2) - 1)
    shape_pos = text.rfind("[", 0, found.start(3))
    shape_ok = _dims_in_range(state, name, found)
    begin, end = int(found.group(4)), int(found.group(5))
    offsets_ok = True
    for position, (offset, group) in enumerate(((begin, 4), (end, 5))):
        if offset > U64_MAX:
            offsets_ok = False
            _too_big(
                state, found.start(group), (name, "data_offsets", position), offset
            )
    _finish(
        state,
        name,
        dtype if dtype in BITS else None,
        tuple(sizes) if shape_ok else None,
        (begin, end) if offsets_ok else None,
        (shape_pos, text.rfind("[", 0, found.start(4)) + 1),
        repeated=repeated,
    )


def _dims_in_range(state: _Scan, name: str, found: re.Match[str]) -> bool:
    """Report every dimension above 2^64-1, locating the reported ones.

    The dimensions are found by a regular expression and never converted to
    integers; the index of each reported one is counted from the previous one.
    """
    text = state.src.text
    start, end = found.span(3)
    report = state.report
    pos, index, in_range = start, 0, True
    over = _over_u64().finditer(text, start, end)
    for dim in over:
        in_range = False
        index += text.count(",", pos, dim.start())
        pos = dim.start()
        if report.full("NUM-RANGE", pos):
            # Every later one lies further on: count them, locate none
            # (read() needs no count).
            if not state.first_only:
                report.count_more("NUM-RANGE", sum(1 for _ in over))
            break
        _too_big(state, pos, (name, "shape", index), int(dim.group()))
    return in_range


def _greater(number: str) -> str:
    """Match the integers of as many digits as ``number`` that exceed it."""
    return "|".join(
        number[:k] + f"[{int(digit) + 1}-9]" + "[0-9]" * (len(number) - k - 1)
        for k, digit in enumerate(number)
        if digit != "9"
    )


@cache
def _over_u64() -> re.Pattern[str]:
    """Match a dimension token above 2^64-1 of 20 digits, in place, at C speed.

    A canonical entry has at most 20 digits per dimension.  Compiled on first
    use: it takes a millisecond, and only a shape of 20 characters or more
    needs it.
    """
    return re.compile(rf"(?<![0-9])(?:{_greater(str(U64_MAX))})(?![0-9])")


def _too_big(state: _Scan, pos: int, path: Path, number: int) -> None:
    state.fault("NUM-RANGE", pos, f"{number} is not an integer in 0..2^64-1", path)


def _dtype_fault(state: _Scan, name: str, dtype: object, pos: int) -> None:
    if not state.report.full("DTYPE-NAME", pos):
        what = shown(dtype) if type(dtype) is str else _kind(dtype)
        state.fault(
            "DTYPE-NAME",
            pos,
            f"dtype {what} is not one of the 22 dtype names",
            (name, "dtype"),
        )


# The general way: parse with positions, check field by field --------------


def _entry(  # noqa: C901, PLR0912, PLR0915 - one branch per field, together
    state: _Scan, name: str, pos: int, *, repeated: bool
) -> int:
    """Judge the entry value at ``pos``; return its end."""
    src = state.src
    text = src.text
    report = state.report
    if text[pos : pos + 1] != "{":
        # A fault inside the value is no first violation: ENTRY-OBJECT at
        # the value and the name's surrogate come before it, found after.
        state.in_entry = True
        end = skip(src, pos, 1, (name,))
        state.in_entry = False
        state.fault(
            "ENTRY-OBJECT",
            pos,
            f"tensor {shown(name)} is {kind(text, pos)}, expected an object with "
            "dtype, shape and data_offsets",
            (name,),
        )
        state.header.layout_ready = False
        state.others.add(name)
        return end
    entry_pos = pos
    state.in_entry = True
    fields: dict[str, tuple[int, object, array[int] | None]] = {}
    seen: set[str] = set()
    bulk_from = pos  # where a run of plain members may be taken in one go
    pos, more = opening(text, pos, "}")
    while more:
        if (
            pos >= bulk_from
            and src.shortcuts
            and report.saturated("ENTRY-UNKNOWN", pos)
        ):
            bulk_from = _plain_members(state, seen, pos)
            if bulk_from < 0:
                pos = -bulk_from
                continue
        key_pos = pos
        pos, key = member_name(src, pos, (name,))
        path = (name, key)
        if key in seen:
            _duplicate(state, key, key_pos, (name,))
            pos = skip(src, pos, 2, path)
        elif key in FIELDS:
            seen.add(key)
            plain = _plain_field(text, pos, key) if src.shortcuts else None
            if plain is None and key != "dtype" and _counted_only(report, pos, key):
                plain = array_to_count(src, pos)
                if plain is not None and _numbers_to_locate(report, pos, plain[1]):
                    plain = None
            if plain is not None:
                end, item = plain
                fields[key] = (pos, item, None)
            else:
                elements = None if key == "dtype" else array(_ARRAY)
                end, item = value(src, pos, 2, path, elements=elements)
                fields[key] = (pos, item, elements)
            pos = end
        else:
            seen.add(key)
            if not report.full("ENTRY-UNKNOWN", pos):
                state.fault(
                    "ENTRY-UNKNOWN",
                    pos,
                    f"tensor {shown(name)} has unknown member {shown(key)}, "
                    "expected only dtype, shape and data_offsets",
                    path,
                )
            pos = skip(src, pos, 2, path)
        pos, more = next_member(text, pos, "}")
    state.in_entry = False
    missing = [key for key in ("dtype", "shape", "data_offsets") if key not in fields]
    if missing:
        state.fault(
            "ENTRY-FIELDS",
            entry_pos,
            f"tensor {shown(name)} lacks {', '.join(missing)}",
            (name,),
        )
    dtype = None
    if "dtype" in fields:
        dtype_pos, item, _ = fields["dtype"]
        if type(item) is str and item in BITS:
            dtype = item
        else:
            _dtype_fault(state, name, item, dtype_pos)
    shape = None
    shape_pos = -1
    if "shape" in fields:
        shape_pos, item, elements = fields["shape"]
        shape = _integers(state, (name, "shape"), shape_pos, item, elements)
    offsets = None
    offsets_pos = -1
    if "data_offsets" in fields:
        offsets_pos, item, elements = fields["data_offsets"]
        pair = _integers(state, (name, "data_offsets"), offsets_pos, item, elements)
        if pair is not None:
            offsets = (pair[0], pair[1])
    _finish(
        state,
        name,
        dtype,
        shape,
        offsets,
        (shape_pos, offsets_pos + 1),
        repeated=repeated,
    )
    return pos


def _counted_only(report: Report, pos: int, key: str) -> bool:
    """Whether no element at ``pos`` on of the wrong type would be kept."""
    return report.saturated("SHAPE-ARRAY" if key == "shape" else "OFFSETS-PAIR", pos)


def _numbers_to_locate(report: Report, pos: int, item: list[object]) -> bool:
    """Whether some number in ``item`` breaks a rule that still keeps faults."""
    return any(
        ((type(element) is int and element > U64_MAX) or type(element) is Number)
        and not report.saturated(_element_rule(element, ""), pos)
        for element in item
    )


def _plain_field(text: str, pos: int, key: str) -> tuple[int, object] | None:
    """Read a field value that can hold no fault of its own, or return None.

    A dtype without escapes, or an array of integers none of which exceeds
    2^64-1 (two for data_offsets): the faults left (a wrong dtype, a size)
    need no element positions.
    """
    if key == "dtype":
        found = PLAIN_STRING.match(text, pos)
        return None if found is None else (found.end(), found.group(1))
    found = _int_array().match(text, pos) if nests(3) else None
    if found is None or _over_u64().search(text, *found.span(1)):
        return None
    tokens = found.group(1)
    numbers = list(map(int, tokens.split(","))) if tokens else []
    if key == "data_offsets" and len(numbers) != 2:
        return None
    return found.end(), numbers


@cache
def _int_array() -> re.Pattern[str]:
    return re.compile(rf"\[{_W}((?:{INT}(?:{_W},{_W}{INT})*+)?){_W}\]")


def _plain_members(state: _Scan, seen: set[str], pos: int) -> int:
    """Count a run of plain unknown members at ``pos``.

    Returns minus the position after the run when it was taken; else the
    position from which to try again (the run holds a field or a repeated
    name, so its members go one by one).
    """
    text = state.src.text
    run = _plain_run().match(text, pos)
    if run is None:
        return pos + 1
    if state.first_only:
        # read() wants neither the count nor repeats among these (a repeat
        # lies after the first violation; should a later fault void that,
        # the file is checked again in full): only whether a field hides here.
        chunk = text[pos : run.end()]
        if '"dtype"' in chunk or '"shape"' in chunk or '"data_offsets"' in chunk:
            return run.end()
        return -run.end()
    names = _plain_member().findall(text, pos, run.end())
    fresh = set(names)
    if len(fresh) != len(names) or not seen.isdisjoint(fresh) or fresh & FIELDS:
        return run.end()
    seen |= fresh
    state.report.count_more("ENTRY-UNKNOWN", len(names))
    return -run.end()


def _integers(
    state: _Scan,
    path: Path,
    pos: int,
    item: object,
    elements: array[int] | None,
) -> tuple[int, ...] | None:
    """Check a shape or data_offsets value; return its integers if all are fine."""
    field = path[1]
    rule = "SHAPE-ARRAY" if field == "shape" else "OFFSETS-PAIR"
    if type(item) is not list or (field == "data_offsets" and len(item) != 2):
        if field == "shape":
            msg = f"shape is {_kind(item)}, expected an array of integers"
        else:
            what = f"an array of {len(item)}" if type(item) is list else _kind(item)
            msg = f"data_offsets is {what}, expected an array of two integers"
        state.fault(rule, pos, msg, path)
        return None
    good = True
    for position, element in enumerate(item):
        if type(element) is int and element <= U64_MAX:
            continue
        good = False
        if elements is None:
            # Read without positions because these rules keep no more.
            state.report.count_more(_element_rule(element, rule), 1)
            continue
        at = elements[position]
        if type(element) is int:
            _too_big(state, at, (*path, position), element)
        elif isinstance(element, Number):
            _not_integer(state, at, (*path, position), element)
        elif not state.report.full(rule, at):
            state.fault(
                rule,
                at,
                f"element is {_kind(element)}, expected an integer",
                (*path, position),
            )
    return tuple(item) if good else None


def _element_rule(element: object, rule: str) -> str:
    if type(element) is int:
        return "NUM-RANGE"
    if isinstance(element, Number):
        return "NUM-RANGE" if element.is_integer_token else "NUM-INTEGER"
    return rule


def _not_integer(state: _Scan, pos: int, path: Path, number: Number) -> None:
    if number.is_integer_token:
        digits = len(number.token)
        what = number.token if digits <= 40 else f"a {digits}-digit integer"
        if not state.report.full("NUM-RANGE", pos):
            state.fault("NUM-RANGE", pos, f"{what} exceeds 2^64-1", path)
    elif not state.report.full("NUM-INTEGER", pos):
        state.fault(
            "NUM-INTEGER",
            pos,
            f"number {number.token[:40]} is not a plain non-negative integer",
            path,
        )


def _finish(  # noqa: PLR0913, PLR0917 - the fields of one entry
    state: _Scan,
    name: str,
    dtype: str | None,
    shape: tuple[int, ...] | None,
    offsets: tuple[int, int] | None,
    where: tuple[int, int],
    *,
    repeated: bool,
) -> None:
    """Run the checks that need several fields; then add the entry to the table."""
    header = state.header
    if offsets is None:
        header.layout_ready = False
        state.others.add(name)
        return
    offsets_after = where[1]
    begin, end = offsets
    low, high = min(begin, end), max(begin, end)
    if begin > end:
        state.fault(
            "OFFSETS-ORDER",
            offsets_after - 1,
            f"data_offsets begin {begin} exceeds end {end}",
            (name, "data_offsets"),
        )
    if dtype is not None and shape is not None:
        _check_size(state, name, dtype, shape, high - low, where)
    if repeated:
        return
    # The entry still claims bytes [low, high): keeping it in the tiling means
    # one fault in an entry does not also show up as a hole.
    header.table.add(name, dtype or "BOOL", shape or (), low, high)
    header.where_kept.append(offsets_after)


def _check_size(  # noqa: PLR0913, PLR0917 - the fields of one entry
    state: _Scan,
    name: str,
    dtype: str,
    shape: tuple[int, ...],
    nbytes: int,
    where: tuple[int, int],
) -> None:
    bits = _bit_count(dtype, shape)
    shape_pos, offsets_after = where
    if bits is None:
        if not state.report.full("SIZE-OVERFLOW", shape_pos):
            state.fault(
                "SIZE-OVERFLOW",
                shape_pos,
                f"{dtype} tensor of shape {_short(shape)} needs more than 2^64-1 bits",
                (name, "shape"),
            )
    elif bits % 8:
        if not state.report.full("SIZE-BITS", shape_pos):
            state.fault(
                "SIZE-BITS",
                shape_pos,
                f"{dtype} tensor of shape {_short(shape)} holds {bits} bits, "
                "expected a multiple of 8",
                (name, "shape"),
            )
    elif bits // 8 != nbytes and not state.report.full("SIZE-MATCH", offsets_after - 1):
        state.fault(
            "SIZE-MATCH",
            offsets_after - 1,
            f"data_offsets span {nbytes} bytes, expected {bits // 8} for "
            f"{dtype} {_short(shape)}",
            (name, "data_offsets"),
        )


def _bit_count(dtype: str, shape: tuple[int, ...]) -> int | None:
    """Return the exact bit count, or None above 2^64-1 (spec SIZE-OVERFLOW).

    A zero dimension makes the tensor empty whatever the others are; ones
    change nothing; any other dimension at least doubles the count, so the
    loop stops within 64 steps and never builds a huge integer.
    """
    if 0 in shape:
        return 0
    count = BITS[dtype]
    for dim in filter((1).__ne__, shape):
        count *= dim
        if count > U64_MAX:
            return None
    return count


def _short(shape: tuple[int, ...]) -> str:
    text = str(list(shape[:20]))
    return text if len(text) <= 80 else text[:77] + "..."


def _kind(item: object) -> str:
    """Name a parsed JSON value's type the way the spec does."""
    if item is None:
        return "null"
    if isinstance(item, bool):
        return "a boolean"
    if isinstance(item, (int, Number)):
        return "a number"
    if isinstance(item, str):
        return "a string"
    if isinstance(item, list):
        return "an array"
    return "an object"


# __metadata__ ---------------------------------------------------------------


def _metadata(state: _Scan, pos: int, *, keep: bool) -> int:  # noqa: C901, PLR0912
    """Judge the ``__metadata__`` value at ``pos``; return its end."""
    src = state.src
    text = src.text
    path = (METADATA_KEY,)
    char = text[pos : pos + 1]
    if char != "{":
        state.in_entry = True  # META-OBJECT/-NULL come first, found after
        end = skip(src, pos, 1, path)
        state.in_entry = False
        if char == "n" and end == pos + 4:
            state.fault(
                "META-NULL", pos, "__metadata__ is null, expected an object", path
            )
        else:
            state.fault(
                "META-OBJECT",
                pos,
                f"__metadata__ is {kind(text, pos)}, expected an object of strings",
                path,
            )
        return end
    metadata: dict[str, str] = {}
    others: set[str] = set()  # names whose value is not a string
    pair = _PAIR.match if src.shortcuts else None
    pos, more = opening(text, pos, "}")
    while more:
        found = pair(text, pos) if pair is not None else None
        if found is not None:
            key, item, comma = found.groups()
            if "\\" in key:
                key = string(src, pos)[1]
            if key in metadata or key in others:
                found = None  # the general way reports the repeat
        if found is None:
            pos = _metadata_member(state, pos, metadata, others)
            pos, more = next_member(text, pos, "}")
            continue
        check_surrogates(src, key, pos, path)
        if "\\" in item:
            item_pos = found.start(2) - 1
            item = string(src, item_pos)[1]
            check_surrogates(src, item, item_pos, (METADATA_KEY, key))
        metadata[key] = item
        pos = found.end()
        if not comma:
            if text[pos : pos + 1] != "}":
                raise syntax(text, pos, "',' or '}'")
            pos += 1
            break
        if text[pos : pos + 1] == "}":
            raise _trailing_comma(pos)
    if keep:
        state.header.metadata = metadata
    return pos


def _metadata_member(
    state: _Scan, pos: int, metadata: dict[str, str], others: set[str]
) -> int:
    """Judge one metadata member the general way; return the end of its value."""
    src = state.src
    text = src.text
    path = (METADATA_KEY,)
    key_pos = pos
    pos, key = member_name(src, pos, path)
    repeated = key in metadata or key in others
    if repeated:
        _duplicate(state, key, key_pos, path)
    if text[pos : pos + 1] == '"':
        value_pos = pos
        pos, item = string(src, pos)
        check_surrogates(src, item, value_pos, (METADATA_KEY, key))
        if not repeated:
            metadata[key] = item
        return pos
    others.add(key)
    if not state.report.full("META-STRING", pos):
        state.fault(
            "META-STRING",
            pos,
            f"metadata value for {shown(key)} is {kind(text, pos)}, expected a string",
            (METADATA_KEY, key),
        )
    return skip(src, pos, 2, (METADATA_KEY, key))
