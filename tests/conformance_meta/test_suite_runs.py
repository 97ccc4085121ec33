"""The suite passes on the reference, on HF with its baseline, on the Node
example with its baseline; and its options, reports and errors behave.

The whole runs on the reference and on HF are made once (``shared_run``) and
read by every test here that asks about them."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from _suite_runner import NODE_EXAMPLE, ROOT, SUITE, Run, run_suite, shared_run

from stspec_conformance.adapters import ImplError, resolve

BASELINES = SUITE / "baselines"
HF_BASELINE = BASELINES / "safetensors-0.8.0.txt"


def _reference(factory: pytest.TempPathFactory) -> Run:
    """The whole suite on the reference, with rule checks."""
    args = ("--check-rules", "--case-timeout=60")
    return shared_run("reference", *args, tmp_path_factory=factory)


def _hf(factory: pytest.TempPathFactory) -> Run:
    """The whole suite on HF 0.8.0, with its baseline."""
    pytest.importorskip("safetensors")
    args = ("-n", "2", f"--baseline={HF_BASELINE}", "--case-timeout=60")
    return shared_run("safetensors", *args, tmp_path_factory=factory)


def test_reference_passes_everything_with_rule_checks(
    tmp_path_factory: pytest.TempPathFactory,
) -> None:
    run = _reference(tmp_path_factory)
    assert run.returncode == 0, run.output[-4000:]
    summary = run.report["summary"]
    assert summary["total"]["passed"] == summary["total"]["total"] > 400
    assert summary["rules_violated"] == {}
    assert "safetensors conformance: reference" in run.output
    assert run.report["implementation"]["kind"] == "isolated"
    assert "SCORE" in run.output


def test_hf_passes_with_its_baseline(tmp_path_factory: pytest.TempPathFactory) -> None:
    run = _hf(tmp_path_factory)
    assert run.returncode == 0, run.output[-4000:]
    xfailed = {t["test"] for t in run.report["tests"] if t["result"] == "xfailed"}
    listed = {
        line.strip()
        for line in HF_BASELINE.read_text().splitlines()
        if line.strip() and not line.startswith("#")
    }
    assert xfailed == listed
    # the documented deviations are visible as violated rules
    assert {"KEY-UNIQUE", "ENTRY-OBJECT", "DTYPE-NAME"} <= set(
        run.report["summary"]["rules_violated"]
    )


@pytest.mark.skipif(shutil.which("node") is None, reason="needs node")
def test_node_example_with_its_baseline(tmp_path: Path) -> None:
    baseline = BASELINES / "node-example.txt"
    run = run_suite(
        f"cmd:node {NODE_EXAMPLE}",
        "-n",
        "2",
        f"--baseline={baseline}",
        "-k",
        (
            "(y_dtype or n_prefix or n_structure_duplicate or surrogate or "
            "i_text or test_writer_dtype) and not test_large"
        ),
        tmp_path=tmp_path,
    )
    assert run.returncode == 0, run.output[-4000:]
    assert run.report["implementation"]["kind"] == "command"
    assert run.report["implementation"]["name"].startswith("reader.mjs")
    accepted = run.test("test_must_accept[y_dtype_f16_values]")
    assert accepted["result"] == "passed"
    assert run.test("test_writer_dtype[F4]")["result"] == "passed"


@pytest.mark.parametrize(
    ("impl", "says"),
    [
        ("no_such_module_xyz", "import no_such_module_xyz"),
        ("missing/file.py", "no such file"),
        ("cmd:no-such-program-xyz --flag", "no-such-program-xyz"),
        ("os", "defines no callable load(path)"),
    ],
)
def test_an_impl_that_names_nothing_usable_says_what_was_tried(
    impl: str, says: str
) -> None:
    # resolved as the suite does by default: Python implementations in a worker
    with pytest.raises(ImplError, match=re.escape(says)):
        resolve(impl, isolate=True)


def test_wrong_impl_is_a_usage_error(tmp_path: Path) -> None:
    # the suite turns the resolver's error into a usage error before any test
    run = run_suite("os", tmp_path=tmp_path)
    assert run.returncode == 4, run.output  # pytest.ExitCode.USAGE_ERROR
    assert "defines no callable load(path)" in run.output
    assert "passed" not in run.output


def test_suite_without_impl_is_a_usage_error_but_project_runs_stay_inert(
    tmp_path: Path,
) -> None:
    process = subprocess.run(
        [sys.executable, "-m", "pytest", str(SUITE), "-q", "-p", "no:cacheprovider"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=False,
        timeout=120,
        env={"PATH": "/usr/bin:/bin", "HOME": str(tmp_path)},
    )
    assert process.returncode == 4
    assert "--impl=" in process.stderr + process.stdout
    # a run of some other directory collects nothing of the suite and prints no summary
    other = tmp_path / "other"
    other.mkdir()
    (other / "test_x.py").write_text("def test_x():\n    pass\n")
    process = subprocess.run(
        [sys.executable, "-m", "pytest", str(other), "-q", "-p", "no:cacheprovider"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        check=False,
        timeout=120,
    )
    assert process.returncode == 0, process.stdout
    assert "1 passed" in process.stdout
    assert "conformance" not in process.stdout


def test_baseline_workflow(tmp_path: Path) -> None:
    broken = str(Path(__file__).parent / "broken" / "accepts_holes.py")
    select = (
        "-k",
        (
            "n_layout_hole_between_tensors or "
            "n_layout_hole_first_not_at_zero or y_prefix_smallest_file"
        ),
    )
    written = tmp_path / "baseline.txt"
    run = run_suite(broken, *select, f"--write-baseline={written}", tmp_path=tmp_path)
    assert run.returncode == 1
    entries = [
        e for e in written.read_text().splitlines() if e and not e.startswith("#")
    ]
    assert entries == [
        "test_must_reject[n_layout_hole_between_tensors]",
        "test_must_reject[n_layout_hole_first_not_at_zero]",
    ]
    assert "# accepted a file that breaks LAYOUT-HOLE" in written.read_text()
    # with the baseline the same run passes (strict xfails) ...
    run = run_suite(broken, *select, f"--baseline={written}", tmp_path=tmp_path)
    assert run.returncode == 0, run.output[-3000:]
    assert run.results["test_must_reject[n_layout_hole_between_tensors]"] == "xfailed"
    # ... a fixed bug is an unexpected pass, which fails ...
    run = run_suite("reference", *select, f"--baseline={written}", tmp_path=tmp_path)
    assert run.returncode == 1
    assert "XPASS(strict)" in run.output
    # ... and entries that match nothing are warned about
    written.write_text("test_must_reject[n_no_such_case]\n")
    run = run_suite("reference", *select, f"--baseline={written}", tmp_path=tmp_path)
    assert "match no test: test_must_reject[n_no_such_case]" in run.output


def test_reports_and_tolerated_outcomes(
    tmp_path_factory: pytest.TempPathFactory,
) -> None:
    run = _hf(tmp_path_factory)
    tolerated = [t for t in run.report["tests"] if t["group"] == "tolerated"]
    assert tolerated
    assert all(t["outcome"] == "accepted" for t in tolerated)
    assert "tolerated (i_) outcomes: accepted=" in run.output
    dup = run.test("test_must_reject[n_structure_duplicate_tensor_identical]")
    assert dup["verdict"] == "invalid"
    assert dup["rules"] == ["KEY-UNIQUE"]
    assert dup["outcome"] == "accepted"
    text = (run.folder / "report.md").read_text()
    assert "| `KEY-UNIQUE` |" in text
    assert "### Tolerated (i_) outcomes" in text
    junit = (run.folder / "junit.xml").read_text()
    assert 'name="verdict" value="tolerated"' in junit


def test_report_json_is_complete(tmp_path_factory: pytest.TempPathFactory) -> None:
    data = _reference(tmp_path_factory).report
    assert data["implementation"]["name"] == "reference"
    rejected = [
        entry
        for entry in data["tests"]
        if entry["test"].startswith("test_must_reject[n_prefix")
    ]
    assert rejected
    for entry in rejected:
        assert entry["case"]
        assert entry["verdict"] == "invalid"
        assert entry["outcome"] == "rejected"
        assert entry["message"]
    json.dumps(data)


def test_readme_adapter_example_is_a_working_impl(tmp_path: Path) -> None:
    section = (ROOT / "docs" / "reference" / "python-adapter.md").read_text(
        encoding="utf-8"
    )
    start = section.index("```python\n") + len("```python\n")
    code = section[start : section.index("```", start)]
    assert "def load(path: str)" in code
    assert "def save(" in code
    adapter = tmp_path / "readme_adapter.py"
    adapter.write_text(code)
    run = run_suite(
        str(adapter),
        "-k",
        "y_dtype_bf16_values or n_layout_hole_between_tensors or test_writer_dtype",
        tmp_path=tmp_path,
    )
    assert run.returncode == 0, run.output[-3000:]
    assert run.results["test_must_accept[y_dtype_bf16_values]"] == "passed"
    assert run.results["test_writer_dtype[F4]"] == "passed"
