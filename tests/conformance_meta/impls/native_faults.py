"""A strict reader that faults in native code on three named files.

y_prefix_smallest_file: segfault (ctypes reads address 0);
y_text_padding_none: sleeps in libc (Python's SIGALRM never runs);
y_structure_name_dotted: spins in C while holding the GIL.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import sys
from pathlib import Path

import stspec

sys.path.insert(0, str(Path(__file__).parent))
from _cases import is_case

Loaded = tuple[dict[str, tuple[str, list[int], bytes]], dict[str, str] | None]


def load(path: str) -> Loaded:
    if is_case(path, "y_prefix_smallest_file.safetensors"):
        ctypes.string_at(0)
    if is_case(path, "y_text_padding_none.safetensors"):
        ctypes.CDLL(ctypes.util.find_library("c")).sleep(3600)
    if is_case(path, "y_structure_name_dotted.safetensors"):
        sum(range(10**13))
    with stspec.read(path) as st:
        tensors = {
            name: (info.dtype, list(info.shape), bytes(st.tensor_bytes(name)))
            for name, info in st.tensors.items()
        }
        return tensors, st.metadata
