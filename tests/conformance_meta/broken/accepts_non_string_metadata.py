"""Broken on purpose: accepts non-string metadata values (META-STRING)."""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from _common import forgiving

load = forgiving(["META-STRING"])
