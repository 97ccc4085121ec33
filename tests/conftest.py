"""The two tiers: ``slow`` marks every test that runs a whole program (tests/tiers.py).

``pytest -n 2`` deselects them (``-m "not slow"`` in pyproject's addopts);
``pytest -n 2 -m slow`` runs them alone, ``pytest -n 2 -m ""`` runs everything.
"""

from __future__ import annotations

import pytest
from tiers import functions_of, why_slow


@pytest.hookimpl(tryfirst=True)  # before -m deselects by marker
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        if item.get_closest_marker("slow") is None and why_slow(functions_of(item)):
            item.add_marker(pytest.mark.slow)
