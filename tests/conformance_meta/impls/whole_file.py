"""The simplest adapter: read the whole file, return every tensor as bytes."""

from __future__ import annotations

from pathlib import Path

import stspec

Loaded = tuple[dict[str, tuple[str, list[int], bytes]], dict[str, str] | None]


def load(path: str) -> Loaded:
    with stspec.read(Path(path).read_bytes()) as st:  # validates
        tensors = {
            name: (info.dtype, list(info.shape), bytes(st.tensor_bytes(name)))
            for name, info in st.tensors.items()
        }
        return tensors, st.metadata
