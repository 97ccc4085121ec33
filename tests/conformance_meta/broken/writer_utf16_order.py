"""Broken on purpose: a canonical writer that sorts names by UTF-16 code units
(JavaScript's default sort), not by code point."""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from _common import Tensors, reordered_bytes, strict_load

CAPABILITIES = {"canonical": True}

__all__ = ["CAPABILITIES", "load", "save"]

load = strict_load


def _utf16(name: str) -> bytes:
    return name.encode("utf-16-be", "surrogatepass")


def save(path: str, tensors: Tensors, metadata: dict[str, str] | None) -> None:
    Path(path).write_bytes(reordered_bytes(tensors, metadata, _utf16))
