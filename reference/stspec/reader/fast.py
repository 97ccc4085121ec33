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

from functools import partial
from math import prod

from stspec.dtypes import BITS, RANK
from stspec.reader.first import Settled, decided, parse_fault, rest, settles
from stspec.reader.header import (
    METADATA_KEY,
    dtype_fault,
    finish,
    member,
    repeated_name,
    too_big,
)
from stspec.reader.members import (
    FastHeader,
    FastScan,
    count_more,
    load_bulk,
)
from stspec.reader.recognise import (
    CANONICAL,
    over_u64,
    reordered,
)
from stspec.reader.strict_json import (
    Text,
    check_surrogates,
    opening,
    string,
    syntax,
    trailing_comma,
)
from stspec.rules import U64_MAX

# No typing at run time (start-up cost, see stspec/record.py); mypy reads this as True.
TYPE_CHECKING = False
if TYPE_CHECKING:
    import re
    from typing import Final

    from stspec.reader.report import Report


__all__ = ["FastHeader", "FastScan", "Settled", "scan"]


_SHAPES_KEPT: Final = 1024
# A member whose name, dtype and shape take more characters than this is
# left to _scan: a shape of millions of dimensions is then judged where it
# lies in the text instead of being copied out of it.
_LONG_HEAD: Final = 4096


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
        src.fault = partial(parse_fault, state.first)
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
    match = CANONICAL.match if state.shortcuts else None
    bits_of = BITS.get
    pos, more = opening(text, start, "}")
    while more:
        if match is None:
            found = None
        else:
            # Runs of plain sound entries go the short way.  read() never
            # comes here with its first violation decided: wherever one is
            # recorded, first.settles ends the loop, unless a tensor ends
            # past the buffer, and then the rest needs judging in full.
            pos, found = _sound_run(state, pos)
        escaped = False
        if found is not None:
            name, dtype, begin_token, end_token, comma = found.group(1, 2, 4, 5, 6)
            shape_at, shape_end = found.span(3)
            if "\\" in name:
                name = string(src, pos)[1]
                escaped = True
        if found is None or name == METADATA_KEY:
            pos, more = member(state, pos)
            if first_only and decided(report) and settles(state.first):
                if more:
                    pos = _rest(state, pos)
                break
            continue
        bits = bits_of(dtype)
        shape_ok = True
        if shape_end > shape_at:
            if shape_end - shape_at >= 20 and over_u64().search(
                text, shape_at, shape_end
            ):
                shape_ok = False
                sizes = []
            else:
                sizes = list(map(int, text[shape_at:shape_end].split(",")))
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
            if first_only and decided(report) and settles(state.first):
                pos = _rest(state, pos)
                break
        elif text[pos : pos + 1] == "}":
            pos += 1
            more = False
        else:
            raise syntax(text, pos, "',' or '}'")
    header.end = pos
    return header


def _sound_run(  # noqa: C901, PLR0915 - the hot loop, kept in one piece
    state: FastScan, pos: int
) -> tuple[int, re.Match[str] | None]:
    """Take the members from ``pos`` on that need no more than a table row.

    Runs of compact members go in bulk (see load_bulk).  Else, a canonical entry
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
    match = CANONICAL.match
    bulk_from = state.bulk_from
    bits_of = BITS.get
    # Models repeat a few shapes; converting one costs more than the rest
    # of the entry.  Bounded, so that a header of distinct shapes costs no
    # more memory than the table it fills.
    shapes: dict[str, tuple[tuple[int, ...], int]] = {}
    while True:
        # A member longer than a chunk is never taken in bulk: the pattern
        # need not read all of a huge one to say so.
        if (
            pos >= bulk_from
            and load_bulk().START.match(text, pos, pos + load_bulk().CHUNK) is not None
        ):
            pos, taken, bulk_from = _take(state, pos)
            if taken:
                continue
        found = match(text, pos)
        if found is not None:
            at, after = found.start(4), found.end()
            if at - pos > _LONG_HEAD:
                break
            name, dtype, shape, begin, end, comma = found.groups()
        else:
            # Fields in another order or spelt with escapes: taken here when
            # sound, else left to _scan's general way (found stays None).
            other = reordered(text, pos)
            if other is None:
                break
            (name, dtype, shape, begin, end, comma), at, after = other
        if pos >= bulk_from:
            # Canonical but not compact (or the last member): try the bulk
            # way again only a chunk further on.
            bulk_from = pos + load_bulk().CHUNK
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
        # TensorTable.add inline (as in recognise._table): a Python call per
        # tensor is what this loop exists to avoid.
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


def _take(state: FastScan, pos: int) -> tuple[int, int, int]:
    """Take a run of compact entries in bulk; return what load_bulk.take does."""
    header = state.header
    text = state.src.text
    row = len(header.table)
    after, taken, retry = load_bulk().take(text, pos, header.table, state.others)
    if taken:
        # Their positions are found again only if asked for (see Header).
        header.where_kept.frombytes(bytes(8 * taken))
        header.bulk_runs.append((text, row, taken, pos))
    return after, taken, retry


def _rest(state: FastScan, pos: int) -> int:
    """Check only the syntax of the members from ``pos`` on (see first.rest)."""
    src = state.src
    return rest(src, pos, CANONICAL if state.shortcuts else None)


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
    over = over_u64().finditer(text, start, end)
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
