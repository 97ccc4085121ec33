"""Broken on purpose: reports an empty tensor of rank 4 or more as shape [0]."""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from _common import Loaded, strict_load

__all__ = ["load"]


def load(path: str) -> Loaded:
    tensors, metadata = strict_load(path)
    return {
        name: (dtype, [0] if len(shape) >= 4 and 0 in shape else shape, data)
        for name, (dtype, shape, data) in tensors.items()
    }, metadata
