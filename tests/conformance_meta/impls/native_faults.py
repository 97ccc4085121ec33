"""A strict reader that faults in native code on three named files.

y_prefix_smallest_file: segfault (ctypes reads address 0);
y_text_padding_none: sleeps in libc (Python's SIGALRM never runs);
y_structure_name_dotted: spins in C while holding the GIL.
"""

from __future__ import annotations

import ctypes
import ctypes.util

import stspec

Loaded = tuple[dict[str, tuple[str, list[int], bytes]], dict[str, str] | None]


def load(path: str) -> Loaded:
    if path.endswith("y_prefix_smallest_file.safetensors"):
        ctypes.string_at(0)
    if path.endswith("y_text_padding_none.safetensors"):
        ctypes.CDLL(ctypes.util.find_library("c")).sleep(3600)
    if path.endswith("y_structure_name_dotted.safetensors"):
        sum(range(10**13))
    with stspec.read(path) as st:
        tensors = {
            name: (info.dtype, list(info.shape), bytes(st.tensor_bytes(name)))
            for name, info in st.tensors.items()
        }
        return tensors, st.metadata
