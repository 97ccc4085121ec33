"""Broken on purpose: checks holes and overlaps only among the first 1,000 entries."""

import json
import struct
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from _common import Loaded, naive_load, strict_load

import stspec

__all__ = ["load"]
CHECKED = 1_000


def load(path: str) -> Loaded:
    try:
        return strict_load(path)
    except stspec.SafetensorsError as exc:
        if exc.rule not in {"LAYOUT-HOLE", "LAYOUT-OVERLAP"}:
            raise
        ranges = _ranges(path)[:CHECKED]
        cursor = 0
        for begin, end in sorted(ranges):
            if begin != cursor:
                raise
            cursor = end
        if len(ranges) < CHECKED:
            raise
        return naive_load(path)


def _ranges(path: str) -> list[tuple[int, int]]:
    data = Path(path).read_bytes()
    (n,) = struct.unpack("<Q", data[:8])
    header = json.loads(data[8 : 8 + n])
    return [
        (int(e["data_offsets"][0]), int(e["data_offsets"][1]))
        for k, e in header.items()
        if k != "__metadata__"
    ]
