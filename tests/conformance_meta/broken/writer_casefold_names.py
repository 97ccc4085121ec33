"""Broken on purpose: a writer that keeps tensors in a case-insensitive map
(the first spelling of a name, the last tensor given under it)."""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from _common import Tensors, strict_load

import stspec

__all__ = ["load", "save"]

load = strict_load


def save(path: str, tensors: Tensors, metadata: dict[str, str] | None) -> None:
    spelling: dict[str, str] = {}
    merged: dict[str, tuple[str, list[int], bytes]] = {}
    for name, tensor in tensors.items():
        spelling.setdefault(name.casefold(), name)
        merged[spelling[name.casefold()]] = tensor
    Path(path).write_bytes(stspec.serialize(merged, metadata))
