"""Broken on purpose: a tensor's span is end - begin clamped at 0, and the
order of the pair is never checked (OFFSETS-ORDER); the tiling walks a
cursor from begin by that span."""

import json
import math
import struct
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from _common import Loaded, strict_load

import stspec

__all__ = ["load"]

BITS = {dt.name: dt.bits for dt in stspec.DTYPES}


def _clamped(path: str) -> Loaded:
    data = Path(path).read_bytes()
    (n,) = struct.unpack("<Q", data[:8])
    header = json.loads(data[8 : 8 + n])
    metadata = header.pop("__metadata__", None)
    buffer = data[8 + n :]
    tensors = {}
    cursor = 0
    for name, entry in sorted(header.items(), key=lambda m: m[1]["data_offsets"]):
        begin, end = entry["data_offsets"]
        span = max(0, end - begin)
        if span * 8 != math.prod(entry["shape"]) * BITS[entry["dtype"]]:
            raise ValueError(f"{name}: size mismatch")
        if begin != cursor:
            raise ValueError(f"{name}: not at the cursor {cursor}")
        cursor = begin + span
        tensors[name] = (entry["dtype"], entry["shape"], buffer[begin : begin + span])
    if cursor != len(buffer):
        raise ValueError("the buffer is not covered")
    return tensors, metadata


def load(path: str) -> Loaded:
    try:
        return strict_load(path)
    except stspec.SafetensorsError as exc:
        if exc.rule != "OFFSETS-ORDER":
            raise
        return _clamped(path)
