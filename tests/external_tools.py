"""External tools the tests drive: found on PATH or beside this interpreter.

A missing tool fails the test under CI (``.ci/run`` installs every one of them)
and skips it elsewhere, with the command that installs it.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

__all__ = ["BIN", "chromium", "tool"]

BIN = Path(sys.executable).parent
CHROMIUM_FLAGS = (
    "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
    "--no-first-run", "--disable-background-networking",
    "--disable-component-update", "--disable-sync",
)  # fmt: skip


def tool(install: str, *names: str) -> str:
    """Return the first of ``names`` found, or fail/skip saying ``install``."""
    for name in names:
        found = shutil.which(name) or shutil.which(name, path=str(BIN))
        if found is not None:
            return found
    message = f"{names[0]} is not installed ({install})"
    if os.environ.get("CI"):
        pytest.fail(message)
    pytest.skip(message)


def chromium(page: Path, profile: Path, *args: str) -> str:
    """Return what headless Chromium prints for ``page`` given ``args``."""
    program = tool(
        "Debian's chromium: as root, `apt-get install chromium`; .ci/run installs it",
        "chromium",
        "chromium-browser",
    )
    done = subprocess.run(
        [program, *CHROMIUM_FLAGS, f"--user-data-dir={profile}", *args, page.as_uri()],
        capture_output=True, text=True, timeout=120, check=True,
    )  # fmt: skip
    return done.stdout
