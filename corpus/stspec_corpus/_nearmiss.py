"""Cases that tell a correct reader from its nearest broken variants.

Each group answers one shortcut that real readers take and that no other case
catches: reading 32 bits of the length, checking a few bytes after the
object, forgiving a file rounded up to a multiple of 8, skipping the trailing
check for big files, sizing a packed scalar as nothing, and keeping at most
eight dimensions.  (Reversed empty pairs at the cursor are drawn by the
suite's single-fault generator.)
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Final

from stspec_corpus._large import aligned, recipe
from stspec_corpus._model import (
    Case,
    assemble,
    build,
    entry,
    make,
    obj,
    pattern,
    tensor,
)

if TYPE_CHECKING:
    from stspec_corpus._recipes import Params

_SMALL: Final = build([tensor("a", "F32", [2], [1.5, -2.0])])
_MIB: Final = 1 << 20


def _prefix() -> list[Case]:
    n = int.from_bytes(_SMALL.data[:8], "little")
    return [
        make(
            "n_prefix_n_2pow32_plus_header",
            ["HEADER-LIMIT"],
            f"a valid file with 2^32 added to its N = {n}: the low 32 bits are right",
            data=(2**32 + n).to_bytes(8, "little") + _SMALL.data[8:],
            tags=["security"],
            also_breaks=["HEADER-BOUNDS"],
        )
    ]


def _text() -> list[Case]:
    header = obj([("a", entry("F32", [2], 0, 8))]).encode()
    out = []
    for spaces in (14, 4094):
        text = header + b" " * spaces + b"x"
        out.append(
            make(
                f"n_text_trailing_junk_after_{spaces}_spaces",
                ["HEADER-TRAILING"],
                f"the byte 'x' after {spaces} bytes of 0x20 padding after the object",
                data=assemble(text, _SMALL.data[-8:]),
            )
        )
    return out


def _trailing() -> list[Case]:
    out = []
    for zeros in (1, 4, 7):
        size = 8 - zeros
        header = obj([("a", entry("U8", [size], 0, size))])
        out.append(
            make(
                f"n_layout_trailing_{zeros}_zeros_to_multiple_of_8",
                ["LAYOUT-TRAILING"],
                f"U8[{size}] then {zeros} zero bytes: the file length is a "
                "multiple of 8",
                data=assemble(header, pattern(size, zeros) + bytes(zeros)),
            )
        )
    return out


def plans() -> dict[str, tuple[str, Params]]:
    """Return the recipe case's recipe name and parameters, by id (nothing runs)."""
    header = aligned(obj([("a", entry("U8", [2 * _MIB], 0, 2 * _MIB))]))
    params = {"header": header, "buffer_length": 2 * _MIB + 8, "tail": "01" * 8}
    return {"n_layout_trailing_after_2mib_tensor": ("sparse", params)}


def _large_trailing() -> Case:
    return make(
        "n_layout_trailing_after_2mib_tensor",
        ["LAYOUT-TRAILING"],
        "a 2 MiB U8 tensor, then 8 bytes 0x01 no tensor covers (sparse file)",
        recipe=recipe(*plans()["n_layout_trailing_after_2mib_tensor"]),
        dtypes=["U8"],
    )


def _sub_byte_scalars() -> list[Case]:
    return [
        make(
            f"n_dtype_bits_{dtype.lower()}_rank0_empty_range",
            ["SIZE-BITS"],
            f"{dtype} rank 0 at [0,0]: {bits} bits, not a whole byte and not none",
            data=assemble(obj([("a", entry(dtype, [], 0, 0))])),
        )
        for dtype, bits in (("F4", 4), ("F6_E2M3", 6), ("F6_E3M2", 6))
    ]


def _high_rank() -> list[Case]:
    out = []
    for rank in (9, 33):
        shape = [1] * (rank - 1) + [3]
        built = build([tensor("a", "F32", shape, [1.0, 2.0, 3.0])])
        out.append(
            make(
                f"y_structure_shape_rank_{rank}",
                ["SHAPE-ARRAY"],
                f"a shape of {rank} dimensions, all 1 but the last, 3",
                data=built.data,
                expected=built.expected,
            )
        )
    ninth = [1] * 8 + [2]
    out.append(
        make(
            "n_layout_size_match_ninth_dim",
            ["SIZE-MATCH"],
            "U8[1,1,1,1,1,1,1,1,2] given 1 byte: the ninth dimension makes it 2",
            data=assemble(obj([("a", entry("U8", ninth, 0, 1))]), b"\x07"),
        )
    )
    return out


def cases() -> list[Case]:
    """Return the near-miss cases."""
    return [
        *_prefix(),
        *_text(),
        *_trailing(),
        _large_trailing(),
        *_sub_byte_scalars(),
        *_high_rank(),
    ]
