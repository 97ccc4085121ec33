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
from gguf.utility import SafetensorsLocal

NAME: Final = "gguf SafetensorsLocal"
VERSION: Final = version("gguf")
CAPABILITIES: Final = {"metadata": False}
REJECTS: Final = REFUSALS


def load(path: str) -> tuple[Tensors, dict[str, str] | None]:
    """Each LocalTensor's dtype, shape and ``mmap_bytes()``."""
    with SafetensorsLocal(Path(path)) as tensors:
        out: Tensors = {
            name: (t.dtype, list(t.shape), memoryview(t.mmap_bytes()))
            for name, t in tensors.items()
        }
    return out, None
