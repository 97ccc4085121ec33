"""Broken on purpose: duplicate names are not detected, the last one wins (KEY-UNIQUE)."""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from _common import forgiving  # noqa: E402

load = forgiving(["KEY-UNIQUE"])
