"""The optional numpy layer: zero-copy arrays over a file's tensors, and back.

Needs numpy and ml_dtypes (``pip install safetensors-spec[numpy]``); nothing
else in stspec imports them.  ml_dtypes supplies BF16 and the F8/F6/F4 types.
The mapping assumes a little-endian host (every mainstream one): ml_dtypes'
types only exist in native byte order.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Final

import ml_dtypes
import numpy as np

from stspec import Tensor, read
from stspec.dtypes import BITS

if TYPE_CHECKING:
    import os

    from stspec import SafetensorsFile

__all__ = ["from_numpy", "load", "to_numpy", "unpack_subbyte"]

# Explicit little-endian codes: the file's byte order, whatever the host's.
_VIEWABLE: Final[dict[str, np.dtype[Any]]] = {
    "BOOL": np.dtype("?"),
    "U8": np.dtype("u1"),
    "I8": np.dtype("i1"),
    "F8_E5M2": np.dtype(ml_dtypes.float8_e5m2),
    "F8_E4M3": np.dtype(ml_dtypes.float8_e4m3fn),
    "F8_E8M0": np.dtype(ml_dtypes.float8_e8m0fnu),
    "F8_E4M3FNUZ": np.dtype(ml_dtypes.float8_e4m3fnuz),
    "F8_E5M2FNUZ": np.dtype(ml_dtypes.float8_e5m2fnuz),
    "I16": np.dtype("<i2"),
    "U16": np.dtype("<u2"),
    "F16": np.dtype("<f2"),
    "BF16": np.dtype(ml_dtypes.bfloat16),
    "I32": np.dtype("<i4"),
    "U32": np.dtype("<u4"),
    "F32": np.dtype("<f4"),
    "C64": np.dtype("<c8"),
    "F64": np.dtype("<f8"),
    "I64": np.dtype("<i8"),
    "U64": np.dtype("<u8"),
}
# Packed in the file (spec: a little-endian bit stream), one element per byte
# in ml_dtypes, so these can only be copied out, never viewed.
_SUBBYTE: Final[dict[str, np.dtype[Any]]] = {
    "F4": np.dtype(ml_dtypes.float4_e2m1fn),
    "F6_E2M3": np.dtype(ml_dtypes.float6_e2m3fn),
    "F6_E3M2": np.dtype(ml_dtypes.float6_e3m2fn),
}
_NAMES: Final[dict[type[Any], str]] = {
    dtype.type: name for name, dtype in (_VIEWABLE | _SUBBYTE).items()
}


def to_numpy(file: SafetensorsFile, name: str) -> np.ndarray[Any, np.dtype[Any]]:
    """Return tensor ``name`` of ``file`` as a zero-copy array view.

    The array shares the file's memory (the mmap or the caller's buffer), so it
    is read-only for files and bytes, and valid only while ``file`` is open.
    Every dtype but F4, F6_E2M3 and F6_E3M2 can be viewed (see unpack_subbyte).

    Raises:
        KeyError: ``file`` holds no tensor called ``name``.
        TypeError: the tensor is a packed sub-byte dtype.

    """
    info = file.tensors[name]
    if info.dtype in _SUBBYTE:
        raise TypeError(
            f"tensor {name!r} is {info.dtype}, packed below one byte per element, "
            "which numpy cannot view; call stspec.numpy.unpack_subbyte(file, "
            f"{name!r}) for an unpacked copy"
        )
    flat = np.frombuffer(file.tensor_bytes(name), dtype=_VIEWABLE[info.dtype])
    return flat.reshape(info.shape)


def unpack_subbyte(file: SafetensorsFile, name: str) -> np.ndarray[Any, np.dtype[Any]]:
    """Return F4 / F6_* tensor ``name`` of ``file`` as a new, unpacked array.

    The result is a copy (not a view) of dtype ml_dtypes.float4_e2m1fn,
    float6_e2m3fn or float6_e3m2fn, one element per byte.  Decoding follows
    the spec: the data is a little-endian bit stream in which element i holds
    bits i*b .. i*b+b-1 and bit k is bit k mod 8 of byte k // 8 (so F4
    element 0 is the low nibble of byte 0).

    Raises:
        KeyError: ``file`` holds no tensor called ``name``.
        TypeError: the tensor is not a sub-byte dtype (use to_numpy).

    """
    info = file.tensors[name]
    if info.dtype not in _SUBBYTE:
        raise TypeError(
            f"tensor {name!r} is {info.dtype}, not a packed sub-byte dtype; "
            f"call stspec.numpy.to_numpy(file, {name!r}) for a zero-copy view"
        )
    width = BITS[info.dtype]
    stream = np.unpackbits(
        np.frombuffer(file.tensor_bytes(name), dtype=np.uint8), bitorder="little"
    )
    # One row of `width` bits per element; packbits puts bit j of a row at bit
    # j of its byte (the high bits are zero), which is ml_dtypes' encoding.
    codes = np.packbits(stream.reshape(-1, width), axis=1, bitorder="little")
    return codes.reshape(info.shape).view(_SUBBYTE[info.dtype])


def from_numpy(array: object) -> Tensor:
    """Return a Tensor holding ``array``'s logical values, ready to write.

    The data is the array's C-order, little-endian bytes: non-contiguous and
    big-endian arrays are copied into that form (HF 0.8.0's numpy writer writes
    the memory order instead, bug #825); an array already in it is not copied.
    ml_dtypes' float4_e2m1fn / float6_* arrays are packed into F4 / F6_*.

    Raises:
        TypeError: the array's dtype has no safetensors dtype (e.g. complex128,
            float128, object, str).

    """
    arr = np.asarray(array)
    name = _NAMES.get(arr.dtype.type)
    if name is None:
        raise TypeError(
            f"numpy dtype {arr.dtype} has no safetensors dtype; convert the array "
            "with .astype() to one of: "
            + ", ".join(sorted(str(dtype) for dtype in _VIEWABLE.values()))
        )
    # order="C" keeps 0-d arrays 0-d (ascontiguousarray would make them 1-d).
    arr = np.asarray(arr, dtype=arr.dtype.newbyteorder("<"), order="C")
    octets = arr.reshape(-1).view(np.uint8)
    if name in _SUBBYTE:
        octets = _pack(octets, BITS[name])
    return Tensor(name, arr.shape, octets.data)


def _pack(
    codes: np.ndarray[Any, np.dtype[np.uint8]], width: int
) -> np.ndarray[Any, np.dtype[np.uint8]]:
    # The inverse of unpack_subbyte: the low `width` bits of each code, laid
    # end to end.  A stream that does not fill its last byte is padded here and
    # then refused by the writer (SIZE-BITS).
    bits = np.unpackbits(codes.reshape(-1, 1), axis=1, bitorder="little")
    return np.packbits(bits[:, :width].reshape(-1), bitorder="little")


def load(
    source: str | os.PathLike[str] | bytes | bytearray | memoryview,
) -> dict[str, np.ndarray[Any, np.dtype[Any]]]:
    """Read every tensor of ``source`` into a new array, in file order.

    The arrays are copies, independent of the file (which is closed before
    returning); F4 / F6_* tensors are unpacked.  For zero-copy access use
    ``stspec.read`` with ``to_numpy``.

    Raises:
        SafetensorsError: the file breaks a rule (see stspec.read).
        OSError: the file cannot be read.

    """
    with read(source) as file:
        return {
            name: unpack_subbyte(file, name)
            if info.dtype in _SUBBYTE
            else to_numpy(file, name).copy()
            for name, info in file.tensors.items()
        }
