"""A reader whose writer refuses every request (so its "refusals" mean nothing)."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from _shared import Tensors, classify, strict_load

__all__ = ["classify", "load", "save"]

load = strict_load


def save(path: str, tensors: Tensors, metadata: dict[str, str] | None) -> None:
    del metadata
    raise ValueError(f"this build cannot write ({path}, {len(tensors)} tensors)")
