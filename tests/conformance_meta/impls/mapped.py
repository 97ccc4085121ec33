"""An adapter that returns memoryviews of the reference's file mapping."""

from __future__ import annotations

import stspec

Loaded = tuple[dict[str, tuple[str, list[int], memoryview]], dict[str, str] | None]


def load(path: str) -> Loaded:
    st = stspec.read(path)  # memory-mapped; kept open while the views live
    tensors = {
        name: (info.dtype, list(info.shape), st.tensor_bytes(name))
        for name, info in st.tensors.items()
    }
    return tensors, st.metadata
