"""Family `arith`: exact size arithmetic, overflow, and zero dimensions."""

from __future__ import annotations

from stspec.rules import U64_MAX
from stspec_corpus._model import Case, Expected, T, assemble, entry, make, obj

_M = U64_MAX


def _file(dtype: str, shape: list[int], begin: int = 0, end: int = 0) -> bytes:
    return assemble(obj([("a", entry(dtype, shape, begin, end))]), bytes(end - begin))


def cases() -> list[Case]:
    """Return the family's cases."""
    overflow: list[tuple[str, str, list[int], str]] = [
        ("2pow32_x_2pow32_f32", "F32", [2**32, 2**32], "2^64 elements"),
        ("2pow63_x_2_u8", "U8", [2**63, 2], "2^64 elements"),
        ("2_x_2pow63_u8", "U8", [2, 2**63], "2^64 elements, the other order"),
        ("u64max_x_u64max", "U8", [_M, _M], "(2^64-1)^2 elements"),
        ("bits_only_u8_2pow61", "U8", [2**61], "2^61 elements fit, 2^64 bits do not"),
        ("bits_only_f4_2pow62", "F4", [2**62], "2^62 elements of 4 bits: 2^64 bits"),
        ("bits_only_c64_2pow58", "C64", [2**58], "2^58 elements of 64 bits: 2^64 bits"),
        (
            "bits_only_f6_e3m2",
            "F6_E3M2",
            [2**63 // 3 + 1],
            "(2^63/3+1) x 6 bits > 2^64-1",
        ),
        ("65_dims_of_2", "U8", [2] * 65, "65 dimensions of 2: 2^65 elements"),
        ("huge_then_2", "BOOL", [2**62, 2, 2], "2^64 elements over three dimensions"),
    ]
    out = [
        make(
            f"n_arith_overflow_{fault}",
            ["SIZE-OVERFLOW"],
            f"{dtype}{shape if len(shape) < 5 else '[2]*65'}: {what}, "
            "above 2^64-1 bits",
            data=_file(dtype, shape),
            tags=["security"],
        )
        for fault, dtype, shape, what in overflow
    ]
    out.append(
        make(
            "n_arith_no_overflow_u8_2pow61_minus_1",
            ["SIZE-MATCH"],
            "U8[2^61-1]: 2^64-8 bits fit in u64, but the range [0,0] holds 0 bytes",
            data=_file("U8", [2**61 - 1]),
            tags=["security"],
        )
    )
    zero: list[tuple[str, list[int], str]] = [
        ("zero_first", [0, _M, _M], "F64[0, M, M]: the zero comes first"),
        ("zero_last", [_M, _M, 0], "F64[M, M, 0]: a left fold overflows first"),
        ("zero_between", [_M, 0, _M], "F64[M, 0, M]: the zero sits between"),
        ("zero_beside_2pow32", [2**32, 2**32, 0], "F64[2^32, 2^32, 0]"),
    ]
    for fault, shape, what in zero:
        t = T("a", "F64", tuple(shape), b"", ())
        out.append(
            make(
                f"y_arith_{fault}",
                ["SIZE-OVERFLOW", "NUM-RANGE"],
                f"{what} (M = 2^64-1): a zero dimension makes the tensor empty",
                data=_file("F64", shape),
                expected=Expected(None, {"a": t.expected()}),
                tags=["security"],
            )
        )
    return out
