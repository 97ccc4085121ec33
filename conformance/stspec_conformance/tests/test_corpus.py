"""Every committed corpus case, by verdict class (ids are the manifest ids).

Judged within the implementation's declaration (``_verdicts``): a valid file
of an undeclared dtype that is rejected is not applicable; a header-only
validator is compared on names, dtypes, shapes and metadata.  An n_ case is
never not applicable: every fault is visible from the prefix, the header and
the file's length (``LAYOUT-BOUNDS``, ``LAYOUT-TRAILING`` and ``HEADER-BOUNDS``
need the length, no rule needs tensor bytes), so a header-only validator must
reject all of them.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from stspec_conformance import _checks, _verdicts

if TYPE_CHECKING:
    import pytest

    from stspec_conformance._state import SuiteState

CASE_SOURCE = "files"


def test_must_accept(
    case: dict[str, Any], suite: SuiteState, request: pytest.FixtureRequest
) -> None:
    """A y_ file loads with exactly the expected metadata, dtypes, shapes and bytes."""
    path = suite.corpus.path_of(case)
    outcome = _checks.attempt(
        suite.adapter, path, timeout=suite.timeout, node=request.node, case=case
    )
    judged = _verdicts.acceptable(case, path, outcome, suite.adapter, request.node)
    _checks.must_accept(judged, path, outcome)


def test_must_reject(
    case: dict[str, Any], suite: SuiteState, request: pytest.FixtureRequest
) -> None:
    """An n_ file is rejected within its memory allowance (peak measured)."""
    path = suite.corpus.path_of(case)
    outcome = _checks.attempt(
        suite.adapter,
        path,
        timeout=suite.timeout,
        node=request.node,
        case=case,
        measure_memory="tracemalloc",
    )
    _checks.within_memory(case, path, outcome, budget=suite.memory_budget)
    _verdicts.must_not_accept(case, path, outcome, request.node)
    _checks.must_reject(case, path, outcome, check_rules=suite.check_rules)


def test_tolerated(
    case: dict[str, Any], suite: SuiteState, request: pytest.FixtureRequest
) -> None:
    """An i_ file may be accepted or rejected; if accepted it loads as expected."""
    path = suite.corpus.path_of(case)
    outcome = _checks.attempt(
        suite.adapter, path, timeout=suite.timeout, node=request.node, case=case
    )
    judged = _verdicts.acceptable(case, path, outcome, suite.adapter, request.node)
    _checks.tolerated(judged, path, outcome)
