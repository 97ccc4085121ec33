"""The strict reference reader and writer in the minimal adapter form."""

from __future__ import annotations

from pathlib import Path

import stspec

Loaded = tuple[dict[str, tuple[str, list[int], bytes]], dict[str, str] | None]
Tensors = dict[str, tuple[str, list[int], bytes]]


def strict_load(path: str) -> Loaded:
    with stspec.read(path) as st:
        tensors = {
            name: (info.dtype, list(info.shape), bytes(st.tensor_bytes(name)))
            for name, info in st.tensors.items()
        }
        return tensors, st.metadata


def strict_save(path: str, tensors: Tensors, metadata: dict[str, str] | None) -> None:
    Path(path).write_bytes(stspec.serialize(tensors, metadata))


def classify(exc: BaseException) -> str | None:
    return getattr(exc, "rule", None)
