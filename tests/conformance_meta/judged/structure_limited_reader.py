"""A reader with the structural limits SPEC 1.6 allows, declared.

It holds at most 8,192 tensors with names of at most 1,024 UTF-8 bytes, and
dimensions in a signed 32-bit integer (as modelvet, and jlama's int shapes);
larger files are refused as unsupported.  A stand-in module that lowers
``MAX_TENSORS`` below the declaration refuses files the declaration does not
cover, which fails.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from _shared import Loaded, strict_load

__all__ = ["CAPABILITIES", "load"]

DIM_LIMIT = 2**31 - 1
CAPABILITIES = {
    "max_tensors": 8192,
    "max_name_length": 1024,
    "max_dimension": DIM_LIMIT,
}
# a stand-in module lowers this below the declared 8,192
MAX_TENSORS = 8192


class UnsupportedError(ValueError):
    """The file is beyond this reader's limits (not invalid)."""


def load(path: str) -> Loaded:
    tensors, metadata = strict_load(path)
    if len(tensors) > MAX_TENSORS:
        raise UnsupportedError(f"unsupported: {len(tensors)} tensors")
    for name, (_, shape, _) in tensors.items():
        if len(name.encode("utf-8", "surrogatepass")) > CAPABILITIES["max_name_length"]:
            raise UnsupportedError("unsupported: a name longer than 1,024 bytes")
        if any(dim > DIM_LIMIT for dim in shape):
            raise UnsupportedError("unsupported: a dimension above 2^31 - 1")
    return tensors, metadata
