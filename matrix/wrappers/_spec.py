"""Helpers the Python wrappers share: spec dtype names and byte access.

Imported by the wrappers as a top-level module (the runner puts this folder on
``PYTHONPATH``); it needs only the standard library.
"""

from __future__ import annotations

import json
import mmap
import struct
from typing import Any, Final

__all__ = ["DTYPES", "DTYPES_BUT_F6_FNUZ", "Tensors", "header_of", "mapped_slices"]

DTYPES: Final = (
    "BOOL", "F4", "F6_E2M3", "F6_E3M2", "U8", "I8", "F8_E5M2", "F8_E4M3",
    "F8_E8M0", "F8_E4M3FNUZ", "F8_E5M2FNUZ", "I16", "U16", "F16", "BF16",
    "I32", "U32", "F32", "C64", "F64", "I64", "U64",
)  # fmt: skip
# the 18 a table without the F6 and FNUZ F8 types reads (torch's, onnx_ir's)
DTYPES_BUT_F6_FNUZ: Final = tuple(
    d for d in DTYPES if not d.startswith("F6_") and not d.endswith("FNUZ")
)

# name -> (dtype, shape, bytes), or (dtype, shape) from a header-only validator
Tensors = dict[str, tuple[Any, ...]]


def header_of(path: str) -> dict[str, Any]:
    """The header JSON of a file another reader has already accepted."""
    with open(path, "rb") as file:
        (length,) = struct.unpack("<Q", file.read(8))
        header: dict[str, Any] = json.loads(file.read(length))
        return header


def mapped_slices(path: str, names: list[str]) -> dict[str, memoryview]:
    """Each tensor's bytes as a view of a read-only mapping of the file.

    Used only after the implementation accepted the file, for readers whose
    API gives no raw bytes of a huge tensor without copying gigabytes.
    """
    header = header_of(path)
    with open(path, "rb") as file:
        (length,) = struct.unpack("<Q", file.read(8))
        whole = memoryview(mmap.mmap(file.fileno(), 0, access=mmap.ACCESS_READ))
    base = 8 + length
    out = {}
    for name in names:
        entry = header[name]
        begin, end = entry["data_offsets"]
        out[name] = whole[base + begin : base + end]
    return out
