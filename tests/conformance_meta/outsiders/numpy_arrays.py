"""A strict reader that answers with numpy arrays, as numpy-based loaders do.

Each tensor is ``np.frombuffer(...).reshape(shape)`` in its numpy dtype; a
tensor of rank 2 or more is returned in Fortran order, so the array is not
C-contiguous (a transposed copy's memory) although its values are exactly
the file's.  Empty tensors keep their zero dimensions (``(2, 0, 3)``).  The
suite digests the values in C order; none of this is a rejection.
``TRANSPOSE`` (set by a stand-in module) returns the transpose instead: other
values, which is wrong content.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).parents[1] / "judged"))
from _shared import strict_load

__all__ = ["CAPABILITIES", "load"]

NUMPY: dict[str, Any] = {
    "BOOL": np.bool_,
    "U8": np.uint8,
    "I8": np.int8,
    "U16": np.uint16,
    "I16": np.int16,
    "F16": np.float16,
    "U32": np.uint32,
    "I32": np.int32,
    "F32": np.float32,
    "U64": np.uint64,
    "I64": np.int64,
    "F64": np.float64,
    "C64": np.complex64,
}
CAPABILITIES = {"read_dtypes": sorted(NUMPY)}
TRANSPOSE = False


def _array(dtype: str, shape: list[int], data: bytes) -> np.ndarray[Any, Any]:
    array = np.frombuffer(data, dtype=np.dtype(NUMPY[dtype]).newbyteorder("<"))
    array = array.reshape(shape)
    if TRANSPOSE:
        return array.T
    return np.asfortranarray(array) if array.ndim >= 2 else array


def load(path: str) -> tuple[dict[str, Any], dict[str, str] | None]:
    tensors, metadata = strict_load(path)
    unsupported = {dtype for dtype, _, _ in tensors.values()} - set(NUMPY)
    if unsupported:
        raise ValueError(f"unsupported dtype: {sorted(unsupported)}")
    arrays = {
        name: (dtype, shape, _array(dtype, shape, data))
        for name, (dtype, shape, data) in tensors.items()
    }
    return arrays, metadata
