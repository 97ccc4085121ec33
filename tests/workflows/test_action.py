"""The Action's own step, run for real: python -m stspec_conformance.action.

What action.yml and the reusable workflow execute on GitHub is this module;
here it runs against the reference and a deliberately broken reader, and the
job summary it appends and its exit status are what an implementer's CI sees.
"""

import json
import subprocess
import sys
from pathlib import Path

import pytest

from stspec_conformance import action

REPO = Path(__file__).resolve().parents[2]
BROKEN = REPO / "tests" / "conformance_meta" / "broken" / "accepts_holes.py"
CASES = "y_prefix_smallest_file or n_layout_hole_between_tensors"


def _action(tmp_path: Path, *args: str) -> tuple[int, str, Path]:
    summary = tmp_path / "summary.md"
    summary.write_text("earlier step's summary\n", "utf-8")
    reports = tmp_path / "reports"
    done = subprocess.run(
        [sys.executable, "-m", "stspec_conformance.action", "--workers", "0",
         f"--report-dir={reports}", f"--summary={summary}", *args],
        cwd=tmp_path, capture_output=True, text=True, timeout=900, check=False,
    )  # fmt: skip
    text = summary.read_text("utf-8")
    assert text.startswith("earlier step's summary\n")  # appended, never replaced
    return done.returncode, text, reports


def test_a_conforming_reader_passes_with_its_report(tmp_path: Path) -> None:
    status, summary, reports = _action(
        tmp_path, "--impl=reference", f"--options=-k '{CASES}'"
    )
    assert status == 0, summary
    assert "## safetensors conformance: reference" in summary
    assert "| **total** | 2 | 2 |" in summary
    report = json.loads((reports / "report.json").read_text("utf-8"))
    assert report  # the uploaded artifact holds the JSON report
    assert (reports / "junit.xml").is_file()


def test_a_broken_reader_fails_and_the_summary_names_the_rule(tmp_path: Path) -> None:
    status, summary, _ = _action(tmp_path, f"--impl={BROKEN}", "--", "-k", CASES)
    assert status == 1
    assert "`LAYOUT-HOLE`" in summary
    assert "n_layout_hole_between_tensors" in summary


def test_known_failures_in_a_baseline_pass(tmp_path: Path) -> None:
    baseline = tmp_path / "known.txt"
    baseline.write_text("test_must_reject[n_layout_hole_between_tensors]\n")
    status, summary, _ = _action(
        tmp_path, f"--impl={BROKEN}", f"--baseline={baseline}", "--", "-k", CASES
    )
    assert status == 0, summary


def test_no_report_is_said_so(tmp_path: Path) -> None:
    status, summary, _ = _action(
        tmp_path, "--impl=reference", "--", "-k", "no_such_case_anywhere"
    )
    assert status == 5
    assert "No test matched the selection (pytest exit status 5)." in summary


def test_a_reader_that_cannot_start_still_gets_a_summary(tmp_path: Path) -> None:
    status, summary, _ = _action(tmp_path, "--impl=no_such_module_anywhere_xyz")
    assert status not in {0, 5}
    assert "## safetensors conformance: no_such_module_anywhere_xyz" in summary


def test_the_step_builds_one_command_and_appends_its_report(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # the step's own logic, in this process: the run itself is stood in for
    reports = tmp_path / "reports"
    commands: list[list[str]] = []

    def run(command: list[str]) -> int:
        commands.append(command)
        (reports / "report.md").write_text("## safetensors conformance: mine\n")
        return 1

    monkeypatch.setattr("stspec_conformance.action.subprocess.call", run)
    summary = tmp_path / "summary.md"
    status = action.main(
        ["--impl=mine.py", f"--report-dir={reports}", f"--summary={summary}",
         "--baseline=known.txt", "--workers=2", "--options=-x", "--", "-k", "n_"]
    )  # fmt: skip
    assert status == 1
    (command,) = commands
    assert command[1:5] == ["-m", "pytest", "--pyargs", "stspec_conformance"]
    assert {"--impl=mine.py", "--baseline=known.txt"} <= set(command)
    assert f"--report-json={reports / 'report.json'}" in command
    assert command[-5:] == ["-n", "2", "-x", "-k", "n_"]
    assert summary.read_text("utf-8") == "## safetensors conformance: mine\n"
    # a run that wrote no report still gets a summary saying why
    assert "exit status 4" in action.summary_text(reports / "none.md", 4, "mine.py")
