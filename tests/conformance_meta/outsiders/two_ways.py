"""Fails valid files in two ways: crashes on some, invents metadata for others."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parents[1] / "judged"))
from _shared import Loaded, strict_load


def load(path: str) -> Loaded:
    tensors, metadata = strict_load(path)
    if metadata is not None and "crlf" in metadata:
        # the property's fixed edge example loads right: a failing explicit
        # example would end the test before any random file is tried
        return tensors, metadata
    if Path(path).stat().st_size % 16 == 0:
        raise AttributeError("'NoneType' object has no attribute 'shape'")
    return tensors, {"invented": "1"}
