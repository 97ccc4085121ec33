"""A writer that checks its input as the reference does, then writes ``{}``.

Every file it writes is valid and it refuses every request no valid file can
express, so it meets WRITE-VALID and WRITE-RESERVED to the letter; only
WRITE-FIDELITY (the file holds what the writer was given) fails it.
"""

from __future__ import annotations

import sys
from pathlib import Path

import stspec

sys.path.insert(0, str(Path(__file__).parent))
from _shared import Tensors, classify, strict_load

__all__ = ["REJECTS", "classify", "load", "save"]

REJECTS = (stspec.SafetensorsError, TypeError, ValueError)
load = strict_load


def save(path: str, tensors: Tensors, metadata: dict[str, str] | None) -> None:
    stspec.serialize(tensors, metadata)  # refuses what the reference refuses
    Path(path).write_bytes(stspec.serialize({}))
