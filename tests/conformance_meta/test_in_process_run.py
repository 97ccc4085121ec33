"""The suite run inside this process, on a few cases of each of its test modules.

The slow tier runs the suite as users do, in a subprocess per run.  These two
small runs keep the suite's own modules (the plugin, its fixtures, checks,
properties, reports and baselines) imported by the fast tier (tests/reached.py).
The plugin puts the hypothesis profile back when a run ends, so runs in one
process leave each other alone.
"""

from __future__ import annotations

import json
import os
from typing import TYPE_CHECKING

import pytest
from _suite_runner import BROKEN, SUITE

if TYPE_CHECKING:
    from pathlib import Path

# one or two cases of each of the suite's test modules, test_large left out
SELECT = (
    "y_prefix_smallest_file or n_layout_hole_between_tensors or i_text_leading_space"
    " or test_writer_output_valid_and_equal or test_writer_refuses_reserved_name"
    " or LAYOUT-HOLE/gap or test_reference_written_file_loads_equal"
)


def _run(impl: str, tmp_path: Path, *args: str) -> tuple[int, dict[str, object]]:
    report = tmp_path / "report.json"
    status = pytest.main(
        [
            str(SUITE),
            f"--impl={impl}",
            "--in-process",
            "-k",
            SELECT,
            f"--report-json={report}",
            "-p",
            "no:cacheprovider",
            "-q",
            *args,
        ]
    )
    return int(status), json.loads(report.read_text(encoding="utf-8"))


@pytest.fixture(autouse=True)
def _no_stspec_settings(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    for name in [name for name in os.environ if name.startswith("STSPEC_")]:
        monkeypatch.delenv(name)
    monkeypatch.chdir(tmp_path)


def test_the_reference_passes_and_every_report_is_written(tmp_path: Path) -> None:
    md = tmp_path / "report.md"
    status, report = _run("reference", tmp_path, "--check-rules", f"--report-md={md}")
    assert status == pytest.ExitCode.OK
    tests = report["tests"]
    assert isinstance(tests, list)
    functions = {entry["test"].partition("[")[0] for entry in tests}
    assert {"test_must_accept", "test_must_reject", "test_tolerated"} <= functions
    assert {
        "test_single_fault_rejected",
        "test_writer_output_valid_and_equal",
    } <= functions
    assert {entry["result"] for entry in tests} == {"passed"}
    assert "reference" in md.read_text(encoding="utf-8")


def test_a_broken_reader_fails_its_case_and_gets_a_baseline(tmp_path: Path) -> None:
    baseline = tmp_path / "baseline.txt"
    status, report = _run(
        str(BROKEN / "accepts_holes.py"), tmp_path, f"--write-baseline={baseline}"
    )
    assert status == pytest.ExitCode.TESTS_FAILED
    tests = report["tests"]
    assert isinstance(tests, list)
    failed = {entry["test"] for entry in tests if entry["result"] == "failed"}
    assert "test_must_reject[n_layout_hole_between_tensors]" in failed
    assert "test_must_reject[n_layout_hole_between_tensors]" in baseline.read_text(
        encoding="utf-8"
    )
