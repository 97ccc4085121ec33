"""Writer tests judge what the writer did: BOOL normalisation is allowed, a writer
that writes nothing cannot score its refusals, and a non-canonical file is
explained by its first difference."""

from __future__ import annotations

from pathlib import Path

from _suite_runner import BROKEN, run_suite

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
    # reserved name, size mismatch, 3 partial bytes, header limit, unknown
    # dtype, 5 unknown dtypes of consistent size, lone surrogate, overflowing
    # shape, non-string metadata
    assert len(refusals) == 15
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


def test_canonical_applies_only_to_a_writer_that_declares_it(tmp_path: Path) -> None:
    # The same valid, unpadded writer: undeclared it passes (WRITE-CANONICAL is
    # a SHOULD), declared (broken/writer_unpadded.py) it fails naming the class.
    undeclared = tmp_path / "unpadded.py"
    undeclared.write_text(
        f"import sys\nsys.path.insert(0, {str(BROKEN)!r})\n"
        "from writer_unpadded import load, save\n"
    )
    select = ("-k", "test_writer_output or test_writer_metadata_keys_sorted")
    run = run_suite(str(undeclared), *select, tmp_path=tmp_path)
    assert run.returncode == 0, run.output[-3000:]
    assert run.results == {
        "test_writer_output_valid_and_equal": "passed",
        "test_writer_output_canonical": "not-applicable",
        "test_writer_metadata_keys_sorted": "not-applicable",
    }
    assert (
        "canonical-writer class" in run.test("test_writer_output_canonical")["message"]
    )
    (tmp_path / "report.json").unlink()
    run = run_suite(str(BROKEN / "writer_unpadded.py"), *select, tmp_path=tmp_path)
    assert run.returncode == 1, run.output[-3000:]
    for name in ("test_writer_output_canonical", "test_writer_metadata_keys_sorted"):
        entry = run.test(name)
        assert entry["result"] == "failed", entry
        assert "canonical-writer class it declares" in entry["message"], entry
        assert "padding" in entry["message"], entry
    assert run.results["test_writer_output_valid_and_equal"] == "passed"


def test_writer_that_writes_an_empty_file_breaks_write_fidelity(
    tmp_path: Path,
) -> None:
    # Its output is valid and it refuses what it must: only the content is
    # wrong, so its failures are WRITE-FIDELITY's, not WRITE-VALID's.
    run = run_suite(
        str(JUDGED / "writes_empty_file.py"),
        "-k",
        "test_writer_dtype or test_writer_empty or test_writer_refuses",
        tmp_path=tmp_path,
    )
    assert run.returncode == 1, run.output[-3000:]
    dtype_tests = [
        t for t in run.report["tests"] if t["test"].startswith("test_writer_dtype[")
    ]
    assert len(dtype_tests) == 22
    for entry in dtype_tests:
        assert entry["result"] == "failed", entry
        assert entry["rules"] == ["WRITE-FIDELITY"], entry
        assert "wrote different content" in entry["message"], entry
    assert run.results["test_writer_empty_file"] == "passed"
    empty_metadata = run.test("test_writer_empty_metadata_without_tensors")
    assert empty_metadata["rules"] == ["WRITE-FIDELITY"], empty_metadata
    violated = run.report["summary"]["rules_violated"]
    assert "WRITE-VALID" not in violated, violated
    assert len(violated["WRITE-FIDELITY"]) == 23, violated
    refusals = [
        t for t in run.report["tests"] if t["test"].startswith("test_writer_refuses")
    ]
    assert [t["result"] for t in refusals] == ["passed"] * 15, refusals


def test_refusing_the_corrected_request_too_charges_no_rule(tmp_path: Path) -> None:
    # a writer that cannot write the control request never reached the bad one
    run = run_suite(
        str(JUDGED / "write_nothing.py"),
        "-k",
        "test_writer_refuses_header_over_limit or test_writer_refuses_non_string",
        tmp_path=tmp_path,
    )
    assert run.returncode == 1, run.output[-3000:]
    assert run.report["summary"]["rules_violated"] == {}, run.report["summary"]
    for entry in run.report["tests"]:
        assert entry["failure"] == "rejected-valid", entry


def test_a_valid_file_under_another_name_is_a_fidelity_failure(
    tmp_path: Path,
) -> None:
    # Go's encoding/json writes U+FFFD for a lone surrogate: no JSON-SURROGATE
    run = run_suite(
        str(JUDGED / "replacement_char_writer.py"),
        "-k",
        "test_writer_refuses_lone_surrogate_name or test_writer_refuses_reserved",
        tmp_path=tmp_path,
    )
    assert run.returncode == 1, run.output[-3000:]
    assert run.results["test_writer_refuses_reserved_name"] == "passed"
    test = run.test("test_writer_refuses_lone_surrogate_name")
    assert (test["outcome"], test["failure"]) == ("accepted", "accepted-invalid")
    assert "WRITE-FIDELITY" in test["message"], test
    violated = run.report["summary"]["rules_violated"]
    assert set(violated) == {"WRITE-FIDELITY"}, violated


def test_a_written_invalid_file_is_charged_with_what_it_breaks(
    tmp_path: Path,
) -> None:
    # the reference writer without its checks writes the lone surrogate escaped
    writer = tmp_path / "unchecked_writer.py"
    writer.write_text(
        f"import sys\nsys.path.insert(0, {str(JUDGED)!r})\n"
        "import json, struct\n"
        "from _shared import classify, strict_load as load\n"
        "def save(path, tensors, metadata):\n"
        "    header, offset, data = {}, 0, b''\n"
        "    for name, (dtype, shape, raw) in tensors.items():\n"
        "        header[name] = {'dtype': dtype, 'shape': list(shape),\n"
        "                        'data_offsets': [offset, offset + len(raw)]}\n"
        "        offset, data = offset + len(raw), data + bytes(raw)\n"
        "    text = json.dumps(header).encode('utf-8', 'surrogatepass')\n"
        "    text += b' ' * (-len(text) % 8)\n"
        "    with open(path, 'wb') as out:\n"
        "        out.write(struct.pack('<Q', len(text)) + text + data)\n",
        encoding="utf-8",
    )
    run = run_suite(
        str(writer),
        "-k",
        "test_writer_refuses_lone_surrogate_name",
        tmp_path=tmp_path,
    )
    assert run.returncode == 1, run.output[-3000:]
    test = run.test("test_writer_refuses_lone_surrogate_name")
    assert test["outcome"] == "accepted", test
    violated = run.report["summary"]["rules_violated"]
    assert "JSON-SURROGATE" in violated, violated
    assert "WRITE-FIDELITY" not in violated, violated


def test_a_writer_that_builds_the_header_may_refuse_it(tmp_path: Path) -> None:
    # four copies of a 100,000,000-byte header before the check: ordinary code
    select = ("-k", "test_writer_refuses_header_over_limit")
    run = run_suite(str(JUDGED / "builds_header_writer.py"), *select, tmp_path=tmp_path)
    assert run.returncode == 0, run.output[-3000:]
    assert run.results == {"test_writer_refuses_header_over_limit": "passed"}
    # sixteen more copies are beyond the allowance: resource
    (tmp_path / "report.json").unlink()
    waste = tmp_path / "wasteful_writer.py"
    waste.write_text(
        f"import sys\nsys.path.insert(0, {str(JUDGED)!r})\n"
        "import builds_header_writer\n"
        "from builds_header_writer import classify, load, save\n"
        "builds_header_writer.WASTE = 16\n"
    )
    run = run_suite(str(waste), *select, tmp_path=tmp_path)
    assert run.returncode == 1, run.output[-3000:]
    test = run.test("test_writer_refuses_header_over_limit")
    assert test["outcome"] == "resource", test
