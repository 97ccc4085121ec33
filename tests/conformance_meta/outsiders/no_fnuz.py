"""Strict, but knows no FNUZ dtypes (cryptotensors 0.2.3) and declares all."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parents[1] / "judged"))
from _shared import Loaded, strict_load


def load(path: str) -> Loaded:
    tensors, metadata = strict_load(path)
    for dtype, _, _ in tensors.values():
        if dtype.endswith("FNUZ"):
            raise ValueError(f"unknown variant `{dtype}`")
    return tensors, metadata
