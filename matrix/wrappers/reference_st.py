"""The project's strict reference reader and writer (``stspec``).

The matrix runs the suite's built-in ``--impl=reference``; this wrapper is the
same calls for ``matrix.probe`` and for scripts (a fuzzing campaign).
"""

from __future__ import annotations

from typing import Final

from _spec import Tensors

import stspec

NAME: Final = "stspec"
VERSION: Final[str] = stspec.__version__
REJECTS: Final = (stspec.SafetensorsError,)
# stspec.write writes the canonical form (SPEC 9.1), metadata keys sorted: the
# canonical-writer class, as the suite's built-in reference adapter declares.
CAPABILITIES: Final = {"canonical": True}


def load(path: str) -> tuple[Tensors, dict[str, str] | None]:
    """``stspec.read``; every tensor's bytes."""
    with stspec.read(path) as st:
        tensors: Tensors = {
            name: (info.dtype, list(info.shape), bytes(st.tensor_bytes(name)))
            for name, info in st.tensors.items()
        }
        return tensors, st.metadata


def save(path: str, tensors: Tensors, metadata: dict[str, str] | None) -> None:
    """``stspec.write``."""
    stspec.write(path, tensors, metadata)
