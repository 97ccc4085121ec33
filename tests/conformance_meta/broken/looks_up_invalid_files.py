"""Broken on purpose: looks verdicts up in the corpus it ships with, judges nothing.

It rejects a file whose cheap normal form (padding off, JSON whitespace out,
the buffer alone: see ``_lookup``) the corpus holds as invalid, and loads
anything else with Python's json, checking nothing.
"""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from _common import Loaded, naive_load
from _lookup import looked_up


def load(path: str) -> Loaded:
    if looked_up(Path(path).read_bytes()) == "invalid":
        raise ValueError("invalid, says the corpus")
    return naive_load(path)
