"""Adapters as outsiders write them (tests/conformance_meta/outsiders/): what an
implementation says is untrusted input, answers are checked for exact types,
and declarations cover readers and writers that do less."""

from __future__ import annotations

import json
import re
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from _suite_runner import run_suite

OUTSIDERS = Path(__file__).resolve().parent / "outsiders"


def _impl(name: str) -> str:
    return str(OUTSIDERS / f"{name}.py")


# --- untrusted text: a lone surrogate in a rejection message -----------------------


def test_a_lone_surrogate_in_messages_reaches_every_report(tmp_path: Path) -> None:
    # stsw quotes the offending name; with -n 2 the run used to stop with an
    # INTERNALERROR (xdist could not send the report), serially --report-json
    # left a 0-byte file.  This reader also rejects the valid surrogate-pair
    # file, so a message holding the surrogate is a failure in every report.
    md, junit = tmp_path / "report.md", tmp_path / "junit.xml"
    run = run_suite(
        _impl("surrogate_messages"),
        "-n",
        "2",
        f"--report-md={md}",
        f"--junitxml={junit}",
        "-k",
        "surrogate",
        tmp_path=tmp_path,
    )
    assert run.returncode == 1, run.output[-3000:]
    assert "INTERNALERROR" not in run.output
    entry = run.test("test_must_reject[n_json_surrogate_high_at_end]")
    assert entry["result"] == "passed"
    assert "\\ud83d" in entry["message"]  # escaped, not dropped
    failed = run.test("test_must_accept[y_json_surrogate_pair_escape]")
    assert failed["failure"] == "rejected-valid"
    assert "\\ud83d" in failed["message"]
    assert "\\ud83d" in md.read_text(encoding="utf-8")
    ET.parse(junit)  # noqa: S314 - well-formed: the run's own junit file
    assert "ud83d" in junit.read_text(encoding="utf-8")


# --- answers checked for exact types --------------------------------------------


def test_an_infinite_or_float_dimension_is_a_malformed_acceptance(
    tmp_path: Path,
) -> None:
    # json reads 1e400 as inf: int(inf) raised OverflowError inside the suite,
    # which counted as the reader's rejection (a false pass)
    run = run_suite(
        _impl("header_dump"),
        "-k",
        "n_json_number_huge_exponent_dim or n_json_number_float_dim "
        "or y_prefix_smallest_file",
        tmp_path=tmp_path,
    )
    assert run.returncode == 1, run.output[-3000:]
    for case in ("n_json_number_huge_exponent_dim", "n_json_number_float_dim"):
        entry = run.test(f"test_must_reject[{case}]")
        assert entry["result"] == "failed", entry
        assert entry["failure"] == "accepted-invalid", entry
        assert "shape must hold integers" in entry["message"], entry
    assert run.results["test_must_accept[y_prefix_smallest_file]"] == "passed"


def test_true_and_string_dimensions_are_not_integers(tmp_path: Path) -> None:
    run = run_suite(
        _impl("loose_dims"),
        "--no-smoke-gate",  # which would say the same of its minimal file
        "-k",
        "y_example_readme_header",
        tmp_path=tmp_path,
    )
    assert run.returncode == 1, run.output[-3000:]
    entry = run.test("test_must_accept[y_example_readme_header]")
    assert entry["outcome"] == "invalid-output", entry
    assert "shape must hold integers" in entry["message"], entry


# --- REJECTS for reading and for writing ----------------------------------------


def test_write_rejects_apart_from_read_rejects(tmp_path: Path) -> None:
    # the writer's TypeError is its refusal (WRITE_REJECTS); the reader's
    # TypeError is still a crash (REJECTS)
    run = run_suite(
        _impl("write_type_error"),
        "-k",
        "test_writer_refuses_non_string_metadata or n_prefix_file_empty",
        tmp_path=tmp_path,
    )
    assert run.returncode == 1, run.output[-3000:]
    assert run.results["test_writer_refuses_non_string_metadata"] == "passed"
    entry = run.test("test_must_reject[n_prefix_file_empty]")
    assert entry["outcome"] == "exception", entry


# --- a reader that ignores __metadata__ -----------------------------------------

METADATA_CASES = (
    "y_example_readme_metadata or y_structure_metadata_last "
    "or n_structure_metadata_value_integer or test_valid_file_loads_exactly"
)


def test_a_declared_metadata_ignoring_reader_is_judged_on_its_tensors(
    tmp_path: Path,
) -> None:
    run = run_suite(_impl("ignores_metadata"), "-k", METADATA_CASES, tmp_path=tmp_path)
    assert run.returncode == 0, run.output[-3000:]
    assert set(run.results.values()) == {"passed"}, run.results
    assert run.report["summary"]["rules_violated"] == {}
    assert run.report["implementation"]["capabilities"]["metadata"] is False


def test_an_undeclared_metadata_loss_fails_and_hints_at_the_declaration(
    tmp_path: Path,
) -> None:
    run = run_suite(_impl("loses_metadata"), "-k", METADATA_CASES, tmp_path=tmp_path)
    assert run.returncode == 1, run.output[-3000:]
    assert run.results["test_must_accept[y_example_readme_metadata]"] == "failed"
    # the n_ case still has to be rejected (and is: the reader is strict)
    assert run.results["test_must_reject[n_structure_metadata_value_integer]"] == (
        "passed"
    )
    hints = run.report["summary"]["hints"]
    assert any("declare metadata: false" in h for h in hints), hints
    assert "declaration hint:" in run.output


# --- the memory a checked header length may take --------------------------------


def test_reading_a_checked_header_length_is_within_the_allowance(
    tmp_path: Path,
) -> None:
    # N = 100,000,000 in a 10-byte file: checked against the limit, then read
    # (CPython allocates N bytes first); SPEC READ-OUTCOME allows it
    run = run_suite(
        _impl("reads_checked_header"),
        "-k",
        "n_prefix_n_at_limit_tiny_file or n_prefix_n_1000_tiny_file",
        tmp_path=tmp_path,
    )
    assert run.returncode == 0, run.output[-3000:]
    assert run.results == {
        "test_must_reject[n_prefix_n_at_limit_tiny_file]": "passed",
        "test_must_reject[n_prefix_n_1000_tiny_file]": "passed",
    }


# --- no shrinking by default ------------------------------------------------------


@pytest.mark.parametrize(
    ("profile", "more"), [((), False), (("--hypothesis-profile=stspec-shrink",), True)]
)
def test_a_failing_property_is_not_shrunk_unless_asked(
    profile: tuple[str, ...],
    more: bool,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # every shrink step is one more load (a process for a cmd: program)
    counter = tmp_path / "loads.txt"
    monkeypatch.setenv("COUNT_LOADS_TO", str(counter))
    run = run_suite(
        _impl("counts_loads"),
        "--no-smoke-gate",
        "-k",
        "LAYOUT-HOLE/gap",
        *profile,
        tmp_path=tmp_path,
    )
    assert run.returncode == 1, run.output[-3000:]
    loads = len(counter.read_text().splitlines())
    # the isolation worker's warm-up load, then the examples until the first
    # failure: without shrinking that is the first example
    assert (loads > 10) is more, loads


# --- reports ------------------------------------------------------------------------


def test_a_valid_case_is_charged_with_the_rule_it_was_failed_on(
    tmp_path: Path,
) -> None:
    # no FNUZ dtypes (undeclared): y_dtype_all_22_canonical is about
    # DTYPE-NAME and LAYOUT-HOLE, but only DTYPE-NAME was broken
    run = run_suite(
        _impl("no_fnuz"),
        "-k",
        "y_dtype_all_22_canonical or y_dtype_f8_e4m3fnuz_values "
        "or y_dtype_f8_e5m2fnuz_values or y_dtype_f32_values",
        tmp_path=tmp_path,
    )
    assert run.returncode == 1, run.output[-3000:]
    violated = run.report["summary"]["rules_violated"]
    assert set(violated) == {"DTYPE-NAME"}, violated
    assert "y_dtype_all_22_canonical" in violated["DTYPE-NAME"]
    hints = run.report["summary"]["hints"]
    assert any("F8_E4M3FNUZ, F8_E5M2FNUZ" in h and "read_dtypes" in h for h in hints), (
        hints
    )


def test_a_command_answer_that_is_no_protocol_is_quoted(tmp_path: Path) -> None:
    run = run_suite(
        f"cmd:{sys.executable} {OUTSIDERS / 'noisy_cmd.py'}",
        "--no-smoke-gate",
        "-k",
        "y_prefix_smallest_file",
        tmp_path=tmp_path,
    )
    assert run.returncode == 1, run.output[-3000:]
    message = run.test("test_must_accept[y_prefix_smallest_file]")["message"]
    assert "stdout: b'Error: could not parse header <\\x1b[31mred" in message, message
    json.dumps(message).encode("ascii")  # the escape character is escaped


def test_each_distinct_failure_is_reported(tmp_path: Path) -> None:
    md = tmp_path / "report.md"
    run = run_suite(
        _impl("two_ways"),
        "--no-smoke-gate",
        # the default stops at the first failure; shrinking tells them apart
        "--hypothesis-profile=stspec-shrink",
        f"--report-md={md}",
        "-k",
        "test_valid_file_loads_exactly",
        tmp_path=tmp_path,
    )
    assert run.returncode == 1, run.output[-3000:]
    message = run.test("test_valid_file_loads_exactly")["message"]
    assert message.startswith("2 distinct failures: (1) AssertionError: "), message
    assert "exception (AttributeError)" in message, message
    assert "loaded different content: metadata is {'invented': '1'}" in message
    assert "2 distinct failures: (1)" in md.read_text(encoding="utf-8")


def test_numpy_arrays_of_any_layout_are_digested_not_rejected(tmp_path: Path) -> None:
    # rank >= 2 with a zero dimension, Fortran order: memoryview.cast refuses
    # both, and the suite used to report the reader as rejecting the file
    select = (
        "-k",
        (
            "y_layout_empty_tensors_at_cursor or y_dtype_i32_values or "
            "y_example_readme_header or y_dtype_f32_values"
        ),
    )
    run = run_suite(str(OUTSIDERS / "numpy_arrays.py"), *select, tmp_path=tmp_path)
    assert run.returncode == 0, run.output[-3000:]
    assert set(run.results.values()) == {"passed"}, run.results
    assert len(run.results) == 4
    # the transpose holds other values: wrong content, not a rejection
    (tmp_path / "report.json").unlink()
    wrong = tmp_path / "numpy_transposed.py"
    wrong.write_text(
        f"import sys\nsys.path.insert(0, {str(OUTSIDERS)!r})\n"
        "import numpy_arrays\nfrom numpy_arrays import CAPABILITIES, load\n"
        "numpy_arrays.TRANSPOSE = True\n"
    )
    run = run_suite(str(wrong), "-k", "y_dtype_i32_values", tmp_path=tmp_path)
    assert run.returncode == 1, run.output[-3000:]
    test = run.test("test_must_accept[y_dtype_i32_values]")
    assert test["outcome"] == "wrong-content", test
    # (the name is the run's: its variant of the file renames the tensor)
    assert re.search(
        r"tensor '[a-z0-9]+' is I32\[2, 3\] 24 bytes sha256", test["message"]
    )
