"""Broken on purpose: a writer that sizes a dtype it does not know as one byte
per element and writes it, refusing only a byte count that disagrees."""

import math
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from _common import Tensors, lax_bytes, strict_load

import stspec

__all__ = ["load", "save"]

BITS = {dt.name: dt.bits for dt in stspec.DTYPES}

load = strict_load


def save(path: str, tensors: Tensors, metadata: dict[str, str] | None) -> None:
    unknown = {n: t for n, t in tensors.items() if t[0] not in BITS}
    if not unknown:
        Path(path).write_bytes(stspec.serialize(tensors, metadata))
        return
    for name, (_, shape, data) in unknown.items():
        if math.prod(shape) != len(data):
            raise ValueError(f"{name}: size mismatch")
    Path(path).write_bytes(lax_bytes(tensors, metadata))
