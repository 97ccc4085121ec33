"""Broken on purpose: reads N from the first 4 bytes only (a 32-bit length)."""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from _common import Loaded, strict_load

__all__ = ["load"]


def load(path: str) -> Loaded:
    data = Path(path).read_bytes()
    low = data[:4] + bytes(4) if len(data) >= 8 else data  # the high half dropped
    return strict_load(low + data[8:])
