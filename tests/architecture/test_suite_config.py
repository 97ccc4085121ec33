"""The suite's pytest configuration: a test that cannot run is an error.

A parametrization over nothing (a folder that does not exist, a list that
came out empty) would otherwise be one silently skipped test.  pyproject.toml
sets ``empty_parameter_set_mark = "fail_at_collect"``; this runs pytest with
that configuration on such a test.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

TESTS = """
from pathlib import Path

import pytest

@pytest.mark.parametrize("path", sorted(Path("missing").glob("*")))
def test_over_nothing(path):
    pass

@pytest.mark.parametrize("n", [1, 2])
def test_over_something(n):
    assert n
"""


def _pytest(tmp_path: Path, *options: str) -> subprocess.CompletedProcess[str]:
    (tmp_path / "test_params.py").write_text(TESTS, encoding="utf-8")
    return subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            "-c",
            str(ROOT / "pyproject.toml"),
            "--rootdir",
            str(tmp_path),
            "-p",
            "no:xdist",
            "-q",
            *options,
            str(tmp_path / "test_params.py"),
        ],
        capture_output=True,
        text=True,
        check=False,
        timeout=300,
        cwd=tmp_path,
    )


def test_an_empty_parametrization_fails_at_collection(tmp_path: Path) -> None:
    done = _pytest(tmp_path)
    assert done.returncode != 0, done.stdout
    assert "Empty parameter set in 'test_over_nothing'" in done.stdout, done.stdout
    assert "passed" not in done.stdout.splitlines()[-1]


def test_without_the_setting_it_would_be_skipped(tmp_path: Path) -> None:
    # The same file under pytest's default: what the setting prevents.
    done = _pytest(tmp_path, "-o", "empty_parameter_set_mark=skip")
    assert done.returncode == 0, done.stdout
    assert "2 passed, 1 skipped" in done.stdout.splitlines()[-1]
