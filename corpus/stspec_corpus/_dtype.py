"""Family `dtype`: every dtype with known values, names, sub-byte bit counts."""

from __future__ import annotations

import math
from typing import Final

from stspec_corpus._model import (
    Case,
    T,
    all_dtype_names,
    assemble,
    build,
    entry,
    make,
    obj,
    raw,
    tensor,
)
from stspec_corpus._values import Value, f16, f32

_INF: Final = math.inf
_NAN: Final = math.nan

# Values per dtype: zeros of both signs, ones, the extremes (largest finite,
# smallest normal, smallest subnormal) and the specials a format has.
VALUES: Final[dict[str, tuple[list[int], list[Value], str]]] = {
    "BOOL": (
        [4],
        [True, False, True, True],
        "true false true true (bytes 01 00 01 01)",
    ),
    "U8": ([5], [0, 1, 127, 128, 255], "0, 1, 127, 128, 255"),
    "I8": ([5], [-128, -1, 0, 1, 127], "-128 .. 127"),
    "I16": ([5], [-32768, -1, 0, 1, 32767], "-32768 .. 32767"),
    "U16": ([5], [0, 1, 255, 256, 65535], "0 .. 65535"),
    "I32": (
        [2, 3],
        [-(2**31), -1, 0, 1, 256, 2**31 - 1],
        "-2^31 .. 2^31-1 as a 2x3 matrix",
    ),
    "U32": ([4], [0, 1, 65536, 2**32 - 1], "0 .. 2^32-1"),
    "I64": ([4], [-(2**63), -1, 1, 2**63 - 1], "-2^63 .. 2^63-1"),
    "U64": ([4], [0, 1, 2**53 + 1, 2**64 - 1], "0, 1, 2^53+1 (not a double), 2^64-1"),
    "F16": (
        [11],
        [
            0.0,
            -0.0,
            1.0,
            -2.0,
            65504.0,
            2.0**-14,
            2.0**-24,
            _INF,
            -_INF,
            _NAN,
            f16(1 / 3),
        ],
        "0, -0, 1, -2, max 65504, min normal 2^-14, min subnormal 2^-24, ±inf, nan",
    ),
    "BF16": (
        [11],
        [
            0.0,
            -0.0,
            1.0,
            -2.0,
            (2 - 2.0**-7) * 2.0**127,
            2.0**-126,
            2.0**-133,
            _INF,
            -_INF,
            _NAN,
            0.333984375,
        ],
        "0, -0, 1, -2, max, min normal 2^-126, min subnormal 2^-133, inf, -inf, nan",
    ),
    "F32": (
        [11],
        [
            0.0,
            -0.0,
            1.5,
            -2.0,
            (2 - 2.0**-23) * 2.0**127,
            2.0**-126,
            2.0**-149,
            _INF,
            -_INF,
            _NAN,
            f32(0.1),
        ],
        "0, -0, 1.5, -2, max, min normal, min subnormal 2^-149, inf, -inf, nan, 0.1f",
    ),
    "F64": (
        [10],
        [
            0.0,
            -0.0,
            0.1,
            -2.0,
            1.7976931348623157e308,
            2.0**-1022,
            5e-324,
            _INF,
            -_INF,
            _NAN,
        ],
        "0, -0, 0.1, -2, max, min normal, min subnormal 5e-324, inf, -inf, nan",
    ),
    "C64": (
        [2, 2],
        [
            complex(1.5, -2.0),
            complex(0.0, -0.0),
            complex(_INF, _NAN),
            complex(f32(0.1), 1.0),
        ],
        "complex pairs (1.5,-2), (0,-0), (inf,nan), (0.1f,1) as a 2x2 matrix",
    ),
    "F8_E5M2": (
        [10],
        [0.0, -0.0, 1.0, -1.5, 57344.0, 2.0**-14, 2.0**-16, _INF, -_INF, _NAN],
        "0, -0, 1, -1.5, max 57344, min normal 2^-14, min subnormal 2^-16, ±inf, nan",
    ),
    "F8_E4M3": (
        [8],
        [0.0, -0.0, 1.0, -1.5, 448.0, 2.0**-6, 2.0**-9, _NAN],
        "0, -0, 1, -1.5, max 448, min normal 2^-6, min subnormal 2^-9, nan (0x7F)",
    ),
    "F8_E8M0": (
        [6],
        [1.0, 0.5, 2.0, 2.0**-127, 2.0**127, _NAN],
        "powers of two: 1, 0.5, 2, min 2^-127 (0x00), max 2^127 (0xFE), nan (0xFF)",
    ),
    "F8_E4M3FNUZ": (
        [7],
        [0.0, 1.0, -1.5, 240.0, 2.0**-7, 2.0**-10, _NAN],
        "0, 1, -1.5, max 240, min normal 2^-7, min subnormal 2^-10, nan (0x80)",
    ),
    "F8_E5M2FNUZ": (
        [7],
        [0.0, 1.0, -1.5, 57344.0, 2.0**-15, 2.0**-17, _NAN],
        "0, 1, -1.5, max 57344, min normal 2^-15, min subnormal 2^-17, nan (0x80)",
    ),
    "F4": (
        [16],
        [
            0.0,
            0.5,
            1.0,
            1.5,
            2.0,
            3.0,
            4.0,
            6.0,
            -0.0,
            -0.5,
            -1.0,
            -1.5,
            -2.0,
            -3.0,
            -4.0,
            -6.0,
        ],
        "all 16 E2M1 codes in order 0..15: 0, 0.5 .. 6, -0, -0.5 .. -6 (8 bytes)",
    ),
    "F6_E2M3": (
        [8],
        [0.0, -0.0, 0.125, 1.0, 7.5, -7.5, 1.875, 0.875],
        "0, -0, min subnormal 0.125, 1, max 7.5, -7.5, 1.875, 0.875 (6 bytes)",
    ),
    "F6_E3M2": (
        [8],
        [0.0, -0.0, 0.0625, 0.25, 1.0, 28.0, -28.0, 3.0],
        "0, -0, min subnormal 0.0625, min normal 0.25, 1, max 28, -28, 3 (6 bytes)",
    ),
}


def _each_dtype() -> list[Case]:
    out = []
    for name in all_dtype_names():
        shape, values, what = VALUES[name]
        built = build([tensor("t", name, shape, values)])
        out.append(
            make(
                f"y_dtype_{name.lower()}_values",
                ["DTYPE-NAME", "SIZE-MATCH"],
                f"{name}{shape}: {what}",
                data=built.data,
                expected=built.expected,
            )
        )
    every = [
        tensor(name.lower(), name, VALUES[name][0], VALUES[name][1])
        for name in all_dtype_names()
    ]
    built = build(every, {"format": "stspec-corpus"})
    out.append(
        make(
            "y_dtype_all_22_canonical",
            ["DTYPE-NAME", "LAYOUT-HOLE"],
            "all 22 dtypes in one file, in the canonical writer order and layout",
            data=built.data,
            expected=built.expected,
        )
    )
    return out


def _raw_values() -> list[Case]:
    flag = raw("b", "BOOL", [3], b"\x00\x01\x02")
    flags = build([flag])
    payloads = tensor("n", "F32", [2], [_NAN, _NAN])
    nan_bytes = bytes.fromhex("0000a07f0100c0ff")  # a signalling NaN, a payload
    odd = build([T("n", "F32", (2,), nan_bytes, payloads.values)])
    return [
        make(
            "y_dtype_bool_byte_2",
            ["DTYPE-NAME", "SIZE-MATCH"],
            "BOOL[3] holding the bytes 00 01 02: element values are never checked",
            data=flags.data,
            expected=flags.expected,
        ),
        make(
            "y_dtype_f32_nan_payloads",
            ["DTYPE-NAME", "SIZE-MATCH"],
            "F32[2]: a signalling NaN 7FA00000 and a negative NaN FFC00001 (payload 1)",
            data=odd.data,
            expected=odd.expected,
        ),
    ]


def _names() -> list[Case]:
    bad: list[tuple[str, str, str]] = [
        ("unknown_f128", '"F128"', '"F128" (in no version)'),
        ("unknown_c128", '"C128"', '"C128" (in no version)'),
        ("lower_case", '"f32"', '"f32" (names are case-sensitive)'),
        ("mixed_case", '"Bf16"', '"Bf16"'),
        ("framework_name", '"float32"', '"float32" (a framework name)'),
        (
            "torch_fp8_name",
            '"F8_E4M3FN"',
            '"F8_E4M3FN" (the torch spelling of F8_E4M3)',
        ),
        ("trailing_space", '"F32 "', '"F32 " (a trailing space)'),
        ("empty_string", '""', "the empty string"),
        ("map_form", '{"F32":null}', '{"F32": null} (serde accepts this enum form)'),
        ("number", "32", "the number 32"),
        ("null", "null", "null"),
        ("array", '["F32"]', 'the array ["F32"]'),
    ]
    return [
        make(
            f"n_dtype_name_{fault}",
            ["DTYPE-NAME"],
            f"the dtype is {what}",
            data=assemble(
                '{"a":{"dtype":' + value + ',"shape":[1],"data_offsets":[0,4]}}',
                bytes(4),
            ),
        )
        for fault, value, what in bad
    ]


def _sub_byte() -> list[Case]:
    bad: list[tuple[str, str, list[int], int, str]] = [
        ("f4_odd_count", "F4", [3], 2, "F4[3]: 12 bits, rounded up to 2 bytes"),
        ("f4_rank0", "F4", [], 1, "F4 rank 0: one element, 4 bits, given 1 byte"),
        (
            "f4_shape_3x1",
            "F4",
            [3, 1],
            2,
            "F4[3,1]: 3 elements, 12 bits, given 2 bytes",
        ),
        ("f6_e2m3_count_2", "F6_E2M3", [2], 2, "F6_E2M3[2]: 12 bits, given 2 bytes"),
        ("f6_e3m2_count_5", "F6_E3M2", [5], 4, "F6_E3M2[5]: 30 bits, given 4 bytes"),
        ("f6_e2m3_rank0", "F6_E2M3", [], 1, "F6_E2M3 rank 0: 6 bits, given 1 byte"),
    ]
    out = [
        make(
            f"n_dtype_bits_{fault}",
            ["SIZE-BITS"],
            f"{what}: the bit count is not a multiple of 8",
            data=assemble(obj([("a", entry(dtype, shape, 0, nbytes))]), bytes(nbytes)),
        )
        for fault, dtype, shape, nbytes, what in bad
    ]
    good: list[tuple[str, T, str]] = [
        (
            "f4_count_2",
            tensor("a", "F4", [2], [1.0, -6.0]),
            "F4[2]: one byte, 1 then -6",
        ),
        (
            "f4_shape_2x3",
            tensor("a", "F4", [2, 3], [0.5, 1.0, 1.5, 2.0, 3.0, 4.0]),
            "F4[2,3]: odd last dimension, even element count (3 bytes)",
        ),
        (
            "f6_e3m2_count_4",
            tensor("a", "F6_E3M2", [4], [1.0, 2.0, 0.25, -28.0]),
            "F6_E3M2[4]: 24 bits, 3 bytes",
        ),
        (
            "f6_e2m3_shape_4x1",
            tensor("a", "F6_E2M3", [4, 1], [7.5, -0.125, 1.0, 0.0]),
            "F6_E2M3[4,1]: 24 bits, 3 bytes",
        ),
        ("f4_empty", tensor("a", "F4", [0], []), "F4[0]: an empty sub-byte tensor"),
        ("f6_e2m3_empty", tensor("a", "F6_E2M3", [3, 0], []), "F6_E2M3[3,0]: empty"),
        ("f6_e3m2_empty", tensor("a", "F6_E3M2", [0, 5], []), "F6_E3M2[0,5]: empty"),
    ]
    for fault, t, what in good:
        built = build([t])
        out.append(
            make(
                f"y_dtype_bits_{fault}",
                ["SIZE-BITS", "SIZE-MATCH"],
                what,
                data=built.data,
                expected=built.expected,
            )
        )
    pair = build(
        [
            tensor("a", "F4", [4], [1.0, 2.0, 3.0, 4.0]),
            tensor("b", "F6_E2M3", [4], [1.0, 2.0, 3.0, 4.0]),
            tensor("c", "U8", [1], [9]),
        ]
    )
    out.append(
        make(
            "y_dtype_bits_sub_byte_neighbours",
            ["SIZE-BITS", "LAYOUT-HOLE"],
            "F4[4] (2 bytes) and F6_E2M3[4] (3 bytes) packed next to a U8",
            data=pair.data,
            expected=pair.expected,
        )
    )
    return out


def _f8_sizes() -> list[Case]:
    # A reader that takes an 8-bit float for a 16-bit one (or has no width for
    # it) accepts the bytes of F16[4] for F8[4]: one size case per F8 dtype.
    return [
        make(
            f"n_dtype_size_{dtype.lower()}_as_f16",
            ["SIZE-MATCH"],
            f"{dtype}[4] (4 bytes) given the 8 bytes of F16[4]",
            data=assemble(obj([("a", entry(dtype, [4], 0, 8))]), bytes(range(8))),
        )
        for dtype in all_dtype_names()
        if dtype.startswith("F8_")
    ]


def cases() -> list[Case]:
    """Return the family's cases."""
    return [*_each_dtype(), *_raw_values(), *_names(), *_sub_byte(), *_f8_sizes()]
