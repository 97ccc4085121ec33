"""Broken on purpose: reads the 8-byte header length N big-endian."""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from _common import Loaded, strict_load

import stspec


def load(path: str) -> Loaded:
    data = Path(path).read_bytes()
    if len(data) < 8:
        raise ValueError("short file")
    n = int.from_bytes(data[:8], "big")
    swapped = n.to_bytes(8, "little") + data[8:] if n < 2**64 else data
    with stspec.read(swapped) as st:
        tensors = {
            k: (i.dtype, list(i.shape), bytes(st.tensor_bytes(k)))
            for k, i in st.tensors.items()
        }
        return tensors, st.metadata


del strict_load
