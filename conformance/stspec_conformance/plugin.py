"""The pytest plugin: options, implementation, cases, baseline, scores, reports.

It is registered for every pytest run of an environment that has the package
installed (entry point ``pytest11``), so without ``--impl`` (or
``STSPEC_IMPL``) it does nothing at all: no options are acted on, no test of
the suite is collected, no summary is printed.
"""

from __future__ import annotations

import json
import os
import re
import warnings
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final

import pytest
from hypothesis import HealthCheck, settings

from stspec_conformance import SUITE_VERSION
from stspec_conformance._corpus import (
    VERDICT_FOR_TEST,
    Corpus,
    CorpusError,
    default_corpus_dir,
    generated_corpus_dir,
    load_corpus,
    materialise,
)
from stspec_conformance.adapters import Adapter, ImplError, resolve

if TYPE_CHECKING:
    from collections.abc import Callable, Iterator

# Hypothesis profiles must exist before hypothesis' own pytest_configure reads
# --hypothesis-profile, so they are registered when this module is imported.
_QUIET: Final = [
    HealthCheck.too_slow,
    HealthCheck.data_too_large,
    HealthCheck.filter_too_much,
]
settings.register_profile(
    "stspec-ci",
    max_examples=25,
    derandomize=True,
    database=None,
    deadline=None,
    print_blob=False,
    suppress_health_check=_QUIET,
)
settings.register_profile(
    "stspec-thorough",
    max_examples=2000,
    deadline=None,
    suppress_health_check=_QUIET,
)

SUITE_DIR: Final = Path(__file__).resolve().parent / "tests"
MIB: Final = 1024 * 1024
DEFAULT_TIMEOUT: Final = 10.0
DEFAULT_CMD_MEMORY_MIB: Final = 2048
DEFAULT_MEMORY_BUDGET_MIB: Final = 64
STATE: Final = pytest.StashKey["SuiteState"]()
_CASE_TESTS: Final = frozenset(VERDICT_FOR_TEST)
_SUFFIX: Final = re.compile(r"(?:^|::)([^:]+)$")


@dataclass(slots=True)
class Record:
    """What the controller learnt about one test from its reports."""

    nodeid: str
    name: str
    group: str
    case: str | None
    result: str = "passed"
    outcome: str = ""
    message: str = ""
    reported_rule: str | None = None
    detail: str = ""  # the implementation's own message (from the test)

    @property
    def text(self) -> str:
        """The failure line, else the implementation's message."""
        return self.message or self.detail


@dataclass(slots=True, repr=False)
class SuiteState:
    """Everything the plugin knows once an implementation is chosen."""

    adapter: Adapter
    corpus: Corpus
    timeout: float
    memory_budget: int
    check_rules: bool
    baseline: dict[str, str] | None = None
    baseline_path: str | None = None
    previous_profile: str | None = None
    records: dict[str, Record] = field(default_factory=dict)

    def __repr__(self) -> str:
        """Short: hypothesis prints the fixtures of a failing example."""
        return f"<suite: {self.adapter.label()}>"

    def _repr_pretty_(self, printer: Any, cycle: bool) -> None:  # noqa: ANN401
        """Hypothesis' pretty printer would otherwise list every field."""
        del cycle
        printer.text(repr(self))


# --- options -------------------------------------------------------------------


def pytest_addoption(parser: pytest.Parser) -> None:
    """Add the suite's options (all inert without --impl)."""
    group = parser.getgroup("stspec", "safetensors conformance suite")
    group.addoption(
        "--impl",
        default=os.environ.get("STSPEC_IMPL"),
        help="implementation under test: reference, safetensors, a module name, "
        "a path to a .py file, or 'cmd:PROGRAM ARGS...' (env STSPEC_IMPL)",
    )
    group.addoption(
        "--corpus",
        default=os.environ.get("STSPEC_CORPUS"),
        help="corpus directory holding manifest.json (env STSPEC_CORPUS; default: "
        "the corpus next to stspec_corpus, else generated into a cache dir)",
    )
    group.addoption(
        "--baseline", help="known deviations: matching tests become strict xfails"
    )
    group.addoption("--write-baseline", help="write today's failures to this file")
    group.addoption(
        "--check-rules",
        action="store_true",
        help="also check that rejections name the rule the case breaks",
    )
    group.addoption("--report-json", help="write a per-case JSON report to this file")
    group.addoption("--report-md", help="write a Markdown summary to this file")
    group.addoption(
        "--case-timeout",
        type=float,
        default=DEFAULT_TIMEOUT,
        help=f"seconds one load or save may take (default {DEFAULT_TIMEOUT:g})",
    )
    group.addoption(
        "--memory-limit",
        type=int,
        default=DEFAULT_CMD_MEMORY_MIB,
        help="address-space limit in MiB for cmd: implementations "
        f"(RLIMIT_AS, default {DEFAULT_CMD_MEMORY_MIB})",
    )
    group.addoption(
        "--memory-budget",
        type=int,
        default=DEFAULT_MEMORY_BUDGET_MIB,
        help="MiB an in-process implementation may allocate (tracemalloc peak) "
        "on a hostile large case, on top of the bytes the file really holds "
        f"(default {DEFAULT_MEMORY_BUDGET_MIB})",
    )


def _targets_suite(config: pytest.Config) -> bool:
    """Whether the command line points pytest at the suite's own tests."""
    for arg in config.args:
        text = arg.split("::")[0]
        if text == "stspec_conformance" or text.startswith("stspec_conformance."):
            return True
        path = Path(config.invocation_params.dir, text).resolve()
        if (
            path == SUITE_DIR
            or SUITE_DIR in path.parents
            or path in SUITE_DIR.parents[:2]
        ):
            return True
    return False


def pytest_configure(config: pytest.Config) -> None:
    """Resolve the implementation and the corpus; fail early on a bad --impl."""
    for marker in (
        "stspec_case: a corpus case of the safetensors conformance suite",
        "stspec_writer: needs the implementation's save()",
    ):
        config.addinivalue_line("markers", marker)
    spec = config.getoption("impl")
    if not spec:
        if _targets_suite(config):
            raise pytest.UsageError(
                "the safetensors conformance suite needs an implementation: pass "
                "--impl=reference|safetensors|MODULE|PATH.py|'cmd:PROGRAM ARGS...' "
                "or set STSPEC_IMPL"
            )
        return
    memory_limit = config.getoption("memory_limit") * MIB
    try:
        adapter = resolve(spec, memory_limit=memory_limit)
    except ImplError as exc:
        raise pytest.UsageError(str(exc)) from None
    try:
        corpus = load_corpus(_corpus_dir(config))
    except CorpusError as exc:
        raise pytest.UsageError(str(exc)) from None
    state = SuiteState(
        adapter=adapter,
        corpus=corpus,
        timeout=config.getoption("case_timeout"),
        memory_budget=config.getoption("memory_budget") * MIB,
        check_rules=config.getoption("check_rules"),
    )
    baseline = config.getoption("baseline")
    if baseline:
        state.baseline = read_baseline(Path(baseline))
        state.baseline_path = baseline
    config.stash[STATE] = state
    config.pluginmanager.register(_Reporter(config, state), "stspec-reporter")
    if config.getoption("hypothesis_profile", None) is None:
        state.previous_profile = settings.get_current_profile_name()
        settings.load_profile("stspec-ci")


def pytest_unconfigure(config: pytest.Config) -> None:
    """Put back the hypothesis profile (pytester runs share one process)."""
    state = _state(config)
    if state is not None and state.previous_profile is not None:
        settings.load_profile(state.previous_profile)


def _corpus_dir(config: pytest.Config) -> Path:
    given = config.getoption("corpus")
    if given:
        return Path(given)
    return default_corpus_dir() or generated_corpus_dir()


def read_baseline(path: Path) -> dict[str, str]:
    """Parse a baseline file: one node-id suffix per line, ``#`` comments."""
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except OSError as exc:
        raise pytest.UsageError(f"--baseline {path}: {exc}") from None
    entries: dict[str, str] = {}
    comment: list[str] = []
    in_comment = False
    for raw in lines:
        line = raw.strip()
        if line.startswith("#"):
            if not in_comment:
                comment = []
            comment.append(line.lstrip("# "))
            in_comment = True
            continue
        in_comment = False
        if not line:
            continue
        entry, _, trailing = line.partition(" #")
        entries[entry.strip()] = trailing.strip() or " ".join(c for c in comment if c)
    return entries


def _state(config: pytest.Config) -> SuiteState | None:
    return config.stash.get(STATE, None)


def pytest_ignore_collect(collection_path: Path, config: pytest.Config) -> bool | None:
    """Never collect the suite's tests without an implementation."""
    if _state(config) is None and (
        collection_path == SUITE_DIR or SUITE_DIR in collection_path.parents
    ):
        return True
    return None


def pytest_report_header(config: pytest.Config) -> list[str] | None:
    """Name the implementation, the corpus and the STSPEC_* variables."""
    state = _state(config)
    if state is None:
        return None
    lines = [
        f"stspec conformance suite {SUITE_VERSION}: {state.adapter.label()}",
        f"capabilities: {state.adapter.capabilities.describe()}",
        f"corpus: {state.corpus.directory} ({len(state.corpus.cases)} cases)",
    ]
    lines += [
        f"{k}={v}" for k, v in sorted(os.environ.items()) if k.startswith("STSPEC_")
    ]
    return lines


# --- fixtures --------------------------------------------------------------------


@pytest.fixture(scope="session")
def suite(request: pytest.FixtureRequest) -> SuiteState:
    """The suite's state (implementation, corpus, limits)."""
    state = _state(request.config)
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


# --- collection -----------------------------------------------------------------


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    """Parametrise the corpus tests with the manifest's cases (ids = case ids)."""
    state = _state(metafunc.config)
    name = metafunc.function.__name__
    if state is None or "case" not in metafunc.fixturenames or name not in _CASE_TESTS:
        return
    verdict = VERDICT_FOR_TEST[name]
    source = getattr(metafunc.module, "CASE_SOURCE", "files")
    if source == "recipes":
        cases = state.corpus.recipe_cases(verdict)
    else:
        cases = state.corpus.file_cases(verdict)
    metafunc.parametrize(
        "case",
        [pytest.param(c, id=c["id"], marks=pytest.mark.stspec_case) for c in cases],
    )


def suffix_of(nodeid: str) -> str:
    """``path::test_x[param]`` -> ``test_x[param]`` (what baselines match)."""
    match = _SUFFIX.search(nodeid)
    return match.group(1) if match else nodeid


def _group_of(name: str) -> str:
    base = name.split("[", 1)[0]
    if base in VERDICT_FOR_TEST:
        return VERDICT_FOR_TEST[base]
    if base.startswith("test_writer"):
        return "writer"
    if base.startswith("test_single_fault"):
        return "single-fault"
    return "properties"


def _case_of(name: str) -> str | None:
    base, _, param = name.partition("[")
    return param.rstrip("]") if base in VERDICT_FOR_TEST and param else None


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(
    config: pytest.Config, items: list[pytest.Item]
) -> None:
    """Attach case info to items and turn baseline entries into strict xfails."""
    state = _state(config)
    if state is None:
        return
    # a verdict class with no cases leaves a [NOTSET] placeholder: drop it
    empty = [
        item
        for item in items
        if item.name.endswith("[NOTSET]") and _in_suite(item.nodeid, item.path)
    ]
    if empty:
        config.hook.pytest_deselected(items=empty)
        items[:] = [item for item in items if item not in empty]
    matched: set[str] = set()
    for item in items:
        if not _in_suite(item.nodeid, item.path):
            continue
        name = suffix_of(item.nodeid)
        case_id = _case_of(name)
        item.user_properties.append(("stspec_group", _group_of(name)))
        if case_id is not None and case_id in state.corpus.by_id:
            case = state.corpus.by_id[case_id]
            item.user_properties.append(("case", case_id))
            item.user_properties.append(("verdict", case["verdict"]))
            item.user_properties.append(("rules", " ".join(case["rules"])))
        if state.baseline is None:
            continue
        entry = _baseline_entry(state.baseline, item.nodeid, name)
        if entry is not None:
            matched.add(entry)
            reason = state.baseline[entry] or "listed in the baseline"
            item.add_marker(
                pytest.mark.xfail(strict=True, reason=f"baseline: {reason}")
            )
    if state.baseline is not None:
        unmatched = sorted(set(state.baseline) - matched)
        if unmatched:
            warnings.warn(
                pytest.PytestWarning(
                    f"--baseline {state.baseline_path}: {len(unmatched)} entries match "
                    f"no test: {', '.join(unmatched[:20])}"
                ),
                stacklevel=1,
            )


def _in_suite(nodeid: str, path: Path | None) -> bool:
    if path is not None and (path == SUITE_DIR or SUITE_DIR in path.parents):
        return True
    return "stspec_conformance/tests/" in nodeid


def _baseline_entry(baseline: dict[str, str], nodeid: str, name: str) -> str | None:
    if name in baseline:
        return name
    for entry in baseline:
        if nodeid.endswith(("/" + entry, "::" + entry)):
            return entry
    return None


# --- results --------------------------------------------------------------------


class _Reporter:
    """Per-run hooks that need the state (registered only when active)."""

    def __init__(self, config: pytest.Config, state: SuiteState) -> None:
        self.config = config
        self.state = state

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        """Record each suite test's result (in the controller under xdist)."""
        if hasattr(self.config, "workerinput") or not _in_suite(report.nodeid, None):
            return
        records = self.state.records
        record = records.get(report.nodeid)
        if record is None:
            name = suffix_of(report.nodeid)
            record = Record(report.nodeid, name, _group_of(name), _case_of(name))
            records[report.nodeid] = record
        props = dict(report.user_properties)
        record.outcome = str(props.get("outcome", record.outcome))
        rule = props.get("reported_rule", record.reported_rule)
        record.reported_rule = None if rule is None else str(rule)
        record.detail = str(props.get("message", record.detail))
        result = _result_of(report)
        if result is not None and _RANK[result] >= _RANK[record.result]:
            record.result = result
            if result in {"failed", "error", "crashed", "xfailed"}:
                record.message = _failure_line(report) or record.message

    def pytest_terminal_summary(
        self, terminalreporter: pytest.TerminalReporter
    ) -> None:
        """Print the conformance score (controller only)."""
        if not hasattr(self.config, "workerinput") and self.state.records:
            _print_summary(terminalreporter, self.state)

    def pytest_sessionfinish(self) -> None:
        """Write --report-json, --report-md and --write-baseline (controller only)."""
        if hasattr(self.config, "workerinput"):
            return
        if path := self.config.getoption("report_json"):
            _write_json(Path(path), self.state)
        if path := self.config.getoption("report_md"):
            _write_md(Path(path), self.state)
        if path := self.config.getoption("write_baseline"):
            _write_baseline(Path(path), self.state)


_RANK: Final = {
    "passed": 0,
    "skipped": 1,
    "xfailed": 2,
    "failed": 3,
    "error": 4,
    "crashed": 5,
}


def _result_of(report: pytest.TestReport) -> str | None:
    if hasattr(report, "wasxfail"):
        return "xfailed" if report.skipped else None
    if report.when == "call":
        if report.failed and "crashed while running" in str(report.longrepr):
            return "crashed"
        return report.outcome
    if report.failed:
        return "crashed" if "crashed while running" in str(report.longrepr) else "error"
    if report.skipped:
        return "skipped"
    return None


def _failure_line(report: pytest.TestReport) -> str:
    crash = getattr(report.longrepr, "reprcrash", None)
    text = getattr(crash, "message", None) or str(report.longrepr or "")
    if report.skipped and isinstance(report.longrepr, tuple):
        text = str(report.longrepr[2])
    text = " ".join(text.split())
    text = text.removeprefix("Failed: ").removeprefix("AssertionError: ")
    return text if len(text) <= 300 else text[:297] + "..."


# --- summary and reports ----------------------------------------------------------


@dataclass(slots=True)
class Score:
    """Passed out of total, with the failures counted by kind."""

    passed: int = 0
    total: int = 0
    kinds: Counter[str] = field(default_factory=Counter)

    def add(self, record: Record) -> None:
        """Count one record (skips count nowhere)."""
        if record.result == "skipped":
            return
        self.total += 1
        if record.result == "passed":
            self.passed += 1
        else:
            self.kinds[record.result] += 1

    def render(self) -> str:
        """``passed/total (xx.x%)  failed=n``."""
        percent = 100.0 * self.passed / self.total if self.total else 100.0
        extra = " ".join(f"{k}={v}" for k, v in sorted(self.kinds.items()))
        return f"{self.passed:>4}/{self.total:<4} {percent:5.1f}%  {extra}".rstrip()


_GROUPS: Final = (
    "valid",
    "invalid",
    "tolerated",
    "properties",
    "single-fault",
    "writer",
)
_GROUP_LABEL: Final = {
    "valid": "must accept (y_)",
    "invalid": "must reject (n_)",
    "tolerated": "tolerated (i_)",
    "properties": "properties",
    "single-fault": "single faults",
    "writer": "writer",
}


@dataclass(slots=True)
class Summary:
    """Scores by group and rule family, violated rules, i_ outcomes."""

    groups: dict[str, Score]
    families: dict[str, Score]
    violated: dict[str, list[str]]
    tolerated: Counter[str]
    total: Score


def summarise(state: SuiteState) -> Summary:
    """Aggregate the records into the summary's numbers."""
    from stspec import RULES_BY_ID  # noqa: PLC0415 - only when reporting

    groups: dict[str, Score] = {g: Score() for g in _GROUPS}
    families: dict[str, Score] = defaultdict(Score)
    violated: dict[str, list[str]] = defaultdict(list)
    tolerated: Counter[str] = Counter()
    total = Score()
    for record in state.records.values():
        groups.setdefault(record.group, Score()).add(record)
        total.add(record)
        rules = _rules_of(state, record)
        if record.case is not None:
            fams = {RULES_BY_ID[r].family for r in rules if r in RULES_BY_ID}
            for fam in sorted(fams) or ["(no rule)"]:
                families[fam].add(record)
        if record.group == "tolerated" and record.outcome:
            tolerated[record.outcome] += 1
        if record.result not in {"passed", "skipped"} and record.group in {
            "invalid",
            "single-fault",
        }:
            for rule in rules:
                violated[rule].append(record.case or record.name)
    return Summary(
        groups,
        dict(sorted(families.items())),
        dict(sorted(violated.items())),
        tolerated,
        total,
    )


def _rules_of(state: SuiteState, record: Record) -> list[str]:
    if record.case is not None and record.case in state.corpus.by_id:
        return list(state.corpus.by_id[record.case]["rules"])
    if record.group == "single-fault":
        param = record.name.partition("[")[2].rstrip("]")
        return [param.split("/", 1)[0]] if param else []
    return []


def _print_summary(
    terminalreporter: pytest.TerminalReporter, state: SuiteState
) -> None:
    summary = summarise(state)
    write = terminalreporter.write_line
    terminalreporter.section(f"safetensors conformance: {state.adapter.label()}")
    for group, score in summary.groups.items():
        if score.total:
            write(f"{_GROUP_LABEL.get(group, group):<20} {score.render()}")
    write(f"{'SCORE':<20} {summary.total.render()}")
    if summary.families:
        write("by rule family (corpus cases):")
        for fam, score in summary.families.items():
            write(f"  {fam:<18} {score.render()}")
    if summary.tolerated:
        parts = ", ".join(f"{k}={v}" for k, v in sorted(summary.tolerated.items()))
        write(f"tolerated (i_) outcomes: {parts}")
    if summary.violated:
        write("rules violated:")
        for rule, cases in summary.violated.items():
            shown = ", ".join(cases[:4]) + (", ..." if len(cases) > 4 else "")
            write(f"  {rule:<18} {len(cases):>3} case(s): {shown}")
    else:
        write("rules violated: none")


def _record_json(state: SuiteState, record: Record) -> dict[str, Any]:
    case = state.corpus.by_id.get(record.case or "")
    return {
        "test": record.name,
        "nodeid": record.nodeid,
        "group": record.group,
        "case": record.case,
        "verdict": case["verdict"] if case else None,
        "rules": _rules_of(state, record),
        "result": record.result,
        "outcome": record.outcome or None,
        "reported_rule": record.reported_rule,
        "message": record.text or None,
    }


def _write_json(path: Path, state: SuiteState) -> None:
    summary = summarise(state)
    data = {
        "suite_version": SUITE_VERSION,
        "implementation": {
            "name": state.adapter.name,
            "version": state.adapter.version,
            "kind": state.adapter.kind,
        },
        "corpus": str(state.corpus.directory),
        "summary": {
            "groups": {g: _score_json(s) for g, s in summary.groups.items() if s.total},
            "families": {f: _score_json(s) for f, s in summary.families.items()},
            "total": _score_json(summary.total),
            "rules_violated": summary.violated,
            "tolerated_outcomes": dict(summary.tolerated),
        },
        "tests": [
            _record_json(state, r) for r in sorted(state.records.values(), key=_order)
        ],
    }
    path.write_text(
        json.dumps(data, indent=1, ensure_ascii=False) + "\n", encoding="utf-8"
    )


def _score_json(score: Score) -> dict[str, Any]:
    return {"passed": score.passed, "total": score.total, "failures": dict(score.kinds)}


def _order(record: Record) -> tuple[int, str]:
    rank = _GROUPS.index(record.group) if record.group in _GROUPS else len(_GROUPS)
    return rank, record.name


def _write_md(path: Path, state: SuiteState) -> None:
    summary = summarise(state)
    lines = [
        f"## safetensors conformance: {state.adapter.label()}",
        "",
        "| group | passed | total | failures |",
        "|---|---:|---:|---|",
    ]
    for group, score in summary.groups.items():
        if score.total:
            kinds = ", ".join(f"{k} {v}" for k, v in sorted(score.kinds.items()))
            lines.append(
                f"| {_GROUP_LABEL[group]} | {score.passed} | {score.total} | {kinds} |"
            )
    lines.append(f"| **total** | {summary.total.passed} | {summary.total.total} | |")
    if summary.violated:
        lines += ["", "### Rules violated", "", "| rule | cases |", "|---|---|"]
        for rule, cases in summary.violated.items():
            lines.append(f"| `{rule}` | {', '.join(f'`{c}`' for c in cases)} |")
    failures = [
        r
        for r in sorted(state.records.values(), key=_order)
        if r.result not in {"passed", "skipped"}
    ]
    if failures:
        lines += [
            "",
            "### Failures",
            "",
            "| test | result | message |",
            "|---|---|---|",
        ]
        for record in failures:
            message = record.message.replace("|", "\\|")
            lines.append(f"| `{record.name}` | {record.result} | {message} |")
    if summary.tolerated:
        lines += [
            "",
            "### Tolerated (i_) outcomes",
            "",
            "| case | outcome |",
            "|---|---|",
        ]
        for record in sorted(state.records.values(), key=_order):
            if record.group == "tolerated" and record.outcome:
                lines.append(f"| `{record.case}` | {record.outcome} |")
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")


def _write_baseline(path: Path, state: SuiteState) -> None:
    lines = [
        f"# Known deviations of {state.adapter.name} {state.adapter.version} from the",
        "# safetensors conformance suite (written by --write-baseline; pass it back",
        "# with --baseline so these become strict expected failures).",
    ]
    for record in sorted(state.records.values(), key=_order):
        if record.result in {"failed", "error", "crashed", "xfailed"}:
            message = record.message.removeprefix("baseline: ")
            lines += ["", f"# {message}" if message else "#", record.name]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
