"""Checks N against 100,000,000, then reads N bytes (CPython allocates N first).

stsw, reminis, runai-model-streamer and others do this: SPEC READ-OUTCOME
allows memory proportional to the header, at most 100,000,000 bytes.
"""

from __future__ import annotations

import struct
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parents[1] / "judged"))
from _shared import Loaded, strict_load


def load(path: str) -> Loaded:
    with Path(path).open("rb") as file:
        prefix = file.read(8)
        if len(prefix) == 8:
            (n,) = struct.unpack("<Q", prefix)
            if n > 100_000_000:
                raise ValueError("header too large")
            header = file.read(n)
            if len(header) < n:
                raise ValueError("header runs past the end of the file")
    return strict_load(path)
