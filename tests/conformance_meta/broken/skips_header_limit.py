"""Broken on purpose: no 100,000,000-byte cap on N (HEADER-LIMIT)."""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from _common import forgiving

load = forgiving(["HEADER-LIMIT"])
