"""gguf 0.19.0 (llama.cpp's converter): ``gguf.utility.SafetensorsLocal``.

Its own header parser (``json.loads``) with a size check on N; tensors are
``np.memmap`` ranges.  It ignores ``__metadata__`` by design, so the wrapper
reports none and declares so (``metadata`` false): its answers are compared
on tensors, and files with invalid metadata must still be rejected.  It
refuses with ``ValueError``; a ``TypeError`` or ``KeyError`` from its code is
an unexpected exception, not a refusal.
"""

from __future__ import annotations

from importlib.metadata import version
from pathlib import Path
from typing import Final

from _spec import REFUSALS, Tensors
from gguf.utility import LocalTensor, SafetensorsLocal

NAME: Final = "gguf SafetensorsLocal"
VERSION: Final = version("gguf")
CAPABILITIES: Final = {"metadata": False}
REJECTS: Final = REFUSALS


# Every live np.memmap holds a file descriptor of its own, so keeping one per
# tensor runs out of descriptors on a file of 20,000 tensors, a failure of the
# wrapper and not of the library: a tensor up to this size is copied out of
# its mapping and the mapping released; the few larger ones stay mapped.
_COPY_UP_TO: Final = 1 << 20


def _data(tensor: LocalTensor) -> memoryview:
    mapped = tensor.mmap_bytes()
    if mapped.nbytes <= _COPY_UP_TO:
        return memoryview(mapped.tobytes())
    return memoryview(mapped)


def load(path: str) -> tuple[Tensors, dict[str, str] | None]:
    """Each LocalTensor's dtype, shape and ``mmap_bytes()``."""
    with SafetensorsLocal(Path(path)) as tensors:
        out: Tensors = {
            name: (t.dtype, list(t.shape), _data(t)) for name, t in tensors.items()
        }
    return out, None
