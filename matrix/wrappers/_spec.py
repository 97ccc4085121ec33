"""Helpers the Python wrappers share: spec dtype names and byte access.

Imported by the wrappers as a top-level module (the runner puts this folder on
``PYTHONPATH``); it needs only the standard library.
"""

from __future__ import annotations

import json
import mmap
import struct
from typing import Any, Final

__all__ = ["DTYPES", "Tensors", "header_of", "mapped_slices", "unread_bytes"]

DTYPES: Final = (
    "BOOL", "F4", "F6_E2M3", "F6_E3M2", "U8", "I8", "F8_E5M2", "F8_E4M3",
    "F8_E8M0", "F8_E4M3FNUZ", "F8_E5M2FNUZ", "I16", "U16", "F16", "BF16",
    "I32", "U32", "F32", "C64", "F64", "I64", "U64",
)  # fmt: skip

# name -> (dtype, shape, bytes).  A header-only validator gives unread_bytes().
Tensors = dict[str, tuple[str, list[int], Any]]


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


def unread_bytes(offsets: object) -> memoryview:
    """A stand-in for the bytes a header-only validator never reads.

    The suite compares no bytes for a declared ``header_only`` reader, but a
    Python adapter must return a buffer, whose length is taken as the tensor's
    byte count.  This one has the length the header's ``data_offsets`` give,
    and is an untouched anonymous mapping (a 4 GiB tensor costs no memory).
    """
    try:
        begin, end = (int(x) for x in offsets)  # type: ignore[attr-defined]
    except (TypeError, ValueError):
        return memoryview(b"")
    size = max(0, end - begin)
    try:
        return memoryview(mmap.mmap(-1, size) if size else b"")
    except (OSError, OverflowError, ValueError):
        # offsets no reader could honour: the validator's verdict stands, the
        # length just cannot be shown (never an exception: that would reject)
        return memoryview(b"")
