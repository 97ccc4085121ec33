"""Broken on purpose: metadata values that are not strings are accepted (META-STRING)."""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from _common import forgiving  # noqa: E402

load = forgiving(["META-STRING"])
