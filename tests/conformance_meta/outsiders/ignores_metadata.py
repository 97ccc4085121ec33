"""Strict, never reports ``__metadata__``, and declares it (runai-style)."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from loses_metadata import load

CAPABILITIES = {"metadata": False}

__all__ = ["CAPABILITIES", "load"]
