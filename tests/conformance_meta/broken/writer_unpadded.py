"""Broken on purpose: a writer claiming the canonical-writer class that drops the
0x20 header padding (valid, but not canonical)."""

import struct
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from _common import strict_load

import stspec

load = strict_load
CAPABILITIES = {"canonical": True}


def save(
    path: str,
    tensors: dict[str, tuple[str, list[int], bytes]],
    metadata: dict[str, str] | None,
) -> None:
    data = stspec.serialize(tensors, metadata)
    (n,) = struct.unpack("<Q", data[:8])
    header = data[8 : 8 + n].rstrip(b" ")
    Path(path).write_bytes(struct.pack("<Q", len(header)) + header + data[8 + n :])
