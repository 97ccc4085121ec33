"""What the summary and the reports say: wrong verdicts apart from everything else,
outcome classes, not-applicable tests, a loud warning, bounded failure output."""

from __future__ import annotations

from typing import TYPE_CHECKING

from _suite_runner import BROKEN, run_suite

if TYPE_CHECKING:
    from pathlib import Path

from pathlib import Path as _Path

JUDGED = _Path(__file__).resolve().parent / "judged"


def test_rules_violated_lists_only_wrong_verdicts(tmp_path: Path) -> None:
    # rejects every file naming SIZE-MATCH: the n_ cases are right verdicts
    # (misclassified under --check-rules unless they break SIZE-MATCH); only
    # the rejected valid file violates its rules
    md = tmp_path / "report.md"
    run = run_suite(
        str(JUDGED / "rejects_everything.py"),
        "--check-rules",
        "--no-smoke-gate",  # it would stop at the smoke gate
        f"--report-md={md}",
        "-k",
        "n_layout_hole_between_tensors or n_prefix_file_empty or "
        "y_prefix_smallest_file or SIZE-MATCH/shape-disagrees",
        tmp_path=tmp_path,
    )
    assert run.returncode == 1, run.output[-3000:]
    summary = run.report["summary"]
    assert summary["rules_violated"] == {
        "FILE-PREFIX": ["y_prefix_smallest_file"],
        "HEADER-BOUNDS": ["y_prefix_smallest_file"],
    }
    assert summary["rules_misclassified"] == {
        "FILE-PREFIX": ["n_prefix_file_empty"],
        "LAYOUT-HOLE": ["n_layout_hole_between_tensors"],
    }
    assert run.results["test_single_fault_rejected[SIZE-MATCH/shape-disagrees]"] == (
        "passed"
    )
    assert summary["failures"] == {"misclassified": 2, "rejected-valid": 1}
    assert summary["outcomes"] == {"rejected": 4}
    hole = run.test("test_must_reject[n_layout_hole_between_tensors]")
    assert hole["failure"] == "misclassified"
    # and the run says loudly that nothing was accepted
    assert "WARNING: the implementation rejected every valid file" in run.output
    assert summary["warnings"]
    text = md.read_text()
    assert "> **Warning:** the implementation rejected every valid file" in text
    assert "### Misclassified (--check-rules)" in text


def test_not_applicable_tests_are_counted_and_shown(tmp_path: Path) -> None:
    # narrow_reader declares no writer: 22 + 9 writer tests are not applicable
    run = run_suite(
        str(JUDGED / "narrow_reader.py"),
        "-k",
        "test_writer or y_prefix_smallest_file",
        tmp_path=tmp_path,
    )
    assert run.returncode == 0, run.output[-3000:]
    groups = run.report["summary"]["groups"]
    writer = groups["writer"]
    assert writer["total"] == 0
    assert (
        writer["not_applicable"]
        == len([t for t in run.report["tests"] if t["group"] == "writer"])
        > 20
    )
    assert run.report["summary"]["total"]["not_applicable"] == writer["not_applicable"]
    assert (
        run.report["summary"]["outcomes"]["not-applicable"]
        == (writer["not_applicable"])
    )
    assert f"not-applicable={writer['not_applicable']}" in run.output
    entry = run.test("test_writer_dtype[F32]")
    assert entry["result"] == "not-applicable"
    assert entry["message"].startswith("not applicable: ")
    assert run.report["implementation"]["capabilities"]["metadata_presence"] is False


def test_hypothesis_failure_reports_stay_short(tmp_path: Path) -> None:
    # a 200 kB nesting bomb used to be printed whole in the falsifying example
    run = run_suite(
        str(BROKEN / "recursion_on_nesting.py"),
        "-k",
        "JSON-DEPTH/deep-nesting",
        tmp_path=tmp_path,
    )
    assert run.returncode == 1, run.output[-3000:]
    assert (
        "exception"
        in run.test("test_single_fault_rejected[JSON-DEPTH/deep-nesting]")["message"]
    )
    assert max(len(line) for line in run.output.splitlines()) < 2000


def test_baseline_entries_for_not_applicable_tests_are_warned_about(
    tmp_path: Path,
) -> None:
    baseline = tmp_path / "baseline.txt"
    baseline.write_text("# the writer fails\ntest_writer_dtype[F32]\n")
    run = run_suite(
        str(JUDGED / "narrow_reader.py"),
        f"--baseline={baseline}",
        "-k",
        "test_writer_dtype and F32",
        tmp_path=tmp_path,
    )
    assert run.returncode == 0, run.output[-3000:]
    assert run.results == {"test_writer_dtype[F32]": "not-applicable"}
    assert "remove them: test_writer_dtype[F32]" in run.output
    assert any("not applicable" in w for w in run.report["summary"]["warnings"])
