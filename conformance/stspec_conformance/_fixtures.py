"""The fixtures the suite's tests use (``suite``, ``impl``, ``scratch``, ...)."""

from __future__ import annotations

from typing import TYPE_CHECKING

import pytest

from stspec_conformance._corpus import CorpusError, materialise
from stspec_conformance._state import state_of

if TYPE_CHECKING:
    from collections.abc import Callable, Iterator
    from pathlib import Path

    from stspec_conformance._state import SuiteState
    from stspec_conformance.adapters import Adapter

__all__ = ["impl", "materialised", "scratch", "suite"]


@pytest.fixture(scope="session")
def suite(request: pytest.FixtureRequest) -> SuiteState:
    """The suite's state (implementation, corpus, limits)."""
    state = state_of(request.config)
    if state is None:  # pragma: no cover - collection is ignored without --impl
        pytest.skip("no --impl given")
    return state


@pytest.fixture(scope="session")
def impl(suite: SuiteState) -> Adapter:
    """The implementation under test."""
    return suite.adapter


@pytest.fixture(scope="session")
def scratch(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A session directory for files written by property tests."""
    return tmp_path_factory.mktemp("stspec-scratch")


@pytest.fixture(scope="session")
def materialised(
    tmp_path_factory: pytest.TempPathFactory, suite: SuiteState
) -> Iterator[Callable[[str], Path]]:
    """Build recipe cases on demand, once per session (per xdist worker)."""
    directory = tmp_path_factory.mktemp("stspec-recipes")
    made: dict[str, Path] = {}

    def get(case_id: str) -> Path:
        if case_id not in made:
            try:
                made[case_id] = materialise(case_id, directory)
            except CorpusError as exc:
                pytest.fail(str(exc), pytrace=False)
        return made[case_id]

    del suite
    yield get
    for path in made.values():
        path.unlink(missing_ok=True)
