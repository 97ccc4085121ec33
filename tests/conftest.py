"""The two tiers, and the modules a run imported.

``slow`` marks every test that runs a whole program (tests/tiers.py):
``pytest -n 2`` deselects them (``-m "not slow"`` in pyproject's addopts);
``pytest -n 2 -m slow`` runs them alone, ``pytest -n 2 -m ""`` runs everything.

With ``STSPEC_REACHED=FOLDER`` each test process writes the files of the
modules it imported or executed into FOLDER at the end of its session, for
tests/reached.py.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path
from types import CodeType

import pytest
from tiers import functions_of, why_slow


@pytest.hookimpl(tryfirst=True)  # before -m deselects by marker
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        if item.get_closest_marker("slow") is None and why_slow(functions_of(item)):
            item.add_marker(pytest.mark.slow)


# The files whose module code ran: an import that ends in SystemExit (a
# __main__ module) leaves no entry in sys.modules, but its code ran.
_EXECUTED: set[str] = set()


def _executed(event: str, args: tuple[object, ...]) -> None:
    if event == "exec" and isinstance(code := args[0], CodeType):
        _EXECUTED.add(code.co_filename)


if os.environ.get("STSPEC_REACHED"):
    sys.addaudithook(_executed)  # for the whole process: hooks cannot be removed


def pytest_sessionfinish(session: pytest.Session) -> None:
    """End the pytest fork servers; record the modules imported (``STSPEC_REACHED``)."""
    # each server is waited for, so the CPU time of its runs counts in this process's
    forked = sys.modules.get("_forked_pytest")
    if forked is not None:
        forked.shutdown()
    folder = os.environ.get("STSPEC_REACHED")
    if not folder:
        return
    del session
    files = {
        file
        for module in list(sys.modules.values())
        if isinstance(file := getattr(module, "__file__", None), str)
    }
    resolved = sorted({str(Path(file).resolve()) for file in files | _EXECUTED})
    worker = os.environ.get("PYTEST_XDIST_WORKER", "main")
    record = Path(folder) / f"{worker}-{os.getpid()}.txt"
    record.write_text("\n".join(resolved) + "\n", encoding="utf-8")
