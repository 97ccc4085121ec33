"""Shared fixtures: a destination with old content, and both temporary-file paths."""

from __future__ import annotations

from typing import TYPE_CHECKING

import pytest

from stspec.writer import atomic as _atomic
from writer.writes import OLD

if TYPE_CHECKING:
    from pathlib import Path


@pytest.fixture
def destination(tmp_path: Path) -> Path:
    path = tmp_path / "model.safetensors"
    path.write_bytes(OLD)
    return path


@pytest.fixture(params=["unnamed", "named"])
def temporary(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    """Run the test with O_TMPFILE (this Linux has it) and with a named file."""
    if request.param == "named":
        monkeypatch.setattr(_atomic, "_O_TMPFILE", 0)
    return str(request.param)
