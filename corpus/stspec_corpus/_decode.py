"""An independent decoder of tensor bytes (numpy and ml_dtypes), for the lint.

The generator builds tensor bytes from values with its own encoders
(`_values`); this module decodes them with numpy and ml_dtypes instead, so the
manifest's ``values`` are checked against a second implementation.  Sub-byte
dtypes are unpacked from the little-endian bit stream with ``numpy.unpackbits``.
"""

from __future__ import annotations

from typing import Final

import ml_dtypes
import numpy as np
import numpy.typing as npt

# only the text form is shared with the encoders, not the decoding
from stspec_corpus._values import float_text

_NUMPY: Final[dict[str, npt.DTypeLike]] = {
    "BOOL": np.bool_,
    "U8": np.uint8,
    "I8": np.int8,
    "I16": "<i2",
    "U16": "<u2",
    "I32": "<i4",
    "U32": "<u4",
    "I64": "<i8",
    "U64": "<u8",
    "F16": "<f2",
    "F32": "<f4",
    "F64": "<f8",
    "C64": "<c8",
    "BF16": ml_dtypes.bfloat16,
    "F8_E5M2": ml_dtypes.float8_e5m2,
    "F8_E4M3": ml_dtypes.float8_e4m3fn,
    "F8_E8M0": ml_dtypes.float8_e8m0fnu,
    "F8_E4M3FNUZ": ml_dtypes.float8_e4m3fnuz,
    "F8_E5M2FNUZ": ml_dtypes.float8_e5m2fnuz,
}
_SUB_BYTE: Final[dict[str, tuple[int, npt.DTypeLike]]] = {
    "F4": (4, ml_dtypes.float4_e2m1fn),
    "F6_E2M3": (6, ml_dtypes.float6_e2m3fn),
    "F6_E3M2": (6, ml_dtypes.float6_e3m2fn),
}


def _elements(dtype: str, data: bytes) -> npt.NDArray[np.generic]:
    if dtype in _SUB_BYTE:
        bits, kind = _SUB_BYTE[dtype]
        stream = np.unpackbits(np.frombuffer(data, np.uint8), bitorder="little")
        groups = stream.reshape(-1, bits).astype(np.uint8)
        weights = (1 << np.arange(bits)).astype(np.uint8)
        codes = (groups * weights).sum(axis=1).astype(np.uint8)
        unpacked: npt.NDArray[np.generic] = codes.view(kind)
        return unpacked
    return np.frombuffer(data, _NUMPY[dtype])


def decode(dtype: str, shape: tuple[int, ...], data: bytes) -> list[object]:
    """Decode ``data`` to the manifest's value form, in C order."""
    count = 1
    for dim in shape:
        count *= dim
    array = _elements(dtype, data)
    if array.size != count:
        raise ValueError(
            f"{len(data)} bytes hold {array.size} elements, shape says {count}"
        )
    if dtype == "BOOL":
        return [bool(v) for v in array.tolist()]
    if array.dtype.kind in "iu":
        return [str(int(v)) for v in array.tolist()]
    if dtype == "C64":
        return [[float_text(c.real), float_text(c.imag)] for c in array.tolist()]
    with np.errstate(invalid="ignore"):  # a signalling NaN widens with a warning
        wide = array.astype(np.float64)
    return [float_text(v) for v in wide.tolist()]
