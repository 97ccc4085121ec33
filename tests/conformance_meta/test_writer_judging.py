"""Writer tests judge what the writer did: BOOL normalisation is allowed, a writer
that writes nothing cannot score its refusals, and a non-canonical file is
explained by its first difference."""

from __future__ import annotations

from pathlib import Path

from _suite_runner import run_suite

JUDGED = Path(__file__).resolve().parent / "judged"


def test_bool_normalising_writer_passes(tmp_path: Path) -> None:
    run = run_suite(
        str(JUDGED / "bool_normalising_writer.py"),
        "-k",
        "test_writer_dtype or test_writer_output",
        tmp_path=tmp_path,
    )
    assert run.returncode == 0, run.output[-3000:]
    assert run.results["test_writer_dtype[BOOL]"] == "passed"
    assert run.results["test_writer_output_valid_and_equal"] == "passed"


def test_writer_that_writes_nothing_fails_the_refusal_tests(tmp_path: Path) -> None:
    run = run_suite(
        str(JUDGED / "write_nothing.py"),
        "-k",
        "test_writer_refuses",
        tmp_path=tmp_path,
    )
    assert run.returncode == 1, run.output[-3000:]
    refusals = [
        t for t in run.report["tests"] if t["test"].startswith("test_writer_refuses")
    ]
    assert len(refusals) == 4
    for entry in refusals:
        assert entry["result"] == "failed", entry
        assert "cannot write the corrected request" in entry["message"], entry
        assert entry["failure"] == "rejected-valid"


def test_canonical_failure_names_the_escaping_difference(tmp_path: Path) -> None:
    run = run_suite(
        str(JUDGED / "go_like_writer.py"),
        "-k",
        "test_writer_metadata_keys_sorted",
        tmp_path=tmp_path,
    )
    assert run.returncode == 1, run.output[-3000:]
    message = run.test("test_writer_metadata_keys_sorted")["message"]
    assert "string escaping" in message, message
    assert "\\u0026" in message, message
    assert "sorted order" not in message, message
