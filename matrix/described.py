"""What a row's last run recorded of its implementation: the ``--describe`` answer."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from pathlib import Path

__all__ = ["described"]


def described(results: Path, name: str) -> dict[str, Any] | None:
    """What row ``name`` described of itself in ``results``/NAME.json.

    None when there is no run whose set-up succeeded; empty when the run
    recorded no description.
    """
    path = results / f"{name}.json"
    if not path.is_file():
        return None
    data = json.loads(path.read_text("utf-8"))
    if data.get("setup_error"):
        return None
    return dict((data.get("implementation") or {}).get("described") or {})
