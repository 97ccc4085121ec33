"""Broken on purpose: allocates an N-byte buffer before checking N against the file."""

import struct
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from _common import Loaded, strict_load


def load(path: str) -> Loaded:
    with Path(path).open("rb") as file:
        prefix = file.read(8)
        if len(prefix) == 8:
            (n,) = struct.unpack("<Q", prefix)
            buffer = bytearray(min(n, 2**40))  # sized by the file's claim
            file.readinto(buffer)
            del buffer
    return strict_load(path)
