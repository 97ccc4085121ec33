"""Corpus verdicts within the declaration: rejected undeclared dtypes are not
applicable, absent metadata equals {} for readers that cannot tell, n_ cases
always apply, and a command reader may leave out the optional nbytes."""

from __future__ import annotations

import sys
from pathlib import Path

from _suite_runner import run_suite

JUDGED = Path(__file__).resolve().parent / "judged"


def test_declared_gaps_are_not_applicable_and_never_hide_wrong_verdicts(
    tmp_path: Path,
) -> None:
    # narrow_reader: no F64, absent metadata read as {}, 16-bit bytes swapped
    run = run_suite(
        str(JUDGED / "narrow_reader.py"),
        "-k",
        "y_dtype_f64_values or y_prefix_smallest_file or y_dtype_f16_values or "
        "n_layout_hole_between_tensors",
        tmp_path=tmp_path,
    )
    assert run.returncode == 1, run.output[-3000:]
    f64 = run.test("test_must_accept[y_dtype_f64_values]")
    assert f64["result"] == "not-applicable", f64
    assert "F64" in f64["message"]
    # the file without __metadata__ is accepted though the reader says {}
    assert run.results["test_must_accept[y_prefix_smallest_file]"] == "passed"
    # the undeclared gap does not excuse the planted bug, nor an n_ case
    f16 = run.test("test_must_accept[y_dtype_f16_values]")
    assert f16["failure"] == "wrong-content", f16
    assert run.results["test_must_reject[n_layout_hole_between_tensors]"] == "passed"
    valid = run.report["summary"]["groups"]["valid"]
    assert (valid["passed"], valid["total"], valid["not_applicable"]) == (1, 2, 1)
    assert "not-applicable=1" in run.output


def test_command_reader_without_nbytes_passes_the_50000_tensor_case(
    tmp_path: Path,
) -> None:
    program = JUDGED / "no_nbytes_reader.py"
    run = run_suite(
        f"cmd:{sys.executable} {program}",
        "-k",
        "y_layout_50000_tensors or y_dtype_f16_values",
        tmp_path=tmp_path,
    )
    assert run.returncode == 0, run.output[-3000:]
    assert run.results == {
        "test_must_accept[y_layout_50000_tensors]": "passed",
        "test_must_accept[y_dtype_f16_values]": "passed",
    }


def test_header_only_validator_passes_by_declaration_but_must_reject(
    tmp_path: Path,
) -> None:
    program = JUDGED / "header_only_validator.py"
    select = (
        "y_layout_50000_tensors or y_dtype_f16_values or y_structure_metadata_empty "
        "or n_layout_trailing_bogus_data or n_layout_hole_between_tensors"
    )
    run = run_suite(f"cmd:{sys.executable} {program}", "-k", select, tmp_path=tmp_path)
    assert run.returncode == 0, run.output[-3000:]
    assert set(run.results.values()) == {"passed"}
    assert len(run.results) == 6  # y_structure_metadata_empty_key_and_nul too
    # the same validator letting trailing bytes through still fails that case
    run = run_suite(
        f"cmd:{sys.executable} {program} --ignore-trailing",
        "-k",
        select,
        tmp_path=tmp_path,
    )
    assert run.returncode == 1, run.output[-3000:]
    trailing = run.test("test_must_reject[n_layout_trailing_bogus_data]")
    assert trailing["failure"] == "accepted-invalid", trailing
    assert run.report["summary"]["rules_violated"] == {
        "LAYOUT-TRAILING": ["n_layout_trailing_bogus_data"]
    }


def test_malformed_acceptance_of_an_invalid_file_is_an_acceptance(
    tmp_path: Path,
) -> None:
    program = JUDGED / "passthrough_wrapper.py"
    run = run_suite(
        f"cmd:{sys.executable} {program}",
        "-k",
        "n_layout_hole_between_tensors or n_prefix_file_empty or y_dtype_f16_values",
        tmp_path=tmp_path,
    )
    assert run.returncode == 1, run.output[-3000:]
    hole = run.test("test_must_reject[n_layout_hole_between_tensors]")
    assert hole["failure"] == "accepted-invalid", hole
    assert hole["message"].startswith("accepted a file that breaks LAYOUT-HOLE")
    empty = run.test("test_must_reject[n_prefix_file_empty]")
    assert empty["failure"] == "invalid-output", empty
    assert run.report["summary"]["rules_violated"] == {
        "LAYOUT-HOLE": ["n_layout_hole_between_tensors"]
    }


def test_a_rejects_type_rejects_whatever_its_words(tmp_path: Path) -> None:
    # issue 24.7: "... would run out of memory" from a REJECTS type is the
    # reader's judgement, not a failed allocation (it used to be resource)
    run = run_suite(
        str(JUDGED / "memory_words_reader.py"),
        "-k",
        "n_prefix_n_2pow32 and not plus_header or n_layout_hole_between_tensors "
        "or n_prefix_file_empty or n_json_nan_in_shape or y_dtype_f32_values",
        tmp_path=tmp_path,
    )
    assert run.returncode == 0, run.output[-3000:]
    assert set(run.results.values()) == {"passed"}, run.results
    assert len(run.results) == 5
    words = {t["message"] for t in run.report["tests"] if t["message"]}
    said = " ".join(str(w) for w in words)
    for phrase in ("run out of memory", "Cannot allocate", "bad_alloc", "allocation"):
        assert phrase in said, words


def test_x_cases_are_judged_on_rejection_alone(tmp_path: Path) -> None:
    # rejects_everything names SIZE-MATCH for every file: right for neither
    # case's rules, wrong under --check-rules only for the n_ case
    run = run_suite(
        str(JUDGED / "rejects_everything.py"),
        "--check-rules",
        "--no-smoke-gate",
        "-k",
        "x_dtype_unknown_offsets_past_end or n_layout_bounds_end_near_u64_max "
        "or n_layout_offsets_reversed_single",
        tmp_path=tmp_path,
    )
    assert run.returncode == 1, run.output[-3000:]
    assert run.results == {
        "test_must_reject[x_dtype_unknown_offsets_past_end]": "passed",
        "test_must_reject[n_layout_bounds_end_near_u64_max]": "failed",
        "test_must_reject[n_layout_offsets_reversed_single]": "failed",
    }
    failed = run.test("test_must_reject[n_layout_bounds_end_near_u64_max]")
    assert failed["failure"] == "misclassified", failed
    assert "precedence" not in failed["message"], failed
    # SIZE-MATCH is in the reversed pair's also_breaks: the message says why
    reversed_pair = run.test("test_must_reject[n_layout_offsets_reversed_single]")
    assert reversed_pair["failure"] == "misclassified", reversed_pair
    assert "precedence sets it aside" in reversed_pair["message"], reversed_pair
    assert "must reject (n_, x_)" in run.output
