"""Element encoders: the generator's own model of every dtype's bytes.

Tensor bytes are always built *from* element values chosen by the generator,
never the other way round, so the manifest's expected values are known without
decoding anything.  Each encoder checks that the value is exactly representable
(no rounding): the bytes decode back to precisely the value the manifest lists.

Float formats narrower than 16 bits are described by `MiniFloat` parameters and
decoded by formula; encoding inverts the decoder over all codes.  Sub-byte
elements (F4, F6_*) are packed into a little-endian bit stream: element ``i``
occupies bits ``i*b .. i*b+b-1`` and stream bit ``k`` is bit ``k % 8`` of byte
``k // 8`` (so the first F4 element is the low nibble of byte 0).
"""

from __future__ import annotations

import math
import struct
from dataclasses import dataclass
from functools import cache
from typing import TYPE_CHECKING, Final

from stspec.dtypes import BITS

if TYPE_CHECKING:
    from collections.abc import Sequence

Value = bool | int | float | complex
JsonValue = bool | int | str | list[str]


@dataclass(frozen=True, slots=True)
class MiniFloat:
    """A binary float format of at most 8 bits, described by its parameters.

    ``ieee`` formats reserve the top exponent for infinities and NaNs; ``nan``
    lists the codes that are NaN in the other formats; an unsigned format has no
    sign bit and, like F8_E8M0, may have no mantissa and no zero.
    """

    bits: int
    exp_bits: int
    man_bits: int
    bias: int
    signed: bool = True
    ieee: bool = False
    nan: tuple[int, ...] = ()
    exponent_only: bool = False

    def decode(self, code: int) -> float:
        """Return the value of one code (an int below 2**bits)."""
        if code in self.nan:
            return math.nan
        man = code & ((1 << self.man_bits) - 1)
        exp = (code >> self.man_bits) & ((1 << self.exp_bits) - 1)
        negative = self.signed and bool(code >> (self.bits - 1))
        top = (1 << self.exp_bits) - 1
        if self.ieee and exp == top:
            value = math.nan if man else math.inf
        elif self.exponent_only:
            value = math.ldexp(1.0, exp - self.bias)
        elif exp == 0:
            value = math.ldexp(man, 1 - self.bias - self.man_bits)
        else:
            value = math.ldexp(
                (1 << self.man_bits) + man, exp - self.bias - self.man_bits
            )
        return -value if negative else value

    @property
    def nan_code(self) -> int:
        """The code the generator writes for NaN."""
        if self.nan:
            return self.nan[-1]
        if self.ieee:  # exponent all ones, mantissa's top bit set: a quiet NaN
            return ((1 << (self.exp_bits + 1)) - 1) << (self.man_bits - 1)
        raise ValueError("format has no NaN")


MINIFLOATS: Final[dict[str, MiniFloat]] = {
    "F4": MiniFloat(4, 2, 1, 1),
    "F6_E2M3": MiniFloat(6, 2, 3, 1),
    "F6_E3M2": MiniFloat(6, 3, 2, 3),
    "F8_E5M2": MiniFloat(8, 5, 2, 15, ieee=True),
    "F8_E4M3": MiniFloat(8, 4, 3, 7, nan=(0xFF, 0x7F)),
    "F8_E8M0": MiniFloat(8, 8, 0, 127, signed=False, nan=(0xFF,), exponent_only=True),
    "F8_E4M3FNUZ": MiniFloat(8, 4, 3, 8, nan=(0x80,)),
    "F8_E5M2FNUZ": MiniFloat(8, 5, 2, 16, nan=(0x80,)),
}

INT_FORMATS: Final[dict[str, str]] = {
    "U8": "<B",
    "I8": "<b",
    "I16": "<h",
    "U16": "<H",
    "I32": "<i",
    "U32": "<I",
    "I64": "<q",
    "U64": "<Q",
}
IEEE_FORMATS: Final[dict[str, str]] = {"F16": "<e", "F32": "<f", "F64": "<d"}


def _real(value: Value) -> float:
    if isinstance(value, complex):
        raise TypeError("a complex value for a real dtype")
    return float(value)


def _integer(value: Value) -> int:
    if not isinstance(value, int):
        raise TypeError(f"{value!r} is not an integer")
    return int(value)


def _key(value: float) -> bytes:
    """Return a dictionary key that tells -0.0 from 0.0 (NaN is handled separately)."""
    return struct.pack("<d", value)


@cache
def _code_table(dtype: str) -> dict[bytes, int]:
    fmt = MINIFLOATS[dtype]
    table: dict[bytes, int] = {}
    for code in range(1 << fmt.bits):
        value = fmt.decode(code)
        if not math.isnan(value):
            table.setdefault(_key(value), code)
    return table


def minifloat_code(dtype: str, value: float) -> int:
    """Return the code of an exactly representable value of a narrow format."""
    if math.isnan(value):
        return MINIFLOATS[dtype].nan_code
    try:
        return _code_table(dtype)[_key(value)]
    except KeyError:
        raise ValueError(f"{value!r} is not exactly representable in {dtype}") from None


def pack_bits(codes: list[int], bits: int) -> bytes:
    """Pack codes of ``bits`` bits each into the little-endian bit stream."""
    total = len(codes) * bits
    if total % 8:
        raise ValueError(
            f"{len(codes)} elements of {bits} bits do not fill whole bytes"
        )
    stream = 0
    for index, code in enumerate(codes):
        stream |= code << (index * bits)
    return stream.to_bytes(total // 8, "little")


def _exact_struct(fmt: str, value: float) -> bytes:
    data = struct.pack(fmt, value)
    back = struct.unpack(fmt, data)[0]
    if not (math.isnan(value) and math.isnan(back)) and _key(back) != _key(value):
        raise ValueError(f"{value!r} is not exactly representable with {fmt!r}")
    return data


def _bf16(value: float) -> bytes:
    if math.isnan(value):
        return b"\xc0\x7f"
    data = _exact_struct("<f", value)
    if data[:2] != b"\0\0":
        raise ValueError(f"{value!r} is not exactly representable in BF16")
    return data[2:]


def encode(dtype: str, values: Sequence[Value]) -> bytes:  # noqa: PLR0911 - one per kind
    """Return the little-endian bytes of ``values`` (C order) as ``dtype``."""
    if dtype in MINIFLOATS:
        codes = [minifloat_code(dtype, _real(v)) for v in values]
        if BITS[dtype] == 8:
            return bytes(codes)
        return pack_bits(codes, BITS[dtype])
    if dtype == "BOOL":
        if not all(isinstance(v, bool) for v in values):
            raise TypeError("BOOL values must be bools")
        return bytes(_integer(v) for v in values)
    if dtype in INT_FORMATS:
        return b"".join(struct.pack(INT_FORMATS[dtype], _integer(v)) for v in values)
    if dtype in IEEE_FORMATS:
        return b"".join(_exact_struct(IEEE_FORMATS[dtype], _real(v)) for v in values)
    if dtype == "BF16":
        return b"".join(_bf16(_real(v)) for v in values)
    if dtype == "C64":
        parts = [complex(v) for v in values]
        return b"".join(
            _exact_struct("<f", c.real) + _exact_struct("<f", c.imag) for c in parts
        )
    raise ValueError(f"unknown dtype {dtype!r}")


# Spellings that JavaScript's Number(), C's strtod, Go's ParseFloat, Rust's
# str::parse and Python's float() all read (Python's repr says "nan", "inf").
_NON_FINITE: Final = {"nan": "NaN", "inf": "Infinity", "-inf": "-Infinity"}


def float_text(value: float) -> str:
    """Render a float as the manifest does ("1.5", "-0.0", "NaN", "-Infinity").

    Finite values are the shortest decimal that reads back as the same double
    (Python's repr); non-finite ones use the spellings every parser accepts.
    """
    text = repr(float(value))
    return _NON_FINITE.get(text, text)


def to_json(dtype: str, values: Sequence[Value]) -> list[JsonValue]:
    """Return the manifest form of decoded element values."""
    if dtype == "BOOL":
        return [bool(v) for v in values]
    if dtype in INT_FORMATS:
        # decimal strings: I64/U64 values above 2^53 survive any JSON parser
        return [str(_integer(v)) for v in values]
    if dtype == "C64":
        return [
            [float_text(complex(v).real), float_text(complex(v).imag)] for v in values
        ]
    return [float_text(_real(v)) for v in values]


def f32(value: float) -> float:
    """Round a Python float to the nearest F32 value (for choosing test values)."""
    result: float = struct.unpack("<f", struct.pack("<f", value))[0]
    return result


def f16(value: float) -> float:
    """Round a Python float to the nearest F16 value."""
    result: float = struct.unpack("<e", struct.pack("<e", value))[0]
    return result
