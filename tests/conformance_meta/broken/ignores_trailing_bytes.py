"""Broken on purpose: bytes after the last tensor are ignored (LAYOUT-TRAILING)."""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from _common import forgiving

load = forgiving(["LAYOUT-TRAILING"])
