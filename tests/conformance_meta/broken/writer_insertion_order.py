"""Broken on purpose: a canonical writer that keeps tensors of one dtype in the
order they were given (sorting only by dtype)."""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from _common import Tensors, reordered_bytes, strict_load

CAPABILITIES = {"canonical": True}

__all__ = ["CAPABILITIES", "load", "save"]

load = strict_load


def save(path: str, tensors: Tensors, metadata: dict[str, str] | None) -> None:
    order = {name: i for i, name in enumerate(tensors)}
    Path(path).write_bytes(reordered_bytes(tensors, metadata, order.__getitem__))
