"""Broken on purpose: turns CR LF and lone CR in metadata values into LF."""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from _common import Loaded, strict_load

__all__ = ["load"]


def load(path: str) -> Loaded:
    tensors, metadata = strict_load(path)
    if metadata is not None:
        metadata = {
            key: value.replace("\r\n", "\n").replace("\r", "\n")
            for key, value in metadata.items()
        }
    return tensors, metadata
