"""Every MUST rule a file breaks, each rule statement read on its own.

The corpus's manifest names, for an ``n_`` case, the one rule of its first
precedence group (SPEC §12.1) and, in ``also_breaks``, the rules of later
groups its file breaks when the precedence is ignored.  This module computes
that second list independently of the reference reader: it reads the header
with Python's json (the last of two equal names wins) and evaluates the
statements of the rules that a file can break *besides* its first one.  It
does not re-implement the lexical JSON rules (syntax, depth, surrogates,
number tokens): those are the first finding of whatever breaks them.
"""

from __future__ import annotations

import json
from typing import Final

LIMIT: Final = 100_000_000
U64_MAX: Final = 2**64 - 1
WHITESPACE: Final = " \t\n\r"
# the rules this module evaluates
EVALUATED: Final = frozenset(
    {
        "HEADER-LIMIT",
        "HEADER-BOUNDS",
        "HEADER-UTF8",
        "HEADER-OBJECT",
        "HEADER-TRAILING",
        "ENTRY-OBJECT",
        "ENTRY-FIELDS",
        "DTYPE-NAME",
        "SHAPE-ARRAY",
        "OFFSETS-PAIR",
        "META-OBJECT",
        "META-STRING",
        "SIZE-OVERFLOW",
        "SIZE-BITS",
        "SIZE-MATCH",
        "OFFSETS-ORDER",
        "LAYOUT-BOUNDS",
        "LAYOUT-HOLE",
        "LAYOUT-OVERLAP",
        "LAYOUT-TRAILING",
    }
)


class _Token(int):
    """An integer token of the header text (not a fraction or an exponent)."""

    __slots__ = ()


def _reject_constant(name: str) -> object:
    raise ValueError(name)


def broken_rules(data: bytes, bits: dict[str, int]) -> set[str]:
    """Return the evaluated MUST rules ``data`` breaks, read without precedence."""
    if len(data) < 8:
        return {"FILE-PREFIX"}
    n = int.from_bytes(data[:8], "little")
    found: set[str] = set()
    if n > LIMIT:
        found.add("HEADER-LIMIT")
    if 8 + n > len(data):
        found.add("HEADER-BOUNDS")
    raw = data[8 : 8 + n]
    if n > LIMIT or 8 + n > len(data):
        return found  # no header text to read
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        found.add("HEADER-UTF8")
        text = raw.decode("utf-8", "surrogateescape")
    start = len(text) - len(text.lstrip(WHITESPACE))
    if not text[start:].startswith("{"):
        found.add("HEADER-OBJECT")
        return found
    decoder = json.JSONDecoder(
        object_pairs_hook=dict,
        parse_int=_Token,
        parse_float=float,
        parse_constant=_reject_constant,
    )
    try:
        header, end = decoder.raw_decode(text, start)
    except (ValueError, RecursionError):
        return found  # not JSON: the JSON rules are the reader's first finding
    if text[end:].strip(WHITESPACE):
        found.add("HEADER-TRAILING")
    found |= _value_rules(header, len(data) - 8 - n, bits)
    return found


def _value_rules(
    header: dict[str, object], length: int, bits: dict[str, int]
) -> set[str]:
    found: set[str] = set()
    spans: list[tuple[int, int]] = []
    for name, entry in header.items():
        if name == "__metadata__":
            found |= _metadata_rules(entry)
        elif not isinstance(entry, dict):
            found.add("ENTRY-OBJECT")
        else:
            found |= _entry_rules(entry, length, bits, spans)
    return found | _tiling_rules(spans, length)


def _entry_rules(
    entry: dict[str, object],
    length: int,
    bits: dict[str, int],
    spans: list[tuple[int, int]],
) -> set[str]:
    found: set[str] = set()
    if not {"dtype", "shape", "data_offsets"} <= set(entry):
        found.add("ENTRY-FIELDS")
    dtype, shape, offsets = (
        entry.get("dtype"),
        entry.get("shape"),
        entry.get("data_offsets"),
    )
    known = isinstance(dtype, str) and dtype in bits
    if "dtype" in entry and not known:
        found.add("DTYPE-NAME")
    if "shape" in entry and not _numbers(shape):
        found.add("SHAPE-ARRAY")
    if "data_offsets" in entry and not (_numbers(offsets) and len(offsets) == 2):  # type: ignore[arg-type]
        found.add("OFFSETS-PAIR")
    pair = _integer_pair(offsets)
    if pair is not None:
        spans.append(pair)
        if pair[0] > pair[1]:
            found.add("OFFSETS-ORDER")
        if pair[1] > length:
            found.add("LAYOUT-BOUNDS")
    dims = _integers(shape)
    if dims is not None and known:
        found |= _size_rules(bits[str(dtype)], dims, pair)
    return found


def _size_rules(width: int, dims: list[int], pair: tuple[int, int] | None) -> set[str]:
    count = width
    for dim in dims:
        count *= dim
    # SPEC 7 states the order: each size rule applies when those before hold
    if count > U64_MAX:
        return {"SIZE-OVERFLOW"}
    if count % 8:
        return {"SIZE-BITS"}
    if pair is not None and pair[1] - pair[0] != count // 8:
        return {"SIZE-MATCH"}
    return set()


def _metadata_rules(value: object) -> set[str]:
    if value is None:
        return set()  # META-NULL, a MAY rule
    if not isinstance(value, dict):
        return {"META-OBJECT"}
    if any(not isinstance(item, str) for item in value.values()):
        return {"META-STRING"}
    return set()


def _numbers(value: object) -> bool:
    return isinstance(value, list) and all(
        isinstance(item, int | float) and not isinstance(item, bool) for item in value
    )


def _integers(value: object) -> list[int] | None:
    if not isinstance(value, list) or not all(
        isinstance(item, _Token) and 0 <= item <= U64_MAX for item in value
    ):
        return None
    return [int(item) for item in value]


def _integer_pair(value: object) -> tuple[int, int] | None:
    dims = _integers(value)
    if dims is None or len(dims) != 2:
        return None
    return dims[0], dims[1]


def _tiling_rules(spans: list[tuple[int, int]], length: int) -> set[str]:
    """LAYOUT-HOLE and -OVERLAP against the predecessor, -TRAILING against all."""
    found: set[str] = set()
    previous_end = 0
    for begin, end in sorted(spans):
        if begin > previous_end:
            found.add("LAYOUT-HOLE")
        elif begin < previous_end:
            found.add("LAYOUT-OVERLAP")
        previous_end = end
    # "cover the byte buffer to its last byte": a reversed pair covers nothing
    covered = max((end for begin, end in spans if begin < end), default=0)
    if covered < length:
        found.add("LAYOUT-TRAILING")
    return found
