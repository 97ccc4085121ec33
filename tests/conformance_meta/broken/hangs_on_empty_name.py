"""Broken on purpose: never returns when a tensor is named "" (a hang)."""

import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from _common import Loaded, strict_load


def load(path: str) -> Loaded:
    tensors, metadata = strict_load(path)
    if "" in tensors:
        time.sleep(3600)
    return tensors, metadata
