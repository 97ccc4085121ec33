"""Property tests draw only from what a reader declares, so a declared gap (no F64,
no metadata presence) cannot hide an unrelated bug behind its shrunk example."""

from __future__ import annotations

from pathlib import Path

from _suite_runner import run_suite

JUDGED = Path(__file__).resolve().parent / "judged"


def test_properties_of_a_narrow_reader_find_its_planted_bug(tmp_path: Path) -> None:
    run = run_suite(
        str(JUDGED / "narrow_reader.py"),
        "-k",
        "test_valid_file_loads_exactly or test_reference_written_file_loads_equal "
        "or test_tolerated_variant",
        tmp_path=tmp_path,
    )
    assert run.returncode == 1, run.output[-3000:]
    for name in (
        "test_valid_file_loads_exactly",
        "test_reference_written_file_loads_equal",
    ):
        entry = run.test(name)
        assert entry["result"] == "failed", entry
        message = entry["message"]
        # the 16-bit byte swap, not the declared F64 or metadata gaps
        assert "loaded different content" in message, message
        assert "metadata is" not in message, message
        assert "F64" not in message, message
        assert any(d in message for d in ("I16", "U16", "F16", "BF16")), message
        assert entry["failure"] == "wrong-content"
    # the MAY-rule variants fail only where the bug shows, never on metadata
    for entry in run.report["tests"]:
        if entry["test"].startswith("test_tolerated_variant"):
            assert "metadata is" not in (entry["message"] or ""), entry
