"""Broken on purpose: does not declare C64, and does not size-check it either.

It loads a C64 tensor's bytes as its offsets give them, whatever the shape
says (SIZE-MATCH): declaring no C64 must not excuse accepting such a file.
"""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from _common import naive_load, strict_load

import stspec

CAPABILITIES = {"read_dtypes": [dt.name for dt in stspec.DTYPES if dt.name != "C64"]}

__all__ = ["CAPABILITIES", "load"]


def _unchecked_size(path: str, exc: stspec.SafetensorsError) -> bool:
    if exc.rule != "SIZE-MATCH" or not exc.path:
        return False
    tensors, _ = naive_load(path)
    return tensors.get(str(exc.path[0]), ("",))[0] == "C64"


def load(path: str):  # type: ignore[no-untyped-def]
    try:
        return strict_load(path)
    except stspec.SafetensorsError as exc:
        if _unchecked_size(path, exc):
            return naive_load(path)
        raise
