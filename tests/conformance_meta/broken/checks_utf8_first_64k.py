"""Broken on purpose: checks UTF-8 only in the first 64 KiB of the header."""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from _common import Loaded, naive_load, strict_load

import stspec

__all__ = ["load"]


def load(path: str) -> Loaded:
    try:
        return strict_load(path)
    except stspec.SafetensorsError as exc:
        if exc.rule == "HEADER-UTF8" and (exc.offset or 0) >= 8 + 65_536:
            return naive_load(path, errors="replace")
        raise
