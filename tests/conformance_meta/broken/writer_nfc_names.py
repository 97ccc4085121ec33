"""Broken on purpose: a writer that NFC-normalises tensor names, so names equal
after normalisation merge (the last one written wins)."""

import sys
import unicodedata
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from _common import Tensors, strict_load

import stspec

__all__ = ["load", "save"]

load = strict_load


def save(path: str, tensors: Tensors, metadata: dict[str, str] | None) -> None:
    named = {unicodedata.normalize("NFC", n): t for n, t in tensors.items()}
    Path(path).write_bytes(stspec.serialize(named, metadata))
