"""The ``pytest11`` entry point: the suite's options, and the suite only when asked.

pytest imports this module in every run of every environment that has the
package installed, also when only the base package (no ``[conformance]``
extra, so no hypothesis) is there.  It therefore imports nothing beyond pytest
and the suite's light modules, and hands over to ``stspec_conformance.plugin``
(hypothesis, adapters, corpus) only when the run asks for the suite:

* ``--impl=X`` on the command line, or
* the command line names the suite's tests (``--pyargs stspec_conformance``,
  or ``conformance/`` in a checkout); ``STSPEC_IMPL`` then gives the
  implementation, and without one the run is a usage error.

A ``STSPEC_IMPL`` left in the environment does not pull the suite into
unrelated runs.  ``--baseline`` also takes the name of a baseline the package
ships (``--baseline=safetensors-0.8.0``).
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Final

import pytest

from stspec_conformance import _watch
from stspec_conformance._collect import targets_suite
from stspec_conformance._options import pytest_addoption

__all__ = [
    "baselines_dir",
    "pytest_addoption",
    "pytest_cmdline_main",
    "pytest_configure",
    "pytest_unconfigure",
    "shipped_baseline",
]

PLUGIN: Final = "stspec_conformance.plugin"
_PACKAGE: Final = Path(__file__).resolve().parent


def baselines_dir() -> Path:
    """The shipped baselines: inside the package (wheel), else the checkout's."""
    inside = _PACKAGE / "baselines"
    return inside if inside.is_dir() else _PACKAGE.parent / "baselines"


def shipped_baseline(value: str) -> str:
    """Map a bare baseline name to the shipped file; leave paths alone."""
    if os.sep in value or "/" in value or Path(value).exists():
        return value
    candidate = baselines_dir() / f"{value.removesuffix('.txt')}.txt"
    return str(candidate) if candidate.is_file() else value


@pytest.hookimpl(tryfirst=True)
def pytest_configure(config: pytest.Config) -> None:
    """Load the suite's plugin if this run asks for it; otherwise do nothing.

    ``tryfirst``: the plugin registers its hypothesis profiles on import, and
    hypothesis' own ``pytest_configure`` loads ``--hypothesis-profile`` by name.
    """
    explicit = config.getoption("impl")
    if not explicit and not targets_suite(config):
        return
    if not explicit:
        config.option.impl = os.environ.get("STSPEC_IMPL") or None
    baseline = config.getoption("baseline")
    if baseline:
        config.option.baseline = shipped_baseline(baseline)
    # import_plugin registers it once (a checkout's conftest may have already)
    config.pluginmanager.import_plugin(PLUGIN)


@pytest.hookimpl(tryfirst=True)
def pytest_cmdline_main(config: pytest.Config) -> int | None:
    """With ``--in-process``, run the suite as a watched child (see :mod:`._watch`)."""
    if not config.getoption("impl") and not targets_suite(config):
        return None
    return _watch.watch(config)


@pytest.hookimpl(trylast=True)
def pytest_unconfigure(config: pytest.Config) -> None:
    """In a watched child, record that pytest ended the run itself."""
    if not hasattr(config, "workerinput"):
        _watch.finished()
