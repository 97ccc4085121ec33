"""Strict, but it never reports ``__metadata__`` (and does not declare so)."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parents[1] / "judged"))
from _shared import Loaded, strict_load


def load(path: str) -> Loaded:
    tensors, _ = strict_load(path)
    return tensors, None
