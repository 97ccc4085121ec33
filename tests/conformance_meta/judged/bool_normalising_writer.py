"""A writer that stores BOOL elements as 0x00/0x01 (what SPEC 6.1 allows)."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from _shared import Tensors, classify, strict_load, strict_save

__all__ = ["classify", "load", "save"]

load = strict_load


def save(path: str, tensors: Tensors, metadata: dict[str, str] | None) -> None:
    normalised = {
        name: (dtype, shape, bytes(b != 0 for b in data) if dtype == "BOOL" else data)
        for name, (dtype, shape, data) in tensors.items()
    }
    strict_save(path, normalised, metadata)
