"""The pytest plugin: hook wiring only (each concern lives in its own module).

It is registered for every pytest run of an environment that has the package
installed (entry point ``pytest11``), so without ``--impl`` (or
``STSPEC_IMPL``) it does nothing at all: no options are acted on, no test of
the suite is collected, no summary is printed.

``_options`` (command line), ``_collect`` (which tests, their cases, rules
and keywords), ``_baseline``, ``_results`` (reports -> records), ``_score``
and ``_reports`` (terminal, JSON, Markdown).
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING, Final

import pytest
from hypothesis import settings

from stspec_conformance import SUITE_VERSION, _profiles, _smoke, _variants
from stspec_conformance._baseline import apply_baseline, read_baseline, write_baseline
from stspec_conformance._collect import (
    in_suite,
    parametrize_cases,
    tag_items,
    targets_suite,
)
from stspec_conformance._corpus import (
    CorpusError,
    default_corpus_dir,
    generated_corpus_dir,
    load_corpus,
)
from stspec_conformance._fixtures import impl, materialised, scratch, suite
from stspec_conformance._limits import Limits
from stspec_conformance._reports import print_summary, write_json, write_md
from stspec_conformance._results import (
    FAILURES_PROPERTY,
    distinct_failures,
    record_report,
)
from stspec_conformance._score import ordered
from stspec_conformance._state import STATE, SuiteState, state_of
from stspec_conformance.adapters import ImplError, resolve

__all__ = [
    "SuiteState",
    "impl",
    "materialised",
    "pytest_collection_modifyitems",
    "pytest_configure",
    "pytest_configure_node",
    "pytest_generate_tests",
    "pytest_ignore_collect",
    "pytest_report_header",
    "pytest_unconfigure",
    "scratch",
    "suite",
]

if TYPE_CHECKING:
    from collections.abc import Generator, Sequence
    from typing import Any

MIB: Final = 1024 * 1024
# The run's corpus seed reaches xdist workers here, never through the
# environment (which the implementation's processes could read).
SEED_INPUT: Final = "stspec_corpus_seed"

# Hypothesis profiles must exist before hypothesis' own pytest_configure reads
# --hypothesis-profile, so they are registered when this module is imported.
_profiles.register()


def pytest_configure(config: pytest.Config) -> None:
    """Resolve the implementation and the corpus; fail early on a bad --impl."""
    for marker in (
        "stspec_case: a corpus case of the safetensors conformance suite",
        "stspec_writer: needs the implementation's save()",
        "stspec_rules(*ids): the spec rules a suite test checks (-k RULE-ID)",
    ):
        config.addinivalue_line("markers", marker)
    spec = config.getoption("impl")
    if not spec:
        if targets_suite(config):
            raise pytest.UsageError(
                "the safetensors conformance suite needs an implementation: pass "
                "--impl=reference|safetensors|MODULE|PATH.py|'cmd:PROGRAM ARGS...' "
                "or set STSPEC_IMPL"
            )
        return
    memory_limit = config.getoption("memory_limit") * MIB
    limits = Limits(
        config.getoption("case_timeout"),
        config.getoption("wall_timeout"),
        config.getoption("memory_budget") * MIB,
    )
    try:
        adapter = resolve(
            spec,
            memory_limit=memory_limit,
            limits=limits,
            isolate=not config.getoption("in_process"),
        )
        gate = not config.getoption("no_smoke_gate")
        if gate and not hasattr(config, "workerinput"):  # once, in the controller
            _smoke.check(adapter, timeout=limits.cpu_seconds)
    except (ImplError, _smoke.SmokeError) as exc:
        raise pytest.UsageError(str(exc)) from None
    try:
        corpus = load_corpus(_corpus_dir(config))
    except CorpusError as exc:
        raise pytest.UsageError(str(exc)) from None
    damaged = corpus.damaged()
    if damaged:
        raise pytest.UsageError(
            f"the corpus in {corpus.directory} differs from its manifest, so no "
            f"verdict would mean anything: {'; '.join(damaged[:5])}"
            + (f" (and {len(damaged) - 5} more)" if len(damaged) > 5 else "")
            + "; restore it (git checkout corpus/files, or regenerate it)"
        )
    state = SuiteState(
        adapter=adapter,
        corpus=corpus,
        timeout=config.getoption("case_timeout"),
        memory_budget=config.getoption("memory_budget") * MIB,
        check_rules=config.getoption("check_rules"),
        corpus_seed=_corpus_seed(config),
    )
    baseline = config.getoption("baseline")
    if baseline:
        state.baseline = read_baseline(Path(baseline))
        state.baseline_path = baseline
    config.stash[STATE] = state
    config.pluginmanager.register(_Reporter(config, state), "stspec-reporter")
    if config.getoption("hypothesis_profile", None) is None:
        state.previous_profile = settings.get_current_profile_name()
        settings.load_profile(_profiles.DEFAULT_PROFILE)


def _corpus_seed(config: pytest.Config) -> str:
    worker = getattr(config, "workerinput", None)
    if isinstance(worker, dict) and isinstance(worker.get(SEED_INPUT), str):
        return str(worker[SEED_INPUT])
    return _variants.seed(config.getoption("corpus_seed"))


@pytest.hookimpl(optionalhook=True)
def pytest_configure_node(node: Any) -> None:  # noqa: ANN401 - xdist's WorkerController
    """Give each xdist worker the controller's corpus seed."""
    state = state_of(node.config)
    if state is not None:
        node.workerinput[SEED_INPUT] = state.corpus_seed


def pytest_unconfigure(config: pytest.Config) -> None:
    """Put back the hypothesis profile (pytester runs share one process)."""
    state = state_of(config)
    if state is not None and state.previous_profile is not None:
        settings.load_profile(state.previous_profile)


def _corpus_dir(config: pytest.Config) -> Path:
    given = config.getoption("corpus")
    if given:
        return Path(given)
    return default_corpus_dir() or generated_corpus_dir()


def pytest_ignore_collect(collection_path: Path, config: pytest.Config) -> bool | None:
    """Never collect the suite's tests without an implementation."""
    if state_of(config) is None and in_suite(collection_path):
        return True
    return None


def pytest_report_header(config: pytest.Config) -> Sequence[str] | None:
    """Name the implementation, the corpus and the STSPEC_* variables."""
    state = state_of(config)
    if state is None:
        return None
    lines = [
        f"stspec conformance suite {SUITE_VERSION}: {state.adapter.label()}",
        f"capabilities: {state.adapter.capabilities.describe()}",
        f"corpus: {state.corpus.directory} ({len(state.corpus.cases)} cases)",
    ]
    lines += [
        f"{k}={v}"
        for k, v in sorted(os.environ.items())
        if k.startswith("STSPEC_") and k != _variants.SEED_VARIABLE
    ]
    return lines


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    """Parametrise the corpus tests with the manifest's cases."""
    state = state_of(metafunc.config)
    if state is not None and in_suite(metafunc.definition.path):
        parametrize_cases(metafunc, state)


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(
    config: pytest.Config, items: list[pytest.Item]
) -> None:
    """Tag suite items (before -k runs) and apply the baseline."""
    state = state_of(config)
    if state is not None:
        apply_baseline(tag_items(items, state), state)


class _Reporter:
    """Per-run hooks that need the state (registered only when active)."""

    def __init__(self, config: pytest.Config, state: SuiteState) -> None:
        self.config = config
        self.state = state

    def _controller(self) -> bool:
        return not hasattr(self.config, "workerinput")

    @pytest.hookimpl(wrapper=True)
    def pytest_runtest_makereport(
        self, item: pytest.Item, call: pytest.CallInfo[None]
    ) -> Generator[None, pytest.TestReport, pytest.TestReport]:
        """Keep each of several distinct failures (in the worker that ran them)."""
        report = yield
        if call.excinfo is not None and report.failed:
            failures = distinct_failures(call.excinfo.value)
            if failures is not None:
                report.user_properties.append((FAILURES_PROPERTY, failures))
        del item
        return report

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        """Record each suite test's result (in the controller under xdist)."""
        if self._controller():
            record_report(self.state, report)

    def pytest_terminal_summary(
        self, terminalreporter: pytest.TerminalReporter
    ) -> None:
        """Print the conformance score (controller only)."""
        if self._controller() and self.state.records:
            print_summary(terminalreporter, self.state)

    def pytest_sessionfinish(self) -> None:
        """Write --report-json, --report-md and --write-baseline (controller only)."""
        if not self._controller():
            return
        if path := self.config.getoption("report_json"):
            write_json(Path(path), self.state)
        if path := self.config.getoption("report_md"):
            write_md(Path(path), self.state)
        if path := self.config.getoption("write_baseline"):
            write_baseline(Path(path), self.state, ordered(self.state))
