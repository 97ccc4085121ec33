"""One fresh, non-editable install per test session: the Quick-start user's.

The README's Quick start and the GitHub Action (by default) install
``safetensors-spec[conformance]`` from a copy of the repository's files into a
fresh environment.  :func:`fresh_install` does that once per session by
running action.yml's own install step (:mod:`composite`) in a new venv, from a
copy of the checkout's files (the action's own checkout); every test and every
xdist worker of the session shares it (a file lock), so the cost is one wheel
build and one install.
"""

from __future__ import annotations

import fcntl
import os
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from composite import Runner, clean_env

if TYPE_CHECKING:
    import pytest

__all__ = ["INSTALL_STEP", "Installed", "fresh_install"]

REPO = Path(__file__).resolve().parents[1]
INSTALL_STEP = "Install safetensors-spec[conformance]"
# what a checkout of the action holds that building the package reads
_SOURCES = ("reference", "conformance", "corpus", "spec")
_FILES = ("action.yml", "setup.py", "pyproject.toml", "README.md", "LICENSE",
          "CHANGELOG.md", "MANIFEST.in")  # fmt: skip


@dataclass(frozen=True)
class Installed:
    """A fresh venv holding the package, and the job environment around it."""

    root: Path
    venv: Path
    action: Path  # the copy's action.yml: github.action_path is its folder
    env: dict[str, str]

    def bin(self, name: str) -> str:
        """A program of the venv."""
        return str(self.venv / "bin" / name)


def _session_dir(factory: pytest.TempPathFactory) -> Path:
    # xdist: basetemp is .../pytest-N/popen-gwK, and pytest-N is the session's
    base = factory.getbasetemp()
    return base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base


def _copy_of_checkout(target: Path) -> None:
    ignore = shutil.ignore_patterns("__pycache__", "*.egg-info", "build", "*.pyc")
    for name in _SOURCES:
        shutil.copytree(REPO / name, target / name, ignore=ignore)
    for name in _FILES:
        shutil.copy2(REPO / name, target / name)


def fresh_install(factory: pytest.TempPathFactory) -> Installed:
    """The session's fresh install (made on first use by action.yml's step)."""
    root = _session_dir(factory) / "fresh-install"
    root.mkdir(exist_ok=True)
    venv = root / "venv"
    installed = Installed(root, venv, root / "action" / "action.yml", clean_env(venv))
    with (root / ".lock").open("w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        status = root / "status"
        if not status.exists():
            _copy_of_checkout(root / "action")
            subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
            run = Runner(
                installed.action, {"impl": "reference"}, installed.env,
                workspace=root, temp=root / "runner",
            ).run({INSTALL_STEP})  # fmt: skip
            status.write_text(str(run.statuses.get(INSTALL_STEP, -1)))
    assert status.read_text() == "0", f"action.yml's install step failed: {root}"
    return installed
