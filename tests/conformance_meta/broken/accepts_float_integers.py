"""Broken on purpose: integers written as floats (4.0, 1e0) are accepted (NUM-INTEGER)."""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from _common import forgiving  # noqa: E402

load = forgiving(["NUM-INTEGER"])
