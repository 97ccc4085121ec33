"""Broken on purpose: loads only files the corpus it ships with holds as valid.

It loads (with Python's json, checking nothing) a file whose cheap normal
form (padding off, JSON whitespace out, the buffer alone: see ``_lookup``)
the corpus holds as valid or tolerated, and the smoke gate's file, and
rejects everything else unjudged.
"""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from _common import Loaded, naive_load
from _lookup import looked_up


def load(path: str) -> Loaded:
    data = Path(path).read_bytes()
    if b'"weight"' in data or looked_up(data) in {"valid", "tolerated"}:
        return naive_load(path)
    raise ValueError("not a file the corpus holds as valid")
