"""Cases reproducing public reports of bugs in other safetensors readers.

Each case names its report in its provenance and its description.  Three sit
at the edge of u64 arithmetic on offsets; two are the exploit pairs of their
reports, files that break two MUST rules of one precedence group at once
(``x_`` cases, judged on rejection alone).
"""

from __future__ import annotations

from typing import Final

from stspec.rules import U64_MAX
from stspec_corpus._model import Case, assemble, bug, entry, make, obj

_U64: Final = U64_MAX + 1
_DIM: Final = 2**61 - 1  # U8[2^61-1] is the largest size that does not overflow


def _begin_wraps_to_prefix() -> bytes:
    """U8[4] at begin = 2^64 - 8 - N: 8 + N + begin is 0 in u64, the prefix.

    N depends on the digits of begin and begin on N, so iterate to the fixed
    point (two rounds at most: the digit count settles at once).
    """
    length = 0
    for _ in range(8):
        begin = _U64 - 8 - length
        data = assemble(obj([("t", entry("U8", [4], begin, begin + 4))]))
        found = int.from_bytes(data[:8], "little")
        if found == length:
            return data
        length = found
    raise AssertionError("the header length has no fixed point")  # pragma: no cover


def cases() -> list[Case]:
    """Return the cases of the reports."""
    near_end = [
        (f"t{i}", entry("U8", [_DIM], i * _DIM, (i + 1) * _DIM)) for i in range(8)
    ]
    return [
        make(
            "n_layout_bounds_begin_negative_as_i64",
            ["LAYOUT-BOUNDS"],
            "F32[1] at [2^64-16, 2^64-12]: begin is -16 as an int64 "
            "(gomlx/go-huggingface#57)",
            data=assemble(
                obj([("t", entry("F32", [1], _U64 - 16, _U64 - 12))]),
                b"\x00\x00\x80\x3f",
            ),
            tags=["security"],
            provenance=bug("gomlx/go-huggingface#57"),
            also_breaks=["LAYOUT-HOLE"],
        ),
        make(
            "n_layout_bounds_begin_wraps_to_prefix",
            ["LAYOUT-BOUNDS"],
            "U8[4] at 2^64-8-N: 8+N+begin wraps to 0, the length prefix "
            "(tensorflow/tensorflow#116632)",
            data=_begin_wraps_to_prefix(),
            tags=["security"],
            provenance=bug("tensorflow/tensorflow#116632"),
            also_breaks=["LAYOUT-HOLE"],
        ),
        make(
            "n_layout_bounds_end_near_u64_max",
            ["LAYOUT-BOUNDS"],
            "8 x U8[2^61-1]: the last ends at 2^64-8, 8+N+end overflows "
            "(huggingface/safetensors#808)",
            data=assemble(obj(near_end)),
            tags=["security"],
            provenance=bug("huggingface/safetensors#808"),
        ),
        make(
            "x_arith_zero_wrap_offsets_past_end",
            ["LAYOUT-BOUNDS", "SIZE-OVERFLOW"],
            "F32[2^32,2^32] (0 bytes if wrapped) at [0,2^40] of an empty buffer "
            "(google-ai-edge/LiteRT#9254)",
            data=assemble(obj([("t", entry("F32", [2**32, 2**32], 0, 2**40))])),
            tags=["security"],
            provenance=bug("google-ai-edge/LiteRT#9254"),
        ),
        make(
            "x_dtype_unknown_offsets_past_end",
            ["DTYPE-NAME", "LAYOUT-BOUNDS"],
            'dtype "Q4_K" (unknown) at [0, 2^40] of an empty buffer (kekzl/imp#1603)',
            data=assemble(obj([("t", entry("Q4_K", [16], 0, 2**40))])),
            tags=["security"],
            provenance=bug("kekzl/imp#1603"),
        ),
    ]
