"""Turning pytest's reports into one :class:`Record` per suite test."""

from __future__ import annotations

from typing import TYPE_CHECKING, Final

from stspec_conformance import _outcomes
from stspec_conformance._collect import GROUP_PROPERTY, case_of, suffix_of
from stspec_conformance._state import Record

if TYPE_CHECKING:
    import pytest

    from stspec_conformance._state import SuiteState

__all__ = [
    "DIFFERS_PROPERTY",
    "EXPECTS_PROPERTY",
    "FAILURES_PROPERTY",
    "differs_in",
    "distinct_failures",
    "record_report",
]

EXPECTS_PROPERTY: Final = "stspec_expects"
# what a wrong-content answer got wrong (see ``differs_in``)
DIFFERS_PROPERTY: Final = "stspec_differs"
# each failure of an exception group (hypothesis' "found N distinct failures")
FAILURES_PROPERTY: Final = "stspec_failures"

MESSAGE_LIMIT: Final = 300
# distinct failures shown, and the characters of each
SHOWN_FAILURES: Final = 5
FAILURE_LIMIT: Final = 200
# a later phase's result wins only when it says more (a teardown error after a pass)
_RANK: Final = {
    "passed": 0,
    "skipped": 1,
    "xfailed": 2,
    "failed": 3,
    "error": 4,
    "crashed": 5,
    "not-applicable": 1,
}


def record_report(state: SuiteState, report: pytest.TestReport) -> None:
    """Fold one phase's report into its test's record (suite tests only)."""
    props = dict(report.user_properties)
    group = props.get(GROUP_PROPERTY)
    if group is None:
        return
    record = state.records.get(report.nodeid)
    if record is None:
        name = suffix_of(report.nodeid)
        rules = tuple(str(props.get("rules", "")).split())
        record = Record(report.nodeid, name, str(group), case_of(name), rules)
        state.records[report.nodeid] = record
    passed = report.when == "call" and report.passed
    # what a failing property test's last example (the failure) recorded
    latest = props if passed else dict(_outcomes.last_example(report.user_properties))
    broken = latest.get(_outcomes.BROKEN_PROPERTY)
    if broken:  # a test of several rules said which one the failure broke
        record.rules = tuple(str(broken).split())
    elif broken is not None:  # it said the failure broke none of them
        record.charges_none = True
    found = _outcomes.outcome_of(report.user_properties, passed=passed)
    outcome = found or props.get("outcome")
    record.outcome = str(outcome or record.outcome)
    rule = props.get("reported_rule", record.reported_rule)
    record.reported_rule = None if rule is None else str(rule)
    record.detail = str(props.get("message", record.detail))
    record.expects = str(latest.get(EXPECTS_PROPERTY, record.expects))
    record.differs = str(latest.get(DIFFERS_PROPERTY, record.differs))
    record.crash = str(latest.get(_outcomes.CRASH_PROPERTY, record.crash))
    record.memory = str(latest.get(_outcomes.MEMORY_PROPERTY, record.memory))
    result = _result_of(report)
    if result is not None and _RANK[result] >= _RANK[record.result]:
        message = _failure_line(report) if result != "passed" else ""
        if result != "passed" and FAILURES_PROPERTY in props:
            message = str(props[FAILURES_PROPERTY])
        if result == "skipped" and _outcomes.is_not_applicable(message):
            result = "not-applicable"
            record.outcome = "not-applicable"
        record.result = result
        record.message = message or record.message


def differs_in(problems: list[str]) -> str:
    """``metadata``, ``tensors`` or ``both``: what content differences concern."""
    meta = any(p.startswith("metadata ") for p in problems)
    other = any(not p.startswith("metadata ") for p in problems)
    return "both" if meta and other else "metadata" if meta else "tensors"


def _one_line(text: str, limit: int) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 3] + "..."


def distinct_failures(exc: BaseException) -> str | None:
    """Each failure of an exception group, bounded (None for one exception).

    Hypothesis raises a group when it finds several distinct failures; its
    own message says only how many, and the reports would say nothing else.
    """
    if not isinstance(exc, BaseExceptionGroup):
        return None
    leaves: list[BaseException] = []
    pending: list[BaseException] = list(exc.exceptions)
    while pending:
        one = pending.pop(0)
        if isinstance(one, BaseExceptionGroup):
            pending[:0] = one.exceptions
        else:
            leaves.append(one)
    shown = [
        f"({index}) {type(one).__name__}: {_one_line(str(one), FAILURE_LIMIT)}"
        for index, one in enumerate(leaves[:SHOWN_FAILURES], 1)
    ]
    more = len(leaves) - SHOWN_FAILURES
    return (
        f"{len(leaves)} distinct failures: "
        + " ".join(shown)
        + (f" ... ({more} more)" if more > 0 else "")
    )


def _result_of(report: pytest.TestReport) -> str | None:
    if hasattr(report, "wasxfail"):
        return "xfailed" if report.skipped else None
    crashed = report.failed and "crashed while running" in str(report.longrepr)
    if report.when == "call":
        return "crashed" if crashed else report.outcome
    if report.failed:
        return "crashed" if crashed else "error"
    if report.skipped:
        return "skipped"
    return None


def _failure_line(report: pytest.TestReport) -> str:
    crash = getattr(report.longrepr, "reprcrash", None)
    text = getattr(crash, "message", None) or str(report.longrepr or "")
    if report.skipped and isinstance(report.longrepr, tuple):
        text = str(report.longrepr[2])
    text = " ".join(text.split())
    for prefix in ("Failed: ", "AssertionError: ", "Skipped: "):
        text = text.removeprefix(prefix)
    if len(text) <= MESSAGE_LIMIT:
        return text
    return text[: MESSAGE_LIMIT - 3] + "..."
