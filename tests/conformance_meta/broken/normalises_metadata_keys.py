"""Broken on purpose: NFC-normalises metadata keys (keys equal after it merge)."""

import sys
import unicodedata
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from _common import Loaded, strict_load

__all__ = ["load"]


def load(path: str) -> Loaded:
    tensors, metadata = strict_load(path)
    if metadata is not None:
        metadata = {unicodedata.normalize("NFC", k): v for k, v in metadata.items()}
    return tensors, metadata
