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
past its memory allowance, or left processes running.  Its memory kind
(:data:`MEMORY_PROPERTY`) says which: ``reserved`` (an allocation beyond the
allowance was refused before its pages were used: address space asked for,
not memory shown to be used) or ``resident`` (its resident memory went past
the allowance).  ``crashed`` is a native crash (a signal, a panic, an abort,
a runtime's fatal error); ``exception`` is an unexpected exception in a
managed runtime (Python, JavaScript, Java): the implementation's code broke,
but its process did not.  ``fail-open`` is an answer of success on an input
the implementation said it could not judge.  ``not-applicable`` is a skip
whose reason starts with ``not applicable:``; the implementation declared
that it does not do what the test needs (see
:mod:`stspec_conformance._capabilities`).
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
    "MEMORY_KINDS",
    "MEMORY_PROPERTY",
    "NOT_APPLICABLE",
    "NO_VERDICT",
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
    "exception",
    "hung",
    "resource",
    "fail-open",
    "wrong-content",
    "invalid-output",
    "not-applicable",
]
OUTCOMES: Final[tuple[OutcomeClass, ...]] = get_args(OutcomeClass)
PROPERTY: Final = "stspec_outcome"
# No verdict at all: what the implementation did instead of judging.
NO_VERDICT: Final = frozenset(
    {"crashed", "exception", "hung", "resource", "invalid-output", "fail-open"}
)
# For ``crashed`` and ``exception``: what died or was raised ("signal 11
# (SIGSEGV)", "panic", "KeyError"), so a report can tell them apart.
CRASH_PROPERTY: Final = "stspec_crash"
# For ``resource``: "reserved" (an allocation refused under the allowance) or
# "resident" (resident memory measured past it).
MEMORY_PROPERTY: Final = "stspec_memory"
MEMORY_KINDS: Final = ("reserved", "resident")
NOT_APPLICABLE: Final = "not applicable: "
# For a test that checks several rules: the ones a failure broke (space-separated).
BROKEN_PROPERTY: Final = "stspec_broken"
# Where an example of a property test starts (the value is unused).
EXAMPLE_PROPERTY: Final = "stspec_example"


def record(
    node: pytest.Item | None,
    outcome: OutcomeClass,
    *,
    crash: str = "",
    memory: str = "",
) -> None:
    """Record ``outcome`` (a crash's or exception's kind, a memory kind) on the item."""
    if outcome not in OUTCOMES:
        msg = f"unknown outcome class {outcome!r}; one of {', '.join(OUTCOMES)}"
        raise ValueError(msg)
    if memory and memory not in MEMORY_KINDS:
        msg = f"unknown memory kind {memory!r}; one of {', '.join(MEMORY_KINDS)}"
        raise ValueError(msg)
    if node is None:
        return
    node.user_properties.append((PROPERTY, outcome))
    if crash and outcome in {"crashed", "exception"}:
        node.user_properties.append((CRASH_PROPERTY, crash))
    if memory and outcome == "resource":
        node.user_properties.append((MEMORY_PROPERTY, memory))


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
    """Say which rules a failing test found broken (reports charge those).

    With no rules: the failure broke none of the test's rules (a writer that
    refuses even the corrected request never reached the bad one's).
    """
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


def resource_failure(
    message: str, node: pytest.Item | None = None, *, memory: str = ""
) -> NoReturn:
    """Fail as a ``resource`` outcome: over an allowance, not a wrong verdict.

    ``memory``: ``reserved`` or ``resident`` when memory was the allowance
    passed (the message then starts with it: ``resource (reserved): ...``).
    """
    record(node, "resource", memory=memory)
    kind = f" ({memory})" if memory else ""
    pytest.fail(f"resource{kind}: {message}", pytrace=False)
