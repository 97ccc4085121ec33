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
    from collections.abc import Mapping
    from pathlib import Path

    import pytest

    from stspec_conformance._model import Outcome
    from stspec_conformance._state import SuiteState

CASE_SOURCE = "files"


def _load(
    case: dict[str, Any], suite: SuiteState, request: pytest.FixtureRequest
) -> tuple[Mapping[str, Any], Path, Outcome]:
    """Load the run's variant of the case's file, its peak memory measured.

    Returns the case as that variant is judged (:func:`._checks.judged_case`):
    an accepted variant is compared with the reference's reading of it, so a
    run-chosen tensor name or metadata member is content the reader must
    return, and messages say what the variant changed.
    """
    path = suite.corpus.path_of(case)
    # an n_ file's claims are judged allocation by allocation in-process
    invalid = case["verdict"] == "invalid"
    outcome = _checks.attempt(
        suite.adapter,
        path,
        timeout=suite.timeout,
        node=request.node,
        measure_memory="tracemalloc" if invalid else _checks.memory_mode(path),
        case=case,
        seed=suite.corpus_seed,
    )
    return _checks.judged_case(case, outcome), path, outcome


def test_must_accept(
    case: dict[str, Any], suite: SuiteState, request: pytest.FixtureRequest
) -> None:
    """A y_ file loads exactly, within its memory allowance (peak measured)."""
    handed, path, outcome = _load(case, suite, request)
    judged = _verdicts.acceptable(handed, path, outcome, suite.adapter, request.node)
    _checks.must_accept(judged, path, outcome)
    _checks.within_memory(handed, path, outcome, budget=suite.memory_budget)


def test_must_reject(
    case: dict[str, Any], suite: SuiteState, request: pytest.FixtureRequest
) -> None:
    """An n_ file is rejected within its memory allowance (peak measured)."""
    handed, path, outcome = _load(case, suite, request)
    _checks.within_memory(handed, path, outcome, budget=suite.memory_budget)
    _verdicts.must_not_accept(handed, path, outcome, request.node)
    _checks.must_reject(handed, path, outcome, check_rules=suite.check_rules)


def test_tolerated(
    case: dict[str, Any], suite: SuiteState, request: pytest.FixtureRequest
) -> None:
    """An i_ file: either outcome, in memory; if accepted it loads as expected."""
    handed, path, outcome = _load(case, suite, request)
    _checks.within_memory(handed, path, outcome, budget=suite.memory_budget)
    judged = _verdicts.acceptable(handed, path, outcome, suite.adapter, request.node)
    _checks.tolerated(judged, path, outcome)
