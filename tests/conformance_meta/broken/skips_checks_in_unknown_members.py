"""Broken on purpose: does not check duplicate names or lone surrogates inside
unknown entry members (it skips them, as a tolerant reader may, but unchecked)."""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from _common import Loaded, naive_load, strict_load

import stspec

__all__ = ["load"]
FIELDS = {"dtype", "shape", "data_offsets"}


def load(path: str) -> Loaded:
    try:
        return strict_load(path)
    except stspec.SafetensorsError as exc:
        where = exc.path
        unknown = len(where) > 1 and where[0] != "__metadata__"
        if exc.rule in {"KEY-UNIQUE", "JSON-SURROGATE"} and unknown:
            unknown = where[1] not in FIELDS
        if unknown and exc.rule in {"KEY-UNIQUE", "JSON-SURROGATE"}:
            return naive_load(path)
        raise
