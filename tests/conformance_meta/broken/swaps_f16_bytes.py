"""Broken on purpose: returns F16 data byte-swapped (big-endian)."""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from _common import Loaded, strict_load


def load(path: str) -> Loaded:
    tensors, metadata = strict_load(path)
    for name, (dtype, shape, data) in tensors.items():
        if dtype == "F16":
            swapped = bytearray(data)
            swapped[0::2], swapped[1::2] = data[1::2], data[0::2]
            tensors[name] = (dtype, shape, bytes(swapped))
    return tensors, metadata
