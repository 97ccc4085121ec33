"""Broken on purpose: a writer that checks only what the older refusal tests ask.

It refuses a tensor named __metadata__, non-string metadata and a length that
disagrees with the shape, but computes that length modulo 2^64 and rounds a
partial byte up; it writes unknown dtypes, lone surrogates (escaped), headers
of any size, and every number through a double.  It does not declare F4, so
the partial-byte refusal used to be skipped.
"""

import math
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from _common import Tensors, lax_bytes, strict_load

import stspec

CAPABILITIES = {"write_dtypes": [dt.name for dt in stspec.DTYPES if dt.name != "F4"]}
BITS = {dt.name: dt.bits for dt in stspec.DTYPES}

__all__ = ["CAPABILITIES", "load", "save"]

load = strict_load


def save(path: str, tensors: Tensors, metadata: dict[str, str] | None) -> None:
    if any(not isinstance(v, str) for v in (metadata or {}).values()):
        raise TypeError("metadata values must be strings")
    for name, (dtype, shape, data) in tensors.items():
        if name == "__metadata__":
            raise ValueError("reserved name")
        bits = math.prod(shape) * BITS.get(dtype, 128) % 2**64
        if -(-bits // 8) != len(data):
            raise ValueError(f"{name}: size mismatch")
    Path(path).write_bytes(lax_bytes(tensors, metadata))
