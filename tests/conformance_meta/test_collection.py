"""Which tests a run collects and reports: installed (--pyargs) runs, -k RULE-ID,
no placeholder tests."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from _suite_runner import ROOT, SUITE, run_suite

PACKAGE = SUITE / "stspec_conformance"


def test_pyargs_run_prints_the_score_and_writes_reports_and_baseline(
    tmp_path: Path,
) -> None:
    # as from an installed wheel: pytest's rootdir is the package, so node ids
    # are "tests/test_corpus.py::..." with nothing naming stspec_conformance
    (tmp_path / "pytest.ini").write_text("[pytest]\n")
    md, baseline = tmp_path / "r.md", tmp_path / "baseline.txt"
    run = run_suite(
        str(Path(__file__).parent / "broken" / "accepts_holes.py"),
        "-k",
        "n_layout_hole_between_tensors or y_prefix_smallest_file",
        f"--report-md={md}",
        f"--write-baseline={baseline}",
        f"--rootdir={PACKAGE}",
        "-c",
        str(tmp_path / "pytest.ini"),
        tmp_path=tmp_path,
        target=("--pyargs", "stspec_conformance"),
        cwd=tmp_path,
    )
    assert run.returncode == 1, run.output[-3000:]
    assert "safetensors conformance:" in run.output
    assert "SCORE" in run.output
    assert run.results == {
        "test_must_reject[n_layout_hole_between_tensors]": "failed",
        "test_must_accept[y_prefix_smallest_file]": "passed",
    }
    assert run.report["summary"]["total"]["total"] == 2
    assert "| **total** | 1 | 2 |" in md.read_text()
    written = baseline.read_text()
    assert "test_must_reject[n_layout_hole_between_tensors]" in written
    # comments carry the failure, not this machine's paths
    assert "# accepted a file that breaks LAYOUT-HOLE\n" in written
    assert "file:" not in written


def _collected(*args: str) -> tuple[list[str], str]:
    process = subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            str(SUITE),
            "--impl=reference",
            "--collect-only",
            "-q",
            "-p",
            "no:cacheprovider",
            *args,
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=False,
        timeout=300,
    )
    lines = [line for line in process.stdout.splitlines() if "::" in line]
    return lines, process.stdout


def test_k_rule_id_selects_every_test_citing_the_rule() -> None:
    manifest = json.loads((ROOT / "corpus" / "manifest.json").read_text())
    cases = manifest["cases"] if isinstance(manifest, dict) else manifest
    citing = {c["id"] for c in cases if "KEY-UNIQUE" in c.get("rules", [])}
    assert len(citing) > 4
    selected, _ = _collected("-k", "KEY-UNIQUE")
    selected_cases = {
        line.partition("[")[2].rstrip("]")
        for line in selected
        if "test_must_" in line or "test_tolerated[" in line
    }
    assert selected_cases == citing
    assert any("test_single_fault_rejected[KEY-UNIQUE/" in s for s in selected)
    # a writer test cites its rule too
    selected, _ = _collected("-k", "WRITE-RESERVED")
    assert [s.rpartition("::")[2] for s in selected] == [
        "test_writer_refuses_reserved_name"
    ]


def test_no_placeholder_test_is_collected_or_deselected() -> None:
    # a verdict class without recipe cases used to leave a [NOTSET] test that
    # every run reported as "1 deselected"
    selected, output = _collected()
    assert not [s for s in selected if "NOTSET" in s]
    assert not [s for s in selected if "no-cases" in s]
    assert "deselected" not in output
