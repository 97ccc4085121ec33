"""Broken on purpose: accepts gaps between tensors (LAYOUT-HOLE)."""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from _common import forgiving

load = forgiving(["LAYOUT-HOLE"])
