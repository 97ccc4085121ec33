"""The comparison .ci/wheel draws between a checkout run and an installed run."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).parent))
from compare_runs import main

SCORE = """\
....F
==== safetensors conformance: my-adapter 1 (in-process) ====
must accept (y_)        1/2     50.0%  failed=1
SCORE                   1/2     50.0%  failed=1
==== short test summary info ====
"""


def _run(directory: Path, corpus: str, **changes: Any) -> Path:
    directory.mkdir()
    tests = [
        {
            "test": "test_must_accept[y_a]",
            "nodeid": f"{directory.name}/tests/test_corpus.py::test_must_accept[y_a]",
            "case": "y_a",
            "result": changes.get("result", "failed"),
            "message": f"rejected a valid file: F4 file: {corpus}/files/y_a",
        },
        {
            "test": "test_valid_file_loads_exactly",
            "nodeid": "x",
            "case": None,
            "result": "failed",
            "message": changes.get("example", "Falsifying example: b'\\x00'"),
        },
    ]
    report = {"corpus": corpus, "summary": {"total": {"passed": 1}}, "tests": tests}
    (directory / "report.json").write_text(json.dumps(report))
    (directory / "out.txt").write_text(changes.get("score", SCORE))
    (directory / "report.md").write_text(
        f"| `test_must_accept[y_a]` | failed | {corpus}/files/y_a... |\n"
        f"| `test_valid_file_loads_exactly` | failed | {changes.get('example', '')} |\n"
    )
    (directory / "baseline.txt").write_text(
        f"# {corpus}\n{changes.get('entry', 'test_must_accept[y_a]')}\n"
    )
    return directory


def test_runs_differing_only_in_corpus_paths_and_examples_agree(tmp_path: Path) -> None:
    checkout = _run(tmp_path / "checkout", "/src/corpus")
    installed = _run(
        tmp_path / "installed",
        "/venv/lib/python3.11/site-packages/stspec_corpus/data",
        example="Failing test case: b'\\x01'",
    )
    assert main([str(checkout), str(installed)]) == 0


def test_a_different_result_score_or_baseline_entry_is_reported(tmp_path: Path) -> None:
    checkout = _run(tmp_path / "checkout", "/src/corpus")
    for name, change in [
        ("result", {"result": "passed"}),
        ("score", {"score": SCORE.replace("1/2", "2/2")}),
        ("entry", {"entry": "test_must_accept[y_b]"}),
    ]:
        other = _run(tmp_path / name, "/src/corpus", **change)
        assert main([str(checkout), str(other)]) == 1, name
