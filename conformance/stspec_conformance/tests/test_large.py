"""Large and hostile cases built from the manifest's recipes at run time.

Each file is materialised once per session (sparse where it claims offsets
past 4 GiB or 2^53).  Every load runs under the per-case time limit; an
in-process implementation's allocations are measured with tracemalloc and a
``cmd:`` implementation runs under RLIMIT_AS, so reading gigabytes because a
16-byte file says so fails.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from stspec_conformance import _checks, _verdicts

if TYPE_CHECKING:
    from collections.abc import Callable
    from pathlib import Path

    import pytest

    from stspec_conformance._state import SuiteState

CASE_SOURCE = "recipes"


def _load(
    case: dict[str, Any],
    suite: SuiteState,
    materialised: Callable[[str], Path],
    request: pytest.FixtureRequest,
) -> tuple[Path, Any]:
    path = materialised(case["id"])
    outcome = _checks.attempt(
        suite.adapter,
        path,
        timeout=suite.timeout,
        node=request.node,
        measure_memory=_checks.memory_mode(path),
    )
    return path, outcome


def test_must_accept(
    case: dict[str, Any],
    suite: SuiteState,
    materialised: Callable[[str], Path],
    request: pytest.FixtureRequest,
) -> None:
    """A large valid file loads exactly, in time and memory."""
    path, outcome = _load(case, suite, materialised, request)
    judged = _verdicts.acceptable(case, path, outcome, suite.adapter, request.node)
    _checks.must_accept(judged, path, outcome)
    _checks.within_memory(case, path, outcome, budget=suite.memory_budget)


def test_must_reject(
    case: dict[str, Any],
    suite: SuiteState,
    materialised: Callable[[str], Path],
    request: pytest.FixtureRequest,
) -> None:
    """A hostile file is rejected in time and without a large allocation."""
    path, outcome = _load(case, suite, materialised, request)
    _checks.within_memory(case, path, outcome, budget=suite.memory_budget)
    _verdicts.must_not_accept(case, path, outcome, request.node)
    _checks.must_reject(case, path, outcome, check_rules=suite.check_rules)


def test_tolerated(
    case: dict[str, Any],
    suite: SuiteState,
    materialised: Callable[[str], Path],
    request: pytest.FixtureRequest,
) -> None:
    """A large tolerated file: either outcome, in time and memory."""
    path, outcome = _load(case, suite, materialised, request)
    _checks.within_memory(case, path, outcome, budget=suite.memory_budget)
    judged = _verdicts.acceptable(case, path, outcome, suite.adapter, request.node)
    _checks.tolerated(judged, path, outcome)
