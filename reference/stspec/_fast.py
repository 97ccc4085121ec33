"""The fast path: accept a clean file at C speed, or decline to judge it.

Python's C JSON decoder is lenient where the spec is strict, so this module
only ever answers "valid" or "ask the strict path"; it never reports a
violation itself.  Everything it accepts, the strict path accepts too (the
tests and the fuzzers hold the two to that).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import TYPE_CHECKING, Final

from stspec._dtypes import BITS, RANK
from stspec._header import FIELDS, METADATA_KEY, TensorTable
from stspec._json import Number
from stspec._rules import U64_MAX

if TYPE_CHECKING:
    from collections.abc import Sequence


class _Decline(Exception):  # noqa: N818 - internal signal, never escapes
    pass


def _no_constants(_name: str) -> object:
    raise _Decline


# Objects decode to tuples of (name, value) pairs: cheaper than dicts, and no
# repeated name can vanish before it is looked at.
_DECODER: Final = json.JSONDecoder(
    object_pairs_hook=tuple, parse_float=Number, parse_constant=_no_constants
)


@dataclass(frozen=True, slots=True)
class Accepted:
    """A header the fast path found valid, and where its object ends."""

    metadata: dict[str, str] | None
    tensors: TensorTable
    end: int


def accept(text: str, start: int, buffer_length: int) -> Accepted | None:
    """Return the valid header whose object starts at ``text[start]``, or None.

    ``text`` must already be free of surrogate escapes and of the integer
    token ``-0``, which the C decoder cannot tell apart from their look-alikes.
    What follows the object is the caller's to judge.
    """
    try:
        members, end = _DECODER.raw_decode(text, start)
        metadata, tensors = _accept_members(members, buffer_length)
    except (ValueError, RecursionError, _Decline):
        return None
    return Accepted(metadata, tensors, end)


def _accept_members(  # noqa: C901, PLR0912
    members: tuple[tuple[str, object], ...], buffer_length: int
) -> tuple[dict[str, str] | None, TensorTable]:
    metadata: dict[str, str] | None = None
    table = TensorTable()
    # The table's arrays are filled directly: a method call per field would
    # cost as much as the rest of the loop.
    index, codes, offsets_out, dims, starts = table.columns
    cursor = 0
    in_order = True
    for name, entry in members:
        if name == METADATA_KEY:
            if metadata is not None or type(entry) is not tuple:
                raise _Decline
            metadata = dict(entry)
            if len(metadata) != len(entry):
                raise _Decline
            for value in metadata.values():
                if type(value) is not str:
                    raise _Decline
            continue
        if type(entry) is not tuple or len(entry) != 3:
            raise _Decline
        (key0, dtype), (key1, shape), (key2, offsets) = entry
        if key0 != "dtype" or key1 != "shape" or key2 != "data_offsets":
            fields = dict(entry)
            if fields.keys() != FIELDS:
                raise _Decline
            dtype, shape, offsets = (
                fields["dtype"],
                fields["shape"],
                fields["data_offsets"],
            )
        if (
            type(dtype) is not str
            or type(shape) is not list
            or type(offsets) is not list
        ):
            raise _Decline
        bits = BITS.get(dtype)
        if bits is None or len(offsets) != 2:
            raise _Decline
        begin, end = offsets
        if type(begin) is not int or type(end) is not int or not 0 <= begin <= end:
            raise _Decline
        for dim in shape:
            if type(dim) is not int or not 0 <= dim <= U64_MAX:
                raise _Decline
            bits *= dim
            if bits > U64_MAX:
                # Possibly still valid (a later zero dimension): the strict
                # path decides, and the product never grows without bound.
                raise _Decline
        if bits & 7 or bits >> 3 != end - begin:
            raise _Decline
        if begin != cursor:
            in_order = False
        cursor = end
        index[name] = len(codes)
        codes.append(RANK[dtype])
        offsets_out.extend(offsets)
        dims.extend(shape)
        starts.append(len(dims))
    if len(index) + (metadata is not None) != len(members):
        raise _Decline  # a repeated tensor name
    if not (
        (in_order and cursor == buffer_length) or _tiles(offsets_out, buffer_length)
    ):
        raise _Decline
    return metadata, table


def _tiles(offsets: Sequence[int], buffer_length: int) -> bool:
    """Whether the (begin, end) ranges, sorted, cover the buffer exactly."""
    cursor = 0
    for begin, end in sorted(zip(offsets[::2], offsets[1::2], strict=True)):
        if begin != cursor:
            return False
        cursor = end
    return cursor == buffer_length
