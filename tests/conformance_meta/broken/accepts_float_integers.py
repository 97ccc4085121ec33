"""Broken on purpose: accepts integers written 4.0 or 1e0 (NUM-INTEGER)."""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from _common import forgiving

load = forgiving(["NUM-INTEGER"])
