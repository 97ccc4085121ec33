"""A Python reader that fills a shared buffer sized by the header's claim first.

Invisible to ``RLIMIT_DATA`` (shared mappings are not data): only the
worker's measured peak of resident memory catches it, small files included.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from cmd_reader import claim_shared_memory

import stspec

__all__ = ["REJECTS", "load"]

REJECTS = (stspec.SafetensorsError,)


def load(
    path: str,
) -> tuple[dict[str, tuple[str, list[int], bytes]], dict[str, str] | None]:
    claim_shared_memory(path)
    with stspec.read(path) as st:
        tensors = {
            name: (info.dtype, list(info.shape), bytes(st.tensor_bytes(name)))
            for name, info in st.tensors.items()
        }
        return tensors, st.metadata
