"""mlx 0.32.4 (CPU wheel): ``mx.load`` and ``mx.save_safetensors``, in C++.

``mx.load(path, return_metadata=True)`` gives arrays and the metadata, ``{}``
whether ``__metadata__`` is absent or empty (declared).  F8 tensors come
back as ``uint8`` arrays; the wrapper cannot recover the name, so they show
as wrong content.  It has no F64, F4, F6 or FNUZ types.

mlx is imported inside ``load``/``save``, not at import: the suite imports
the wrapper once and forks a worker per file, and mlx's thread pool does not
survive a fork (the worker hangs).
"""

from __future__ import annotations

from importlib.metadata import version
from typing import Any, Final

import numpy as np
from _spec import Tensors

NAME: Final = "mlx"
VERSION: Final = version("mlx")
# spec name -> mlx dtype attribute
_MX_NAME: Final = {
    "BOOL": "bool_", "U8": "uint8", "I8": "int8", "U16": "uint16", "I16": "int16",
    "U32": "uint32", "I32": "int32", "U64": "uint64", "I64": "int64",
    "F16": "float16", "BF16": "bfloat16", "F32": "float32", "C64": "complex64",
}  # fmt: skip
_READS: Final = [*_MX_NAME, "F8_E4M3", "F8_E5M2", "F8_E8M0"]
CAPABILITIES: Final = {
    "read_dtypes": sorted(_READS),
    "metadata_presence": False,
    "write_dtypes": sorted(_MX_NAME),
}


def _bytes(mx: Any, array: Any) -> bytes:  # noqa: ANN401 - mlx has no stubs here
    if array.size == 0:
        return b""
    return bytes(np.array(array.reshape(-1).view(mx.uint8), copy=False))


def load(path: str) -> tuple[Tensors, dict[str, str] | None]:
    """``mx.load``; each array's bytes through a uint8 view."""
    import mlx.core as mx  # noqa: PLC0415 - see the module docstring

    spec_of = {getattr(mx, attr): spec for spec, attr in _MX_NAME.items()}
    arrays, metadata = mx.load(path, format="safetensors", return_metadata=True)
    tensors: Tensors = {
        name: (spec_of.get(a.dtype, str(a.dtype)), list(a.shape), _bytes(mx, a))
        for name, a in arrays.items()
    }
    return tensors, dict(metadata) or None


def save(path: str, tensors: Tensors, metadata: dict[str, str] | None) -> None:
    """``mx.save_safetensors`` of arrays viewed from the raw bytes."""
    import mlx.core as mx  # noqa: PLC0415 - see the module docstring

    arrays = {}
    for name, (dtype, shape, data) in tensors.items():
        raw = mx.array(np.frombuffer(bytes(data), dtype=np.uint8))
        arrays[name] = raw.view(getattr(mx, _MX_NAME[dtype])).reshape(shape)
    mx.save_safetensors(path, arrays, metadata=metadata)
