"""Outcome records: the user property suite-judge reads, and the skip helper."""

from __future__ import annotations

import ast
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

import stspec_conformance
from stspec_conformance import _outcomes
from stspec_conformance._collect import GROUP_PROPERTY
from stspec_conformance._results import record_report

if TYPE_CHECKING:
    from stspec_conformance._state import Record


class _Item:
    def __init__(self) -> None:
        self.user_properties: list[tuple[str, object]] = []


def test_record_appends_the_property_and_the_crash_kind() -> None:
    item = _Item()
    _outcomes.record(item, "rejected")  # type: ignore[arg-type]
    _outcomes.record(item, "crashed", crash="signal 11")  # type: ignore[arg-type]
    assert item.user_properties == [
        ("stspec_outcome", "rejected"),
        ("stspec_outcome", "crashed"),
        ("stspec_crash", "signal 11"),
    ]
    assert _outcomes.outcome_of(item.user_properties) == "crashed"
    assert _outcomes.outcome_of([]) is None


def test_unknown_classes_are_refused() -> None:
    with pytest.raises(ValueError, match="unknown outcome class 'wrong'"):
        _outcomes.record(None, "wrong")  # type: ignore[arg-type]


def test_not_applicable_is_a_recognisable_skip() -> None:
    item = _Item()
    with pytest.raises(pytest.skip.Exception) as skipped:
        _outcomes.not_applicable("reads no F64", item)  # type: ignore[arg-type]
    assert str(skipped.value) == "not applicable: reads no F64"
    assert _outcomes.is_not_applicable("Skipped: not applicable: reads no F64")
    assert not _outcomes.is_not_applicable("Skipped: needs node")
    assert item.user_properties == [("stspec_outcome", "not-applicable")]


def test_resource_failure_fails_and_records() -> None:
    item = _Item()
    with pytest.raises(pytest.fail.Exception, match="resource: 3 GiB"):
        _outcomes.resource_failure("3 GiB", item)  # type: ignore[arg-type]
    assert _outcomes.outcome_of(item.user_properties) == "resource"


def test_a_failing_test_reports_its_last_outcome() -> None:
    # a property test records one outcome per example; the failing one is last
    found = [("stspec_outcome", "accepted"), ("stspec_outcome", "rejected")]
    assert _outcomes.outcome_of(found) == "rejected"
    assert _outcomes.outcome_of(found, passed=False) == "rejected"


def test_a_passing_test_with_mixed_outcomes_reports_none() -> None:
    mixed = [("stspec_outcome", "accepted"), ("stspec_outcome", "rejected")]
    assert _outcomes.outcome_of(mixed, passed=True) is None
    assert _outcomes.outcome_of(list(reversed(mixed)), passed=True) is None
    same = [("stspec_outcome", "accepted")] * 3
    assert _outcomes.outcome_of(same, passed=True) == "accepted"


class _State:
    def __init__(self) -> None:
        self.records: dict[str, Record] = {}


def _report(outcome: str, found: list[str]) -> pytest.TestReport:
    properties: list[tuple[str, object]] = [(GROUP_PROPERTY, "writer")]
    properties += [("stspec_outcome", value) for value in found]
    return pytest.TestReport(
        "conformance/tests/test_writer.py::test_roundtrip",
        ("conformance/tests/test_writer.py", 1, "test_roundtrip"),
        {},
        outcome,  # type: ignore[arg-type]
        None if outcome == "passed" else "AssertionError: rejected a valid file",
        "call",
        user_properties=properties,
    )


@pytest.mark.parametrize(
    ("outcome", "found", "recorded"),
    [
        ("passed", ["accepted", "rejected", "accepted"], ""),
        ("passed", ["rejected", "accepted", "rejected"], ""),
        ("passed", ["accepted", "accepted"], "accepted"),
        ("failed", ["accepted", "rejected"], "rejected"),
    ],
)
def test_the_record_does_not_depend_on_example_order(
    outcome: str, found: list[str], recorded: str
) -> None:
    state = _State()
    record_report(state, _report(outcome, found))  # type: ignore[arg-type]
    (record,) = state.records.values()
    assert record.outcome == recorded
    assert record.result == outcome


def _example(*found: str) -> list[tuple[str, object]]:
    return [("stspec_example", ""), *(("stspec_outcome", value) for value in found)]


def test_a_failing_property_test_is_judged_by_its_last_example() -> None:
    earlier = _example("accepted") + _example("rejected")
    assert _outcomes.outcome_of(earlier + _example("crashed")) == "crashed"
    # the replay of the failure recorded nothing: no earlier example stands in
    assert _outcomes.outcome_of(earlier + _example()) is None
    # passing, the examples together decide (mixed: none)
    assert _outcomes.outcome_of(earlier + _example(), passed=True) is None
    assert _outcomes.last_example([("rules", "X"), ("stspec_outcome", "hung")]) == [
        ("rules", "X"),
        ("stspec_outcome", "hung"),
    ]


def test_start_example_marks_the_item() -> None:
    item = _Item()
    _outcomes.start_example(item)  # type: ignore[arg-type]
    _outcomes.record(item, "accepted")  # type: ignore[arg-type]
    _outcomes.start_example(None)
    assert _outcomes.last_example(item.user_properties) == [
        ("stspec_outcome", "accepted")
    ]


def test_an_earlier_examples_details_do_not_describe_the_failure() -> None:
    properties: list[tuple[str, object]] = [(GROUP_PROPERTY, "properties")]
    properties += [*_example("rejected"), ("stspec_expects", "accept")]
    properties += [(_outcomes.BROKEN_PROPERTY, "WRITE-VALID")]
    properties += _example()  # the failing replay: the encoder raised first
    report = pytest.TestReport(
        "conformance/tests/test_properties.py::test_reference_written_file_loads_equal",
        ("conformance/tests/test_properties.py", 1, "test_x"),
        {},
        "failed",
        "ValueError: the suite's encoder",
        "call",
        user_properties=properties,
    )
    state = _State()
    record_report(state, report)  # type: ignore[arg-type]
    (record,) = state.records.values()
    assert record.result == "failed"
    assert record.outcome == ""
    assert record.expects == ""
    assert record.rules == ()


def test_every_property_test_of_the_suite_marks_its_examples() -> None:
    tests = Path(stspec_conformance.__file__).parent / "tests"
    bodies = []
    for path in sorted(tests.glob("test_*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not isinstance(node, ast.FunctionDef):
                continue
            if not any(_is_given(d) for d in node.decorator_list):
                continue
            body = node.body[1:] if ast.get_docstring(node) else node.body
            first = ast.unparse(body[0])
            bodies.append((path.name, node.name, first))
    assert len(bodies) >= 6
    unmarked = [b for b in bodies if b[2] != "_outcomes.start_example(request.node)"]
    assert unmarked == []


def _is_given(decorator: ast.expr) -> bool:
    call = decorator.func if isinstance(decorator, ast.Call) else decorator
    return isinstance(call, ast.Name) and call.id == "given"
