"""A writer written from SPEC.md alone: it builds the header, then checks it.

It makes the JSON text, encodes it, pads it and assembles the file in
memory (four copies of the header, as ordinary code does), and only then
refuses a header over 100,000,000 bytes.  Refusing the over-limit request
costs it about 400 MB; the writer allowance (16 bytes per header byte) lets
it.  ``WASTE`` (set by a stand-in module) makes it also hold that many more
copies, far beyond any fair allowance.
"""

from __future__ import annotations

import json
import struct
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from _shared import Tensors, classify, strict_load

import stspec

__all__ = ["classify", "load", "save"]

load = strict_load
WASTE = 0


class RefusedError(ValueError):
    """The request cannot be written as a valid file."""


def save(path: str, tensors: Tensors, metadata: dict[str, str] | None) -> None:
    header: dict[str, object] = {}
    if metadata is not None:
        header["__metadata__"] = metadata
    offset, chunks = 0, []
    for name, (dtype, shape, data) in tensors.items():
        header[name] = {
            "dtype": dtype,
            "shape": list(shape),
            "data_offsets": [offset, offset + len(data)],
        }
        offset += len(data)
        chunks.append(bytes(data))
    text = json.dumps(header)
    encoded = text.encode("utf-8")
    padded = encoded + b" " * (-len(encoded) % 8)
    whole = struct.pack("<Q", len(padded)) + padded
    held = [bytearray(whole) for _ in range(WASTE)]
    if len(padded) > stspec.MAX_HEADER_SIZE:
        del held
        msg = f"the header would be {len(padded):,} bytes (HEADER-LIMIT)"
        raise RefusedError(msg)
    stspec.write(path, tensors, metadata)
