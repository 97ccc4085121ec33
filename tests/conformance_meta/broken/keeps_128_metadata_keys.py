"""Broken on purpose: keeps (and checks) only the first 128 metadata keys."""

import json
import struct
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from _common import Loaded, naive_load, strict_load

import stspec

__all__ = ["load"]
KEPT = 128


def _first(metadata: dict[str, str] | None) -> dict[str, str] | None:
    return None if metadata is None else dict(list(metadata.items())[:KEPT])


def _metadata_keys(path: str) -> list[str]:
    data = Path(path).read_bytes()
    (n,) = struct.unpack("<Q", data[:8])
    members = json.loads(data[8 : 8 + n], object_pairs_hook=list)
    for name, value in members:
        if name == "__metadata__" and isinstance(value, list):
            return [key for key, _ in value]
    return []


def load(path: str) -> Loaded:
    try:
        tensors, metadata = strict_load(path)
    except stspec.SafetensorsError as exc:
        where = exc.path
        if exc.rule in {"META-STRING", "KEY-UNIQUE"} and where[:1] == ("__metadata__",):
            keys = _metadata_keys(path)
            if len(where) > 1 and where[1] in keys and keys.index(where[1]) >= KEPT:
                tensors, metadata = naive_load(path)
                return tensors, _first(metadata)
        raise
    return tensors, _first(metadata)
