"""Broken on purpose: keeps the last of duplicate names (KEY-UNIQUE)."""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from _common import forgiving

load = forgiving(["KEY-UNIQUE"])
