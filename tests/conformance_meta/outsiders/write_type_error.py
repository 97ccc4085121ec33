"""Strict; its writer refuses a non-string metadata value with TypeError.

As HF 0.4.5's and cryptotensors' bindings do (``argument 'metadata': 'int'
object cannot be converted to 'PyString'``), while a TypeError from the
reader would be a bug: REJECTS covers reading, WRITE_REJECTS writing.
"""

from __future__ import annotations

import sys
from pathlib import Path

import stspec

sys.path.insert(0, str(Path(__file__).parents[1] / "judged"))
sys.path.insert(0, str(Path(__file__).parents[1] / "impls"))
from _cases import is_case
from _shared import Loaded, Tensors, strict_load, strict_save

REJECTS = stspec.SafetensorsError
WRITE_REJECTS = (stspec.SafetensorsError, TypeError)


def load(path: str) -> Loaded:
    if is_case(path, "n_prefix_file_empty.safetensors"):
        raise TypeError("a reader bug")  # not in REJECTS: a crash
    return strict_load(path)


def save(path: str, tensors: Tensors, metadata: dict[str, str] | None) -> None:
    if metadata and not all(isinstance(v, str) for v in metadata.values()):
        raise TypeError("argument 'metadata': 'int' object cannot be converted")
    strict_save(path, tensors, metadata)
