"""Strict, but answers dimensions as ``True`` (for 1) and strings."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).parents[1] / "judged"))
from _shared import strict_load


def load(path: str) -> tuple[dict[str, Any], dict[str, str] | None]:
    tensors, metadata = strict_load(path)
    loose = {
        name: (dtype, [True if d == 1 else str(d) for d in shape], data)
        for name, (dtype, shape, data) in tensors.items()
    }
    return loose, metadata
