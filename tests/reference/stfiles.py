"""Build small safetensors files byte by byte for the reader's tests."""

from __future__ import annotations

import json
import struct


def file_of(header: bytes | str, data: bytes = b"") -> bytes:
    """A file whose header is exactly ``header`` (no padding added)."""
    raw = header.encode("utf-8") if isinstance(header, str) else header
    return struct.pack("<Q", len(raw)) + raw + data


def entry(dtype: str, shape: list[int], begin: int, end: int) -> dict[str, object]:
    return {"dtype": dtype, "shape": shape, "data_offsets": [begin, end]}


def file_from(members: dict[str, object], data: bytes = b"") -> bytes:
    """A file whose header is the compact JSON of ``members``."""
    return file_of(json.dumps(members, separators=(",", ":")), data)


U8_PAIR = file_from({"a": entry("U8", [2], 0, 2), "b": entry("U8", [1], 2, 3)}, b"xyz")
