"""mlx 0.32.4 (CPU wheel): ``mx.load`` and ``mx.save_safetensors``, in C++.

``mx.load(path, return_metadata=True)`` gives arrays and the metadata, ``{}``
whether ``__metadata__`` is absent or empty (declared).  F8_E4M3 and
F8_E8M0 tensors come back as ``uint8`` arrays; the wrapper cannot recover the
name, so they show as wrong content.  It refuses F8_E5M2 ("unsupported
dtype") and has no F64, F4, F6 or FNUZ types, so none of those is declared.
"""

from __future__ import annotations

from typing import Any, Final

import mlx.core as mx
import numpy as np
from _spec import REFUSALS, Refused, Tensors, refusing_exactly

NAME: Final = "mlx"
VERSION: Final = str(mx.__version__)
_SPEC_OF: Final = {
    mx.bool_: "BOOL", mx.uint8: "U8", mx.int8: "I8", mx.uint16: "U16",
    mx.int16: "I16", mx.uint32: "U32", mx.int32: "I32", mx.uint64: "U64",
    mx.int64: "I64", mx.float16: "F16", mx.bfloat16: "BF16",
    mx.float32: "F32", mx.complex64: "C64",
}  # fmt: skip
# its C++ errors arrive as RuntimeError (and ValueError)
READ_REJECTS: Final = (Refused, *REFUSALS)
_MX_OF: Final = {v: k for k, v in _SPEC_OF.items()}
_READS: Final = [*sorted(_SPEC_OF.values()), "F8_E4M3", "F8_E8M0"]
CAPABILITIES: Final = {
    "read_dtypes": sorted(_READS),
    "metadata_presence": False,
    "write_dtypes": sorted(_SPEC_OF.values()),
    # load_safetensors refuses jsonHeaderLength >= kMaxJsonHeaderLength
    # (10^8): a 99,999,999-byte header loads, 100,000,000 does not (0.32.4).
    "max_header_size": 99_999_999,
}


def _bytes(array: Any) -> bytes:  # noqa: ANN401 - mlx has no stubs here
    if array.size == 0:
        return b""
    return bytes(np.array(array.reshape(-1).view(mx.uint8), copy=False))


@refusing_exactly(RuntimeError)
def load(path: str) -> tuple[Tensors, dict[str, str] | None]:
    """``mx.load``; each array's bytes through a uint8 view."""
    arrays, metadata = mx.load(path, format="safetensors", return_metadata=True)
    tensors: Tensors = {
        name: (_SPEC_OF.get(a.dtype, str(a.dtype)), list(a.shape), _bytes(a))
        for name, a in arrays.items()
    }
    return tensors, dict(metadata) or None


def save(path: str, tensors: Tensors, metadata: dict[str, str] | None) -> None:
    """``mx.save_safetensors`` of arrays viewed from the raw bytes."""
    arrays = {}
    for name, (dtype, shape, data) in tensors.items():
        raw = mx.array(np.frombuffer(bytes(data), dtype=np.uint8))
        arrays[name] = raw.view(_MX_OF[dtype]).reshape(shape)
    mx.save_safetensors(path, arrays, metadata=metadata)
