"""The densest valid header runs only with --dense-header (about a minute of CPU)."""

from __future__ import annotations

import subprocess
import sys

from _suite_runner import ROOT, SUITE


def _collected(*args: str) -> str:
    process = subprocess.run(
        [sys.executable, "-m", "pytest", str(SUITE), "--impl=reference",
         "--collect-only", "-q", "-p", "no:cacheprovider", "-k", "dense", *args],
        cwd=ROOT, capture_output=True, text=True, timeout=300, check=False,
    )  # fmt: skip
    return process.stdout


def test_the_dense_header_case_runs_only_on_request() -> None:
    case = "test_must_accept[y_layout_dense_header_at_limit]"
    assert case not in _collected()
    assert case in _collected("--dense-header")
