"""Broken on purpose: recursive json first (RecursionError on bombs)."""

import contextlib
import json
import struct
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from _common import Loaded, strict_load


def load(path: str) -> Loaded:
    data = Path(path).read_bytes()
    if len(data) >= 8:
        (n,) = struct.unpack("<Q", data[:8])
        with contextlib.suppress(ValueError):  # RecursionError escapes
            json.loads(data[8 : 8 + n])
    return strict_load(path)
