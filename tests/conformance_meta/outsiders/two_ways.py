"""Fails valid files in two ways: crashes on some, invents metadata for others."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parents[1] / "judged"))
from _shared import Loaded, strict_load


def load(path: str) -> Loaded:
    tensors, _ = strict_load(path)
    if Path(path).stat().st_size % 16 == 0:
        raise AttributeError("'NoneType' object has no attribute 'shape'")
    return tensors, {"invented": "1"}
