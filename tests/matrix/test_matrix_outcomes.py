"""The suite's --report-json turned into one outcome per case."""

from typing import Any

import pytest
from matrix import runner


def _test(name: str, **fields: Any) -> dict[str, Any]:
    case = name.split("[", 1)[1].rstrip("]") if "[" in name else None
    verdict = {"y": "valid", "n": "invalid", "i": "tolerated"}.get((case or "?")[0])
    return {"test": name, "case": case, "verdict": verdict, **fields}


@pytest.mark.parametrize(
    ("fields", "expected"),
    [
        ({"result": "passed", "outcome": "accepted"}, "accepted"),
        ({"result": "failed", "outcome": "accepted"}, "wrong-content"),
        ({"result": "failed", "outcome": "rejected"}, "rejected"),
        ({"result": "failed", "outcome": "crashed"}, "crashed"),
        ({"result": "failed", "outcome": "resource"}, "resource"),
        ({"result": "skipped", "message": "not applicable: F4"}, "not-applicable"),
        ({"result": "failed", "message": "hung (Hang): no answer"}, "hung"),
        ({"result": "crashed"}, "crashed"),
    ],
)
def test_classify_a_valid_case(fields: dict[str, Any], expected: str) -> None:
    assert runner.classify(_test("test_must_accept[y_x]", **fields)) == expected


def test_an_accepted_invalid_file_is_accepted_not_wrong_content() -> None:
    test = _test("test_must_reject[n_x]", result="failed", outcome="accepted")
    assert runner.classify(test) == "accepted"


def test_convert_splits_cases_from_other_tests_and_keeps_the_crash_kind() -> None:
    report = {
        "tests": [
            _test(
                "test_must_reject[n_bomb]",
                result="failed",
                outcome="crashed",
                message="crashed on n_bomb: crashed (RecursionError): too deep",
            ),
            _test("test_writer_dtype[F4]", result="passed"),
        ]
    }
    cases, others = runner.convert(report)
    assert cases == {
        "n_bomb": {
            "outcome": "crashed",
            "ok": False,
            "crash": "RecursionError",
            "detail": "crashed on n_bomb: crashed (RecursionError): too deep",
        }
    }
    assert others == {"test_writer_dtype[F4]": {"outcome": "passed", "ok": True}}


def test_the_suites_own_expectation_error_is_not_the_readers() -> None:
    test = _test(
        "test_tolerated[i_x]",
        result="failed",
        outcome="accepted",
        message="stspec.errors.SafetensorsError: __metadata__ is null [META-NULL]",
    )
    cases, _ = runner.convert({"tests": [test]})
    assert cases["i_x"]["outcome"] == "accepted"
    assert cases["i_x"]["unchecked"] is True
    assert "META-NULL" in cases["i_x"]["detail"]


def test_an_accepted_single_fault_is_accepted() -> None:
    test = _test(
        "test_single_fault_rejected[LAYOUT-HOLE/gap]",
        result="failed",
        outcome="accepted",
    )
    assert runner.classify(test) == "accepted"


def test_a_failed_property_with_an_acceptance_is_wrong_content() -> None:
    test = _test("test_valid_file_loads_exactly", result="failed", outcome="accepted")
    assert runner.classify(test) == "wrong-content"


def test_a_recorded_message_keeps_file_names_not_machine_paths() -> None:
    message = (
        "crashed on n_x: crashed (TypeError): bad\n"
        "    at parse (file:///w/node_modules/a/index.js:3:4)\n"
        "    at async serve (file:///w/matrix/wrappers/_protocol.mjs:79:13)\n"
        "case: n_x file: /tmp/pytest-of-u/pytest-7/stspec-recipes0/n_x.safetensors"
    )
    test = _test("test_must_reject[n_x]", result="failed", outcome="crashed")
    cases, _ = runner.convert({"tests": [{**test, "message": message}]})
    assert cases["n_x"]["detail"] == (
        "crashed on n_x: crashed (TypeError): bad\ncase: n_x file: n_x.safetensors"
    )


def test_a_writer_that_wrote_what_it_must_refuse_accepted_it() -> None:
    # the suite's own failure kind: "wrote ... instead of refusing" is accepted
    test = _test(
        "test_writer_refuses_lone_surrogate_name",
        result="failed",
        outcome="accepted",
        failure="accepted-invalid",
        message="wrote a tensor named 'w\\ud800' instead of refusing",
    )
    assert runner.classify(test) == "accepted"


@pytest.mark.parametrize(
    ("fields", "entry"),
    [
        (
            {"outcome": "exception", "crash": "KeyError", "message": "exception"},
            {"outcome": "exception", "crash": "KeyError"},
        ),
        (
            {"outcome": "crashed", "crash": "panic, exit status 2", "message": "x"},
            {"outcome": "crashed", "crash": "panic, exit status 2"},
        ),
        (
            {"outcome": "resource", "memory": "reserved", "message": "resource"},
            {"outcome": "resource", "memory": "reserved"},
        ),
        ({"outcome": "fail-open", "message": "unjudged"}, {"outcome": "fail-open"}),
    ],
)
def test_the_new_outcome_words_reach_the_results(
    fields: dict[str, Any], entry: dict[str, Any]
) -> None:
    test = _test("test_must_reject[n_x]", result="failed", **fields)
    cases, _ = runner.convert({"tests": [test]})
    got = cases["n_x"]
    assert {k: got.get(k) for k in entry} == entry, got
