"""Outcome records: the user property suite-judge reads, and the skip helper."""

from __future__ import annotations

from typing import TYPE_CHECKING

import pytest

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
