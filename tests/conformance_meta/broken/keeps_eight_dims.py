"""Broken on purpose: keeps a shape in a fixed dims[8], dropping the rest."""

import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).parent))
from _common import Loaded, rewrite_header, strict_load

__all__ = ["load"]


def _eight(header: dict[str, Any]) -> dict[str, Any]:
    for name, entry in header.items():
        if name != "__metadata__":
            entry["shape"] = entry["shape"][:8]
    return header


def load(path: str) -> Loaded:
    return strict_load(rewrite_header(Path(path).read_bytes(), _eight))
