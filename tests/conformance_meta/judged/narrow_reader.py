"""Declares no F64 and no metadata presence, and has an unrelated bug.

It rejects F64 files and reports an absent ``__metadata__`` as ``{}`` (both
declared), and swaps the bytes of every 16-bit element (the planted bug the
property tests must still find).  No writer.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from _shared import Loaded, classify, strict_load

import stspec

CAPABILITIES = {
    "read_dtypes": [dt.name for dt in stspec.DTYPES if dt.name != "F64"],
    "metadata_presence": False,
}
SIXTEEN_BITS = {"I16", "U16", "F16", "BF16"}

__all__ = ["CAPABILITIES", "classify", "load"]


def _swapped(data: bytes) -> bytes:
    return b"".join(data[i : i + 2][::-1] for i in range(0, len(data), 2))


def load(path: str) -> Loaded:
    tensors, metadata = strict_load(path)
    if any(dtype == "F64" for dtype, _, _ in tensors.values()):
        raise ValueError("DTYPE-NAME: F64 is not supported")
    tensors = {
        name: (dtype, shape, _swapped(data) if dtype in SIXTEEN_BITS else data)
        for name, (dtype, shape, data) in tensors.items()
    }
    return tensors, metadata or {}
