"""A strict reader that names its rejection type; one case raises something else."""

from __future__ import annotations

import sys
from pathlib import Path

import stspec

sys.path.insert(0, str(Path(__file__).parent))
from _cases import is_case

REJECTS = stspec.SafetensorsError

Loaded = tuple[dict[str, tuple[str, list[int], bytes]], dict[str, str] | None]


def load(path: str) -> Loaded:
    if is_case(path, "n_prefix_file_empty.safetensors"):
        raise KeyError("no such key")  # a bug: KeyError is not in REJECTS
    with stspec.read(path) as st:
        tensors = {
            name: (info.dtype, list(info.shape), bytes(st.tensor_bytes(name)))
            for name, info in st.tensors.items()
        }
        return tensors, st.metadata
