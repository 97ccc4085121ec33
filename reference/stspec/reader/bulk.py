"""Runs of compact, sound tensor entries, judged in bulk with loops that run in C.

Writers emit compact JSON (``"name":{"dtype":"BF16","shape":[4096,4096],
"data_offsets":[0,33554432]},``), lay the tensors out in header order, and
repeat a few shapes.  One regular expression splits a chunk of such members
into name, the text from ``:`` to the first offset (dtype and shape: few
distinct ones, each judged once) and the two offsets; the rest are bulk
operations over those columns (``map``, ``dict``, ``accumulate``, list and
array operations), so that no Python bytecode runs per member.  A run is
taken whole or not at all: anything it cannot prove sound is left to the
member-by-member scan, which judges and reports it.
"""

from __future__ import annotations

import re
from array import array
from functools import lru_cache
from itertools import accumulate
from operator import add, itemgetter

from stspec.dtypes import BITS, RANK
from stspec.reader.strict_json import INT, WS
from stspec.rules import U64_MAX

# No typing at run time (start-up cost, see stspec/record.py); mypy reads this as True.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterable, Sequence
    from typing import Final, TypeVar

    from _typeshed import SupportsGetItem

    _K = TypeVar("_K")
    _V = TypeVar("_V")

    from stspec.reader.table import TensorTable

__all__ = ["CHUNK", "MEMBER", "START", "positions", "take"]

# One compact member and the comma after it, loosely: the name, the text
# from ':' to the first offset, and the two offsets.  Only characters that
# end a field are excluded (cheap to match); each field is then proved to be
# what a compact canonical entry holds there.
MEMBER: Final = re.compile(r'"([^"]*+)"(:[^\]]*+\][^\[]*+\[)([^,]*+),([^\]]*+)\]\},')
_STEP: Final = 5  # what split() gives per member: the text before it, 4 groups
_FRAME: Final = len('"",]},')  # a member's characters outside its groups
# What the text between name and offsets must be: dtype and shape.
_TYPE: Final = (
    rf':\{{"dtype":"([A-Z0-9_]++)","shape":\[((?:{INT}(?:,{INT})*+)?)\],'
    r'"data_offsets":\['
)
_TYPE_RE: Final = re.compile(_TYPE)
# A compact member that MEMBER splits as it is (the loose expression may run
# on into the next member when this one is not compact): a run starts here.
START: Final = re.compile(rf'"[^"\\\x00-\x1f]*+"{_TYPE}{INT},{INT}\]\}},')
# What a plain name holds none of (a quote ends it already).
_NOT_IN_NAMES: Final = ("\\", *map(chr, range(32)))
# At most so many characters are split at a time: the fields in hand stay
# few, and a member that must be taken one by one costs at most one chunk
# of members taken one by one after it.
CHUNK: Final = 1 << 15
_METADATA: Final = "__metadata__"


def take(
    text: str, pos: int, table: TensorTable, others: set[str]
) -> tuple[int, int, int]:
    """Add the compact sound entries from ``pos`` on to ``table``.

    ``others`` holds the top-level names that are not in the table.  Return
    where the scan goes on (past the JSON whitespace after the last member
    taken), how many members were taken, and the position before which a
    new attempt would only repeat this one.
    """
    chunk = text[pos : pos + CHUNK]
    retry = pos + len(chunk)
    parts = MEMBER.split(chunk)
    members = len(parts) // _STEP
    gaps = parts[0 : _STEP * members : _STEP]
    if gaps.count("") == members:
        run = members
        after = retry - len(parts[-1])
    else:
        # Up to the first text between two members (its value's first index).
        run = gaps.index(next(filter(None, gaps)))
        after = pos + sum(map(len, parts[: _STEP * run])) + run * _FRAME
    if run == 0:
        return pos, 0, retry
    goes_on = WS.match(text, after).end()  # type: ignore[union-attr]
    if text[goes_on : goes_on + 1] == "}" or not _add(
        parts[: _STEP * run], table, others
    ):
        # A comma before the closing brace, or a member that is not sound.
        return pos, 0, retry
    return goes_on, run, retry if run < members else goes_on


def _add(parts: list[str], table: TensorTable, others: set[str]) -> bool:
    """Check the members whose fields ``parts`` holds; add them if all are sound."""
    index, codes, offsets, dims, starts = table.columns
    fresh = _fresh(parts[1::_STEP], len(codes), index, others)
    if fresh is None:
        return False
    # Each distinct dtype and shape is judged once and numbered; per member
    # there is then one byte, from which every column follows.
    types = parts[2::_STEP]
    kinds = list(set(types))  # (their order only numbers them)
    if len(kinds) > 256:
        return False
    facts = list(map(_facts, kinds))
    if None in facts:
        return False
    ranks, shapes, ndims, sizes = map(list, zip(*facts, strict=True))
    number = dict(zip(kinds, range(len(kinds)), strict=True))
    kind = bytes(_pick(number, types))
    bounds = _bounds(parts[3::_STEP], parts[4::_STEP], _pick(sizes, kind))
    if bounds is None:
        return False
    lows, highs = bounds
    index.update(fresh)
    codes += kind.translate(_table(ranks))
    pairs = array("Q", bytes(16 * len(lows)))
    pairs[::2] = lows
    pairs[1::2] = highs
    offsets += pairs
    dims.frombytes(b"".join(_pick(shapes, kind)))
    starts += array("Q", accumulate(kind.translate(_table(ndims)), initial=starts[-1]))[
        1:
    ]
    return True


def _pick(table: SupportsGetItem[_K, _V], keys: Sequence[_K]) -> tuple[_V, ...]:
    """Look up every key in one C call (a map over ``__getitem__`` costs 3x)."""
    found = itemgetter(*keys)(table)
    # itemgetter of a single key returns its value, not a 1-tuple.
    return found if len(keys) > 1 else (found,)


def _fresh(
    names: list[str], row: int, index: dict[str, int], others: set[str]
) -> dict[str, int] | None:
    """Return plain names not seen before, numbered from ``row`` on, or None."""
    joined = "".join(names)
    if any(map(joined.__contains__, _NOT_IN_NAMES)):
        return None
    fresh = dict(zip(names, range(row, row + len(names)), strict=True))
    if (
        len(fresh) != len(names)
        or _METADATA in fresh
        # (Each iterates over the smaller side: index grows with the file.)
        or not fresh.keys().isdisjoint(index.keys())
        or not fresh.keys().isdisjoint(others)
    ):
        return None
    return fresh


def _bounds(
    begins: list[str], ends: list[str], sizes: Iterable[int]
) -> tuple[array[int], array[int]] | None:
    """Read the offsets; None unless each end is its begin plus the size."""
    # The ends must be written as JSON writes the numbers they stand for.
    written = ",".join(ends) + ","
    # Laid out in header order, as writers do, each tensor begins where the
    # one before ended, and only the first begin is read.  Compared joined (a
    # copy, not a string comparison per tensor): with as many tokens on both
    # sides and no comma in a begin token, equal texts split alike.
    laid_out = ",".join(begins[1:]) + "," == written[: -len(ends[-1]) - 1]
    numbers = _numbers(begins[:1] if laid_out else begins)
    if numbers is None:
        return None
    if laid_out:
        bounds = list(accumulate(sizes, initial=numbers[0]))
        highs = bounds[1:]
    else:
        highs = list(map(add, numbers, sizes))
    # Formatted from the list: an array would box each number again.
    if "%d," * len(highs) % tuple(highs) != written:
        return None
    try:
        if laid_out:
            # One array, sliced in C into the begins and the ends.
            both = array("Q", bounds)
            return both[:-1], both[1:]
        return array("Q", numbers), array("Q", highs)
    except OverflowError:  # an end above 2^64-1
        return None


def _table(values: list[int]) -> bytes:
    """Build the bytes.translate table that takes kind k to values[k]."""
    return bytes(values).ljust(256, b"\0")


# The shards of a model repeat the same few dtype and shape texts, file after
# file: judged once per process (bounded, for headers of distinct shapes).
@lru_cache(maxsize=1024)
def _facts(key: str) -> tuple[int, bytes, int, int] | None:
    """Dtype rank, dimensions, rank and byte size of a sound dtype and shape."""
    found = _TYPE_RE.fullmatch(key)
    if found is None:
        return None
    dtype, shape = found.groups()
    bits = BITS.get(dtype)
    if bits is None:
        return None
    sizes = tuple(map(int, shape.split(","))) if shape else ()
    if len(sizes) > 255 or (sizes and max(sizes) > U64_MAX):
        return None
    if 0 in sizes:
        bits = 0
    # Every dimension but 1 at least doubles the count: at most 64 steps.
    for size in filter((1).__ne__, sizes):
        bits *= size
        if bits > U64_MAX:
            return None
    if bits & 7:
        return None
    return RANK[dtype], array("Q", sizes).tobytes(), len(sizes), bits >> 3


def _numbers(tokens: list[str]) -> list[int] | None:
    """Read integers written as JSON writes them (no sign, no leading 0), or None."""
    if max(map(len, tokens)) > 20:
        return None
    try:
        numbers = list(map(int, tokens))
    except ValueError:
        return None
    if list(map(str, numbers)) != tokens or min(numbers) < 0:
        return None
    return numbers


def positions(text: str, pos: int, members: int) -> array[int]:
    """Where each of ``members`` members taken from ``pos`` has its first offset."""
    found = []
    for _ in range(members):
        member = MEMBER.match(text, pos)
        assert member is not None  # noqa: S101 - taken from this very text
        found.append(member.start(3))
        pos = member.end()
    return array("Q", found)
