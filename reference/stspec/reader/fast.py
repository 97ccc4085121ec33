"""The shortcuts: the member scan of reader/header.py at C speed.

The decisions are those of the plain path; only the way to them is shorter.
A canonical entry (the form writers emit, with any JSON whitespace and
escaped names) is matched by one regular expression and judged on the spot;
runs of compact entries are taken in bulk (reader/bulk.py); a metadata member
whose value is a string is one more pattern; an entry's field that can hold
no fault of its own, or an array whose elements are only counted, is read by
a pattern or the C decoder.  Anything else goes the plain way, member by
member.  With ``first_only`` (read()), the scan asks reader/first.py after
each member whether the first violation is settled.
tests/reference/test_reader_paths_agree.py, test_reader_under_attack.py and
the fuzzers compare every verdict with the plain path's.
"""

from __future__ import annotations

import re
from functools import cache, partial
from math import prod

from stspec.dtypes import BITS, RANK, bit_count
from stspec.reader import strict_json
from stspec.reader.first import Settled, decided, parse_fault, rest, settles
from stspec.reader.header import (
    FIELDS,
    METADATA_KEY,
    Header,
    Scan,
    dtype_fault,
    duplicate,
    finish,
    judge_fields,
    member,
    metadata_member,
    not_an_entry,
    not_metadata,
    read_field,
    repeated_name,
    too_big,
    unknown_member,
)
from stspec.reader.strict_json import (
    INT,
    PLAIN_STRING,
    SURROGATE_ESCAPE,
    WS,
    JsonStop,
    Number,
    Path,
    Text,
    check_surrogates,
    member_name,
    next_member,
    opening,
    skip,
    string,
    syntax,
    trailing_comma,
)
from stspec.rules import U64_MAX

# No typing at run time (start-up cost, see stspec/record.py); mypy reads this as True.
TYPE_CHECKING = False
if TYPE_CHECKING:
    import json
    from array import array
    from types import ModuleType
    from typing import Final

    from stspec.reader.report import Report
    from stspec.reader.strict_json import FaultSink

__all__ = ["FastHeader", "FastScan", "Settled", "scan"]

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


# One metadata member whose value is a string without escapes; a value with
# escapes (JSON stored as text: kohya's ss_* keys) stops it at its first
# backslash and goes to the C string scanner (_string_pair), since a pattern
# steps through such a value one escape at a time.
_PAIR: Final = re.compile(rf"{_ESCAPED_NAME}{_W}:{_W}{_NAME}{_W}(,?){_W}")
_PAIR_HEAD: Final = re.compile(rf'{_ESCAPED_NAME}{_W}:{_W}"')
_AFTER_VALUE: Final = re.compile(rf"{_W}(,?){_W}")
_SHAPES_KEPT: Final = 1024
_FEW_MEMBERS: Final = 5


# Values nobody reads, checked by the C decoder ----------------------------


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
            except (ValueError, RecursionError, _Doubt):
                pass
            else:
                if not (
                    self.surrogates and SURROGATE_ESCAPE.search(self.text, pos, end)
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


class _Doubt(Exception):  # noqa: N818 - internal signal, never escapes
    pass


def _distinct(pairs: list[tuple[str, object]]) -> None:
    if len({name for name, _ in pairs}) != len(pairs):
        raise _Doubt


def _refuse(_token: str) -> None:
    raise _Doubt


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


def _array_to_count(src: FastText, pos: int) -> tuple[int, list[object]] | None:
    """Decode the array at ``pos`` at C speed, or None when in doubt.

    Objects inside become empty dicts: the caller only counts what is wrong.
    """
    if not (src.text[pos : pos + 1] == "[" and src.shallow):
        return None
    try:
        item, end = _counter().raw_decode(src.text, pos)
    except (ValueError, RecursionError, _Doubt):
        return None
    if src.surrogates and SURROGATE_ESCAPE.search(src.text, pos, end):
        return None
    return end, item


# The member scan ------------------------------------------------------------


class FastHeader(Header):
    """A Header whose entries taken in bulk find their positions when asked."""

    __slots__ = ("bulk_runs",)

    def __init__(self) -> None:
        super().__init__()
        # Positions of the entries taken one by one; 0 for those taken in
        # bulk, whose positions are found again only if asked for (a tensor
        # that ends past the buffer): (text, first row, rows, text position).
        self.bulk_runs: list[tuple[str, int, int, int]] = []

    @property
    def where(self) -> array[int]:
        """Per table entry, a position just past its data_offsets' ``[``."""
        where = self.where_kept
        for text, row, rows, pos in self.bulk_runs:
            where[row : row + rows] = _bulk().positions(text, pos, rows)
        self.bulk_runs.clear()
        return where


class FastScan(Scan):
    """The state of one scan, with what the shortcuts and read() need."""

    __slots__ = (
        "buffer_length",
        "bulk_from",
        "first_only",
        "in_entry",
        "past_buffer",
        "shortcuts",
        "split_from",
    )
    header: FastHeader

    def __init__(
        self, src: Text, report: Report, buffer_length: int, *, first_only: bool
    ) -> None:
        super().__init__(src, report, FastHeader())
        self.buffer_length = buffer_length
        # Some tensor seen so far ends past the buffer (see first.settles).
        self.past_buffer = False
        self.first_only = first_only
        # Without the shortcuts (a plain Text), the scan goes the plain way
        # member by member, for read()'s first violation.
        self.shortcuts = isinstance(src, FastText)
        # Inside a member's value some findings are made only at its end
        # (ENTRY-OBJECT or META-OBJECT at the value, a surrogate in the name).
        self.in_entry = False
        # Before this position, taking entries in bulk is not tried again.
        length = len(src.text)
        self.bulk_from = 0 if length >= _BULK_MIN_LENGTH else length + 1
        # Before this position, splitting unknown members is not tried again.
        self.split_from = 0

    def judge_entry(self, name: str, pos: int, *, repeated: bool) -> int:
        """Judge the tensor entry value at ``pos``; return its end."""
        src = self.src
        if (
            not repeated
            and isinstance(src, FastText)
            and src.text[pos : pos + 1] == "{"
            and src.shallow
        ):
            end = _sound_entry(self, src, name, pos)
            if end >= 0:
                return end
        return _entry(self, name, pos, repeated=repeated)

    def judge_metadata(self, pos: int, *, keep: bool) -> int:
        """Judge the ``__metadata__`` value at ``pos``; return its end."""
        return _metadata(self, pos, keep=keep)

    def judge_integers(
        self, path: Path, pos: int, item: object, elements: array[int] | None
    ) -> tuple[int, ...] | None:
        """Judge a shape or data_offsets value at ``pos`` (see header.integers).

        Without ``elements`` the array was read without positions (see
        _counted_only): its bad elements are only counted.
        """
        if (
            elements is not None
            or type(item) is not list
            or (path[1] == "data_offsets" and len(item) != 2)
        ):
            return super().judge_integers(path, pos, item, elements)
        rule = "SHAPE-ARRAY" if path[1] == "shape" else "OFFSETS-PAIR"
        good = True
        for element in item:
            if type(element) is not int or element > U64_MAX:
                good = False
                count_more(self.report, element_rule(element, rule), 1)
        return tuple(item) if good else None


def scan(
    src: Text, start: int, report: Report, buffer_length: int, *, first_only: bool
) -> FastHeader:
    """Judge every member of the object whose ``{`` is at ``start``.

    Raises JsonStop when the text cannot be parsed on; with ``first_only``
    (read() wants the first violation and nothing else) it may raise Settled
    once the report holds that one for certain.  Everything found is in
    ``report``.
    """
    state = FastScan(src, report, buffer_length, first_only=first_only)
    sink = src.fault
    if first_only:
        src.fault = partial(parse_fault, state)
    try:
        return _scan(state, start, first_only=first_only)
    finally:
        # The sink refers to the state: a cycle to break.
        src.fault = sink


def _scan(  # noqa: C901, PLR0912, PLR0915 - the hot loop, kept in one piece
    state: FastScan, start: int, *, first_only: bool
) -> FastHeader:
    src = state.src
    report = state.report
    text = src.text
    header = state.header
    index = header.table.columns[0]
    where = header.where_kept
    match = _CANONICAL.match if state.shortcuts else None
    bits_of = BITS.get
    pos, more = opening(text, start, "}")
    while more:
        if match is None:
            found = None
        elif not first_only or not decided(report) or state.past_buffer:
            # With nothing to settle (see first.settles), runs of plain sound
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
            pos, more = member(state, pos)
            if first_only and decided(report) and settles(state):
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
            repeated_name(state, name, found.start())
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
                raise trailing_comma(pos, "}")
            if first_only and decided(report) and settles(state):
                pos = _rest(state, pos)
                break
        elif text[pos : pos + 1] == "}":
            pos += 1
            more = False
        else:
            raise syntax(text, pos, "',' or '}'")
    header.end = pos
    return header


def _sound_run(  # noqa: C901 - the hot loop, kept in one piece
    state: FastScan, pos: int
) -> tuple[int, re.Match[str] | None]:
    """Take the members from ``pos`` on that need no more than a table row.

    Runs of compact members go in bulk (see _bulk).  Else, a canonical entry
    (or one in json.dumps(sort_keys=True)'s order, or with escaped field
    names: see _other_orders) whose name has no escapes and is new, of a
    known dtype and a shape under 20 characters, whose size matches its
    offsets and which a comma and another member follow, is accepted as
    _scan would accept it, with fewer steps.  The first member that is
    anything else is left to _scan.  Return the position of that member and
    its match (None if it is not canonical).
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
        if found is not None:
            name, dtype, shape, begin, end, comma = found.groups()
            at, after = found.start(4), found.end()
        else:
            # Fields in another order or spelt with escapes: taken here when
            # sound, else left to _scan's general way (found stays None).
            other = _reordered(text, pos)
            if other is None:
                break
            (name, dtype, shape, begin, end, comma), at, after = other
        if pos >= bulk_from:
            # Canonical but not compact (or the last member): try the bulk
            # way again only a chunk further on.
            bulk_from = pos + _bulk().CHUNK
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
        where.append(at)
        pos = after
    state.bulk_from = bulk_from
    return pos, found


def _field_name(name: str) -> str:
    r"""Match a member name spelt with or without escapes (``\u0064type``)."""
    return "".join(
        f"(?:{char}|\\\\u00{code[0]}[{code[1].lower()}{code[1].upper()}])"
        for char, code in ((char, f"{ord(char):02x}") for char in name)
    )


@cache
def _other_orders() -> tuple[re.Pattern[str], re.Pattern[str]]:
    """Match an entry member as _CANONICAL does, its field names escaped or not.

    The first keeps the canonical order; the second is the order of
    json.dumps(sort_keys=True): data_offsets, dtype, shape.  Compiled on
    first use: headers as most writers emit them never need them.
    """
    dtype, shape, offsets = map(_field_name, ("dtype", "shape", "data_offsets"))
    dims = rf"\[{_W}((?:{INT}(?:{_W},{_W}{INT})*+)?){_W}\]"
    pair = rf"\[{_W}({INT}){_W},{_W}({INT}){_W}\]"
    canonical = (
        rf'\{{{_W}"{dtype}"{_W}:{_W}{_NAME}{_W},{_W}"{shape}"{_W}:{_W}{dims}{_W},'
        rf'{_W}"{offsets}"{_W}:{_W}{pair}{_W}\}}'
    )
    ordered = (
        rf'\{{{_W}"{offsets}"{_W}:{_W}{pair}{_W},{_W}"{dtype}"{_W}:{_W}{_NAME}{_W},'
        rf'{_W}"{shape}"{_W}:{_W}{dims}{_W}\}}'
    )
    return tuple(  # type: ignore[return-value]
        re.compile(rf"{_ESCAPED_NAME}{_W}:{_W}{entry}{_W}(,?){_W}")
        for entry in (canonical, ordered)
    )


@cache
def _any_order() -> re.Pattern[str]:
    """Match an entry member whose three fields, named plainly, come in any order.

    Each field is a name and either a string or an array of integers; which
    is which is sorted out after the match (see _fields_in_order).
    """
    field = (
        rf'"(dtype|shape|data_offsets)"{_W}:{_W}'
        rf"(?:{_NAME}|\[{_W}((?:{INT}(?:{_W},{_W}{INT})*+)?){_W}\])"
    )
    return re.compile(
        rf"{_ESCAPED_NAME}{_W}:{_W}\{{{_W}{field}{_W},{_W}{field}{_W},{_W}{field}"
        rf"{_W}\}}{_W}(,?){_W}"
    )


def _fields_in_order(
    found: re.Match[str],
) -> tuple[tuple[str, ...], int, int] | None:
    """Return what _reordered does for a match of _any_order, or None."""
    groups = found.groups()
    fields = {groups[k]: k for k in (1, 4, 7)}
    if len(fields) != 3:
        return None
    dtype = groups[fields["dtype"] + 1]
    shape = groups[fields["shape"] + 2]
    at = fields["data_offsets"] + 2
    offsets = groups[at]
    if dtype is None or shape is None or offsets is None or offsets.count(",") != 1:
        return None
    begin, end = offsets.split(",")
    return (
        (groups[0], dtype, shape, begin, end, groups[10]),
        found.start(at + 1),
        found.end(),
    )


def _reordered(text: str, pos: int) -> tuple[tuple[str, ...], int, int] | None:
    """Match the entry member at ``pos`` that _CANONICAL misses but _other_orders takes.

    Return its parts in _CANONICAL's order (name, dtype, shape, begin, end,
    comma), where its begin offset is and where the member ends.
    """
    if text.startswith('"__metadata__"', pos):
        return None
    found = _any_order().match(text, pos)
    if found is not None:
        return _fields_in_order(found)
    escaped, ordered = _other_orders()
    found = escaped.match(text, pos)
    if found is not None:
        return found.groups(), found.start(4), found.end()
    found = ordered.match(text, pos)
    if found is None:
        return None
    name, begin, end, dtype, shape, comma = found.groups()
    return (name, dtype, shape, begin, end, comma), found.start(2), found.end()


def _take(state: FastScan, pos: int) -> tuple[int, int, int]:
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


def _rest(state: FastScan, pos: int) -> int:
    """Check only the syntax of the members from ``pos`` on (see first.rest)."""
    src = state.src
    return rest(src, pos, _CANONICAL if state.shortcuts else None)


# Canonical entries with a fault, or a repeated name -------------------------


def _canonical_faults(
    state: FastScan, found: re.Match[str], name: str, sizes: list[int]
) -> None:
    text = state.src.text
    repeated = repeated_name(state, name, found.start())
    dtype = found.group(2)
    if dtype not in BITS:
        dtype_fault(state, name, dtype, found.start(2) - 1)
    shape_pos = text.rfind("[", 0, found.start(3))
    shape_ok = _dims_in_range(state, name, found)
    begin, end = int(found.group(4)), int(found.group(5))
    offsets_ok = True
    for position, (offset, group) in enumerate(((begin, 4), (end, 5))):
        if offset > U64_MAX:
            offsets_ok = False
            too_big(state, found.start(group), (name, "data_offsets", position), offset)
    finish(
        state,
        name,
        dtype if dtype in BITS else None,
        tuple(sizes) if shape_ok else None,
        (begin, end) if offsets_ok else None,
        (shape_pos, text.rfind("[", 0, found.start(4)) + 1),
        repeated=repeated,
    )


def _dims_in_range(state: FastScan, name: str, found: re.Match[str]) -> bool:
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
                count_more(report, "NUM-RANGE", sum(1 for _ in over))
            break
        too_big(state, pos, (name, "shape", index), int(dim.group()))
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


# Entries and metadata the plain way, with shortcuts for some values --------


def _entry(state: FastScan, name: str, pos: int, *, repeated: bool) -> int:
    """Judge the entry value at ``pos`` as header.entry does; return its end."""
    src = state.src
    text = src.text
    report = state.report
    if text[pos : pos + 1] != "{":
        # A fault inside the value is no first violation: ENTRY-OBJECT at
        # the value and the name's surrogate come before it, found after.
        state.in_entry = True
        end = skip(src, pos, 1, (name,))
        state.in_entry = False
        return not_an_entry(state, name, pos, end)
    entry_pos = pos
    state.in_entry = True
    fields: dict[str, tuple[int, object, array[int] | None]] = {}
    seen: set[str] = set()
    bulk_from = pos  # where a run of plain members may be taken in one go
    pos, more = opening(text, pos, "}")
    pos = _fields_first(state, entry_pos, fields, seen) or pos
    while more:
        if (
            pos >= bulk_from
            # Runs worth taking in bulk are long: an entry with one or two
            # unknown members (nested values, say) goes member by member.
            and len(seen) > _FEW_MEMBERS
            and state.shortcuts
            and saturated(report, "ENTRY-UNKNOWN", pos)
        ):
            bulk_from = _plain_members(state, seen, pos)
            if bulk_from < 0:
                pos = -bulk_from
                continue
        key_pos = pos
        pos, key = member_name(src, pos, (name,))
        path = (name, key)
        if key in seen:
            duplicate(state, key, key_pos, (name,))
            pos = skip(src, pos, 2, path)
        elif key in FIELDS:
            seen.add(key)
            plain = _plain_field(text, pos, key) if state.shortcuts else None
            if (
                plain is None
                and key != "dtype"
                and isinstance(src, FastText)
                and _counted_only(report, pos, key)
            ):
                plain = _array_to_count(src, pos)
                if plain is not None and _numbers_to_locate(report, pos, plain[1]):
                    plain = None
            if plain is not None:
                end, item = plain
                fields[key] = (pos, item, None)
                pos = end
            else:
                pos = read_field(state, key, pos, path, fields)
        else:
            seen.add(key)
            pos = unknown_member(state, name, key, pos)
        pos, more = next_member(text, pos, "}")
    state.in_entry = False
    judge_fields(state, name, entry_pos, fields, repeated=repeated)
    return pos


def _fields_first(
    state: FastScan,
    pos: int,
    fields: dict[str, tuple[int, object, array[int] | None]],
    seen: set[str],
) -> int:
    """Read the entry's three fields at once when they come first, canonical.

    For an entry with more members after them (unknown ones, a repeat):
    the fields hold no fault of their own when the pattern takes them (a
    plain dtype, integers up to 2^64-1), so they go into ``fields`` as
    _plain_field would put them.  Returns where the next member starts,
    or 0 when the entry starts otherwise (or the shortcuts are off).
    """
    text = state.src.text
    # The arrays are the third level (header, entry, field), as in _plain_field.
    deep_enough = state.shortcuts and strict_json.MAX_DEPTH >= 3
    found = _fields_head().match(text, pos) if deep_enough else None
    if found is None or text[found.end() : found.end() + 1] in ("}", ""):
        return 0  # a trailing comma, or the text's end, is the parser's to report
    dtype, shape, begin, end = found.groups()
    over = _over_u64()
    if (
        (len(shape) >= 20 and over.search(shape))
        or over.fullmatch(begin)
        or over.fullmatch(end)
    ):
        return 0
    fields["dtype"] = (found.start(1) - 1, dtype, None)
    sizes = list(map(int, shape.split(","))) if shape else []
    fields["shape"] = (text.rfind("[", 0, found.start(2)), sizes, None)
    offsets = [int(begin), int(end)]
    fields["data_offsets"] = (text.rfind("[", 0, found.start(3)), offsets, None)
    seen.update(FIELDS)
    return found.end()


@cache
def _fields_head() -> re.Pattern[str]:
    # _ENTRY up to the comma after data_offsets.
    return re.compile(_ENTRY.removesuffix(rf"{_W}\}}") + rf"{_W},{_W}")


class _Members(list[tuple[str, object]]):
    """An object's members as the entry decoder gives them: never a list value."""

    __slots__ = ()


@cache
def _entry_decoder() -> json.JSONDecoder:
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


def _sound_entry(state: FastScan, src: FastText, name: str, pos: int) -> int:
    """Take an entry that breaks no rule, its fields in any order, or return -1.

    For entries the canonical pattern misses: fields in another order
    (json.dumps(sort_keys=True)) or names spelt with escapes.  The C decoder
    reads the object; an entry is taken only when it holds exactly the
    three fields, once each, a dtype name, integers in 0..2^64-1, two
    offsets in order whose span is the tensor's size: every check of
    header.entry passes.  Anything else (-1) goes header.entry's way, which
    reports it.
    """
    text = src.text
    if not _one_flat_object(text, pos):
        return -1
    try:
        pairs, end = _entry_decoder().raw_decode(text, pos)
    except (ValueError, RecursionError, _Doubt):
        return -1
    fields = dict(pairs)
    if len(pairs) != 3 or fields.keys() != FIELDS:
        return -1
    dtype, shape, offsets = fields["dtype"], fields["shape"], fields["data_offsets"]
    if (
        type(dtype) is not str
        or dtype not in BITS
        or type(shape) is not list
        or type(offsets) is not list
        or len(offsets) != 2
        or not all(type(n) is int and n <= U64_MAX for n in (*shape, *offsets))
    ):
        return -1
    begin, stop = offsets
    bits = bit_count(dtype, shape)
    if begin > stop or bits > U64_MAX or bits & 7 or bits >> 3 != stop - begin:
        return -1
    header = state.header
    header.table.add(name, dtype, shape, begin, stop)
    header.where_kept.append(_offsets_value(text, pos, end) + 1)
    return end


def _one_flat_object(text: str, pos: int) -> bool:
    r"""Whether the object at ``pos`` may be a sound entry, judged cheaply.

    A sound entry holds no object, no escaped quote and exactly three
    members, so its first ``}`` is its end and three colons come before
    it: with no ``\"``, an even count of quotes puts that ``}`` outside
    any string.  Anything else is left to header.entry without being
    decoded, so an entry with millions of unknown members costs one pass
    of C searches here instead of a decode that calls Python per number.
    """
    close = text.find("}", pos)
    return (
        close > 0
        and text.count(":", pos, close) == 3  # the three fields
        and text.find("{", pos + 1, close) < 0
        and text.find('\\"', pos, close) < 0
        and not text.count('"', pos, close) & 1
    )


@cache
def _key() -> re.Pattern[str]:
    # A member name and its colon; in a sound entry no value holds a string
    # followed by a colon.
    return re.compile(rf'"((?:[^"\\]|\\.)*)"{_W}:{_W}')


def _offsets_value(text: str, pos: int, end: int) -> int:
    """Return where the data_offsets value of the sound entry in pos..end is."""
    found = text.find('"data_offsets"', pos, end)
    if found >= 0:
        return _key().match(text, found).end()  # type: ignore[union-attr]
    for key in _key().finditer(text, pos, end):
        if string(Text(key.group(), _ignore_fault), 0)[1] == "data_offsets":
            return key.end()
    raise AssertionError  # pragma: no cover - a sound entry has data_offsets


def _ignore_fault(_rule: str, _pos: int, _msg: str, _path: Path) -> None:
    pass  # pragma: no cover - a sound entry's names hold no fault


def element_rule(element: object, rule: str) -> str:
    """Name the rule a bad array element breaks: a number's, else ``rule``."""
    if type(element) is int:
        return "NUM-RANGE"
    if isinstance(element, Number):
        return "NUM-RANGE" if element.is_integer_token else "NUM-INTEGER"
    return rule


def saturated(report: Report, rule: str, key: int) -> bool:
    """Whether no violation of ``rule`` at ``key`` or later would be kept."""
    return report.counts.get(rule, 0) >= report.limit and key >= report.worst[rule]


def count_more(report: Report, rule: str, count: int) -> None:
    """Count violations of a saturated rule that need no record."""
    report.counts[rule] += count


def _counted_only(report: Report, pos: int, key: str) -> bool:
    """Whether no element at ``pos`` on of the wrong type would be kept."""
    return saturated(report, "SHAPE-ARRAY" if key == "shape" else "OFFSETS-PAIR", pos)


def _numbers_to_locate(report: Report, pos: int, item: list[object]) -> bool:
    """Whether some number in ``item`` breaks a rule that still keeps faults."""
    return any(
        ((type(element) is int and element > U64_MAX) or type(element) is Number)
        and not saturated(report, element_rule(element, ""), pos)
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
    # The array is the third level (header, entry, field), as JSON-DEPTH counts.
    found = _int_array().match(text, pos) if strict_json.MAX_DEPTH >= 3 else None
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


def _plain_members(state: FastScan, seen: set[str], pos: int) -> int:
    """Count a run of plain unknown members at ``pos``.

    Returns minus the position after the run when it was taken; else the
    position from which to try again (the run holds a field or a repeated
    name, so its members go one by one).
    """
    text = state.src.text
    taken = _scalar_members(state, seen, pos)
    if taken is not None:
        return taken
    run = _plain_run().match(text, pos)
    if run is None:
        return pos + 1
    if state.first_only and decided(state.report):
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
    count_more(state.report, "ENTRY-UNKNOWN", len(names))
    return -run.end()


def _scalar_members(state: FastScan, seen: set[str], pos: int) -> int | None:
    """Take the unknown members from ``pos`` to the entry's last at C speed.

    For members whose values are numbers, true, false or null, the common
    hostile shape (millions of them in one entry): the text up to the first
    ``}`` is split at its quotes, so that the names and what lies between
    them come out of string methods, not of a regular expression per
    member.  The pieces between the names repeat (``:0,``), so checking
    each distinct one checks them all.  The last member is left to the
    caller, which ends the object; its name is checked against the others
    here, so that ``seen`` need not hold them.  Returns what _plain_members
    does, or None when the text is anything else (a string value, an
    escape, a nested value, a field), for the regular expressions to take.
    """
    text = state.src.text
    close = -1
    if pos >= state.split_from:
        close = text.find("}", pos)
        # Tried once per stretch of text: a run of members the regular
        # expressions take a chunk at a time is not searched again each time.
        state.split_from = close if close >= 0 else len(text)
    region = text[pos:close] if close > pos and text[pos] == '"' else ""
    if "\\" in region or "{" in region or "[" in region:
        region = ""
    parts = region.split('"')
    # '', then each member's name and what follows it.
    if len(parts) < 5 or not len(parts) & 1:
        return None
    names = parts[1::2]
    if not all(map(_between().fullmatch, set(parts[2:-1:2]))) or _control().search(
        region
    ):
        return None
    if "\t" in region or "\n" in region or "\r" in region:
        joined = "".join(names)
        if "\t" in joined or "\n" in joined or "\r" in joined:
            return None  # whitespace allowed between the tokens, not in a name
    taken = close - len(parts[-1]) - len(parts[-2]) - 2
    if state.first_only and decided(state.report):
        # As in _plain_members: only whether a field hides here.
        return None if FIELDS.intersection(names[:-1]) else -taken
    fresh = set(names)
    if (
        len(fresh) != len(names)
        or not seen.isdisjoint(fresh)
        or FIELDS.intersection(names[:-1])
    ):
        return None
    count_more(state.report, "ENTRY-UNKNOWN", len(names) - 1)
    return -taken


@cache
def _between() -> re.Pattern[str]:
    # From a name's closing quote to the next name's opening one.
    return re.compile(rf"{_W}:{_W}{_SCALAR}{_W},{_W}")


@cache
def _control() -> re.Pattern[str]:
    # Characters no JSON text holds raw, but for its whitespace (allowed
    # between the tokens, not inside a name: checked apart).
    return re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f]")


def _metadata(state: FastScan, pos: int, *, keep: bool) -> int:  # noqa: C901
    """Judge the ``__metadata__`` value at ``pos`` as header.metadata does."""
    src = state.src
    text = src.text
    path = (METADATA_KEY,)
    char = text[pos : pos + 1]
    if char != "{":
        state.in_entry = True  # META-OBJECT/-NULL come first, found after
        end = skip(src, pos, 1, path)
        state.in_entry = False
        return not_metadata(state, pos, end)
    metadata: dict[str, str] = {}
    others: set[str] = set()  # names whose value is not a string
    pos, more = opening(text, pos, "}")
    while more:
        found = _string_pair(src, pos) if state.shortcuts else None
        if found is not None:
            key, item, item_pos, comma, end = found
            if "\\" in key:
                key = string(src, pos)[1]
            if key in metadata or key in others:
                found = None  # the general way reports the repeat
        if found is None:
            pos = metadata_member(state, pos, metadata, others)
            pos, more = next_member(text, pos, "}")
            continue
        check_surrogates(src, key, pos, path)
        check_surrogates(src, item, item_pos, (METADATA_KEY, key))
        metadata[key] = item
        pos = end
        if not comma:
            if text[pos : pos + 1] != "}":
                raise syntax(text, pos, "',' or '}'")
            pos += 1
            break
        if text[pos : pos + 1] == "}":
            raise trailing_comma(pos, "}")
    if keep:
        state.header.metadata = metadata
    return pos


def _string_pair(src: Text, pos: int) -> tuple[str, str, int, str, int] | None:
    """Match a metadata member at ``pos`` whose value is a string, or return None.

    Returns its name as written, its value decoded, where the value is,
    the comma after it (or ''), and where the next member starts.  A value
    the C scanner refuses is left to the general way, which reports it.
    """
    text = src.text
    found = _PAIR.match(text, pos)
    if found is not None:
        name, item, comma = found.groups()
        return name, item, found.start(2) - 1, comma, found.end()
    head = _PAIR_HEAD.match(text, pos)
    if head is None:
        return None
    item_pos = head.end() - 1
    try:
        end, item = string(src, item_pos)
    except JsonStop:
        return None
    after = _AFTER_VALUE.match(text, end)
    if after is None:  # pragma: no cover - every part of it is optional
        return None
    return head.group(1), item, item_pos, after.group(1), after.end()
