"""The outcome classes a suite test reports, and the helpers that record them.

A test says what the implementation did by appending one user property,
``("stspec_outcome", CLASS)``, to its item; the controller reads it from the
test report (it travels through xdist), so scores and reports count
outcomes, not just passes and failures.  The last recorded outcome of a test
wins (a property test records one per example; the failing one is last),
except for a test that passed with examples of different outcomes: it has
no single outcome, so what it reports does not depend on which example
happened to run last.  A property test marks where each example starts
(:func:`start_example`), so a failing one is judged by its last example
alone: the replay of the failure hypothesis makes last, which may record
nothing (the suite's own encoder failing first) and then shows no outcome
rather than an earlier example's.

``resource`` is a failure that is not a wrong verdict: the implementation ran
past its CPU-time or memory allowance.  ``not-applicable`` is a skip whose
reason starts with ``not applicable:``; the implementation declared that it
does not do what the test needs (see :mod:`stspec_conformance._capabilities`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Final, Literal, NoReturn, get_args

import pytest

if TYPE_CHECKING:
    from collections.abc import Iterable

__all__ = [
    "BROKEN_PROPERTY",
    "CRASH_PROPERTY",
    "EXAMPLE_PROPERTY",
    "NOT_APPLICABLE",
    "OUTCOMES",
    "PROPERTY",
    "OutcomeClass",
    "broke",
    "is_not_applicable",
    "last_example",
    "not_applicable",
    "outcome_of",
    "record",
    "resource_failure",
    "start_example",
]

OutcomeClass = Literal[
    "accepted",
    "rejected",
    "crashed",
    "hung",
    "resource",
    "wrong-content",
    "invalid-output",
    "not-applicable",
]
OUTCOMES: Final[tuple[OutcomeClass, ...]] = get_args(OutcomeClass)
PROPERTY: Final = "stspec_outcome"
# For ``crashed``: what kind of crash ("signal 11", "exit status 1",
# "AttributeError"), so a report can tell a segfault from a traceback.
CRASH_PROPERTY: Final = "stspec_crash"
NOT_APPLICABLE: Final = "not applicable: "
# For a test that checks several rules: the ones a failure broke (space-separated).
BROKEN_PROPERTY: Final = "stspec_broken"
# Where an example of a property test starts (the value is unused).
EXAMPLE_PROPERTY: Final = "stspec_example"


def record(node: pytest.Item | None, outcome: OutcomeClass, *, crash: str = "") -> None:
    """Record ``outcome`` (and for a crash its kind) on the test item."""
    if outcome not in OUTCOMES:
        msg = f"unknown outcome class {outcome!r}; one of {', '.join(OUTCOMES)}"
        raise ValueError(msg)
    if node is None:
        return
    node.user_properties.append((PROPERTY, outcome))
    if crash and outcome == "crashed":
        node.user_properties.append((CRASH_PROPERTY, crash))


def start_example(node: pytest.Item | None) -> None:
    """Mark the start of one example of a property test (call it first)."""
    if node is not None:
        node.user_properties.append((EXAMPLE_PROPERTY, ""))


def last_example(
    properties: Iterable[tuple[str, object]],
) -> list[tuple[str, object]]:
    """The properties recorded since the last example started (all, if none did)."""
    found = list(properties)
    starts = [i for i, (key, _) in enumerate(found) if key == EXAMPLE_PROPERTY]
    return found[starts[-1] + 1 :] if starts else found


def broke(node: pytest.Item | None, *rules: str) -> None:
    """Say which of its rules a failing test found broken (reports charge those)."""
    if node is not None:
        node.user_properties.append((BROKEN_PROPERTY, " ".join(rules)))


def outcome_of(
    properties: Iterable[tuple[str, object]], *, passed: bool = False
) -> OutcomeClass | None:
    """The last outcome recorded in a report's ``user_properties``, or None.

    ``passed``: the test passed.  A passing test whose examples came out
    differently (a tolerated file one example accepts and another rejects)
    gives None: any one of them would be an accident of example order.  A
    failing property test gives its last example's outcome, or None when
    that example recorded none.
    """
    if not passed:
        properties = last_example(properties)
    found: list[OutcomeClass] = [
        value for key, value in properties if key == PROPERTY and value in OUTCOMES
    ]
    if not found or (passed and len(set(found)) > 1):
        return None
    return found[-1]


def not_applicable(reason: str, node: pytest.Item | None = None) -> NoReturn:
    """Skip the test as outside the implementation's declared capabilities."""
    record(node, "not-applicable")
    pytest.skip(NOT_APPLICABLE + reason)


def is_not_applicable(skip_reason: str) -> bool:
    """Whether a skip reason (as pytest reports it) is a not-applicable skip."""
    text = skip_reason.removeprefix("Skipped: ").lstrip()
    return text.startswith(NOT_APPLICABLE.rstrip())


def resource_failure(message: str, node: pytest.Item | None = None) -> NoReturn:
    """Fail as a ``resource`` outcome: over an allowance, not a wrong verdict."""
    record(node, "resource")
    pytest.fail(f"resource: {message}", pytrace=False)
