"""Outcome records: the user property suite-judge reads, and the skip helper."""

from __future__ import annotations

import pytest

from stspec_conformance import _outcomes


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
