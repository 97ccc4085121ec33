"""Accepts every file, and appends a line per load to $COUNT_LOADS_TO."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any


def load(path: str) -> tuple[dict[str, Any], dict[str, str] | None]:
    with Path(os.environ["COUNT_LOADS_TO"]).open("a", encoding="utf-8") as count:
        count.write(path + "\n")
    return {}, None
