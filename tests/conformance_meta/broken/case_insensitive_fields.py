"""Broken on purpose: matches entry field names case-insensitively, the last
match winning (Go's encoding/json), so an unknown "DTYPE" overrides dtype."""

import json
import struct
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).parent))
from _common import Loaded, naive_load, strict_load

import stspec

__all__ = ["load"]


def _fields(path: str) -> dict[str, dict[str, Any]]:
    """Each entry's fields as a case-insensitive decoder sees them."""
    data = Path(path).read_bytes()
    (n,) = struct.unpack("<Q", data[:8])
    members = json.loads(data[8 : 8 + n], object_pairs_hook=list)
    return {
        name: {key.lower(): value for key, value in entry}
        for name, entry in members
        if name != "__metadata__" and isinstance(entry, list)
    }


def load(path: str) -> Loaded:
    try:
        tensors, metadata = strict_load(path)
    except stspec.SafetensorsError as exc:
        if exc.rule != "ENTRY-UNKNOWN":  # tolerated: unknown members are ignored
            raise
        tensors, metadata = naive_load(path)
    fields = _fields(path)
    return {
        name: (str(fields[name]["dtype"]), list(fields[name]["shape"]), data)
        for name, (_, _, data) in tensors.items()
    }, metadata
