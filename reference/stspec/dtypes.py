"""The dtype table: name, bits per element, and the release that introduced it."""

from __future__ import annotations

from stspec.rules import U64_MAX

# typing and dataclasses are not imported at run time (start-up cost of the
# `stspec` command, see stspec/record.py); mypy reads TYPE_CHECKING as True.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Final, NamedTuple
else:
    from stspec.record import NamedTuple


class DType(NamedTuple):
    """One element type of spec/SPEC.md, in the reference's declaration order."""

    name: str
    bits: int
    since: str  # the first HF safetensors release on PyPI whose reader accepts it
    kind: str  # "bool", "int", "uint", "float" or "complex"


# Declaration order is the alignment order of the de-facto reference; the
# canonical writer sorts by it (descending), so the order here is normative.
DTYPES: Final[tuple[DType, ...]] = (
    DType("BOOL", 8, "0.0.1", "bool"),
    DType("F4", 4, "0.6.0", "float"),
    DType("F6_E2M3", 6, "0.6.0", "float"),
    DType("F6_E3M2", 6, "0.6.0", "float"),
    DType("U8", 8, "0.0.1", "uint"),
    DType("I8", 8, "0.0.1", "int"),
    DType("F8_E5M2", 8, "0.4.1", "float"),
    DType("F8_E4M3", 8, "0.4.1", "float"),
    DType("F8_E8M0", 8, "0.6.0", "float"),
    DType("F8_E4M3FNUZ", 8, "0.8.0", "float"),
    DType("F8_E5M2FNUZ", 8, "0.8.0", "float"),
    DType("I16", 16, "0.0.1", "int"),
    DType("U16", 16, "0.0.1", "uint"),
    DType("F16", 16, "0.0.1", "float"),
    DType("BF16", 16, "0.0.1", "float"),
    DType("I32", 32, "0.0.1", "int"),
    DType("U32", 32, "0.0.1", "uint"),
    DType("F32", 32, "0.0.1", "float"),
    DType("C64", 64, "0.7.0", "complex"),
    DType("F64", 64, "0.0.1", "float"),
    DType("I64", 64, "0.0.1", "int"),
    DType("U64", 64, "0.0.1", "uint"),
)

DTYPES_BY_NAME: Final[dict[str, DType]] = {dt.name: dt for dt in DTYPES}
BITS: Final[dict[str, int]] = {dt.name: dt.bits for dt in DTYPES}
OVERFLOW: Final = U64_MAX + 1
RANK: Final[dict[str, int]] = {dt.name: index for index, dt in enumerate(DTYPES)}


def bit_count(dtype: str, shape: tuple[int, ...] | list[int]) -> int:
    """Return the exact number of bits a tensor occupies.

    Defined mathematically (spec SIZE-OVERFLOW): a zero dimension anywhere makes
    the tensor empty, whatever the other dimensions are, so the result never
    depends on the order of the dimensions.  Any count above 2^64-1 is reported
    as ``OVERFLOW`` without being computed: a hostile shape of millions of huge
    dimensions would otherwise build an integer of millions of bits.
    """
    if 0 in shape:
        return 0
    count = BITS[dtype]
    for dim in shape:
        count *= dim
        if count > U64_MAX:
            return OVERFLOW
    return count
