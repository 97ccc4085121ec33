"""Broken on purpose: parses the header with recursive json first (RecursionError on bombs)."""

import json
import struct
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from _common import Loaded, strict_load  # noqa: E402


def load(path: str) -> Loaded:
    data = Path(path).read_bytes()
    if len(data) >= 8:
        (n,) = struct.unpack("<Q", data[:8])
        try:
            json.loads(data[8 : 8 + n])
        except ValueError:
            pass  # the strict reader reports it; RecursionError escapes
    return strict_load(path)
