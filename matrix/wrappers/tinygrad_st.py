"""tinygrad 0.14.0: ``nn.state.safe_load`` / ``safe_save`` on the CPU device.

``safe_load`` parses the header with ``json.loads`` and gives lazy tensors
sliced from the file (``bitcast`` + ``reshape``); realising each one gives its
bytes.  Its dtype table has 15 names (no F8_E8M0, FNUZ F8s, F4, F6, C64).
"""

from __future__ import annotations

from typing import Any, Final

import numpy as np
from _spec import Tensors
from tinygrad import Tensor, dtypes
from tinygrad.nn.state import safe_dtypes, safe_load, safe_load_metadata, safe_save

NAME: Final = "tinygrad"
VERSION: Final = "0.14.0"
_DTYPES: Final = sorted(safe_dtypes)
CAPABILITIES: Final = {"read_dtypes": _DTYPES, "write_dtypes": _DTYPES}


def _bytes(tensor: Any) -> bytes:  # noqa: ANN401 - tinygrad is untyped
    flat = tensor.flatten()
    if flat.numel() == 0:
        return b""
    return bytes(flat.bitcast(dtypes.uint8).data())


def load(path: str) -> tuple[Tensors, dict[str, str] | None]:
    """``safe_load``, then each tensor realised on the CPU."""
    loaded = safe_load(path)
    _, _, header = safe_load_metadata(path)
    inverse = {v: k for k, v in safe_dtypes.items()}
    tensors: Tensors = {
        name: (inverse[t.dtype], list(t.shape), _bytes(t)) for name, t in loaded.items()
    }
    return tensors, header.get("__metadata__")


def save(path: str, tensors: Tensors, metadata: dict[str, str] | None) -> None:
    """``safe_save`` of CPU tensors made from the raw bytes."""
    made = {}
    for name, (dtype, shape, data) in tensors.items():
        raw = Tensor(np.frombuffer(bytes(data), dtype=np.uint8).copy())
        made[name] = raw.bitcast(safe_dtypes[dtype]).reshape(shape).realize()
    safe_save(made, path, metadata)
