"""The terminal summary, ``--report-json`` and ``--report-md``."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any, Final

from stspec_conformance import SUITE_VERSION
from stspec_conformance._model import printable
from stspec_conformance._score import (
    GROUP_LABEL,
    KIND_LABEL,
    Score,
    Summary,
    failure_kind,
    ordered,
    summarise,
)

if TYPE_CHECKING:
    from pathlib import Path

    import pytest

    from stspec_conformance._state import Record, SuiteState

__all__ = ["print_summary", "warnings_of", "write_json", "write_md"]

# case ids listed per rule in the terminal and in Markdown cells
SHOWN_CASES: Final = 4
SHOWN_CASES_MD: Final = 12
VIOLATED_TITLE: Final = (
    "rules violated (accepted an invalid file, rejected a valid one, "
    "or loaded/wrote wrong content)"
)
MISCLASSIFIED_TITLE: Final = (
    "rejected as required, but classified under another rule (--check-rules)"
)


def warnings_of(summary: Summary) -> list[str]:
    """Loud findings about the run as a whole."""
    found = []
    if summary.rejects_everything:
        found.append(
            f"the implementation rejected every valid file it was given "
            f"({summary.valid_files} of {summary.valid_files}): it is probably not "
            "running at all (an import error, a missing runtime, a memory limit), "
            "so its n_ and single-fault scores mean nothing; read the message of a "
            "failed must-accept test"
        )
    if summary.stale_baseline:
        found.append(
            f"{len(summary.stale_baseline)} baseline entries name tests that are not "
            "applicable to what the implementation declares; remove them: "
            + _shown(summary.stale_baseline, SHOWN_CASES)
        )
    return found


def _shown(cases: list[str], limit: int) -> str:
    more = len(cases) - limit
    return ", ".join(cases[:limit]) + (f", ... ({more} more)" if more > 0 else "")


def print_summary(terminalreporter: pytest.TerminalReporter, state: SuiteState) -> None:
    """The score section at the end of the terminal output."""
    summary = summarise(state)
    terminalreporter.section(f"safetensors conformance: {state.adapter.label()}")
    for line in _score_lines(summary) + _finding_lines(summary):
        terminalreporter.write_line(line)
    for warning in warnings_of(summary):
        terminalreporter.write_line(f"WARNING: {warning}", red=True, bold=True)
    for hint in summary.hints:
        terminalreporter.write_line(f"declaration hint: {hint}", yellow=True)
    # shown once every case has been handed over (the header could be read
    # by the implementation while it runs: a log file, a pipe in /proc)
    terminalreporter.write_line(
        f"corpus variants: STSPEC_CORPUS_SEED={state.corpus_seed} "
        "(--corpus-seed repeats them)"
    )


def _score_lines(summary: Summary) -> list[str]:
    lines = [
        f"{GROUP_LABEL.get(group, group):<20} {score.render()}"
        for group, score in summary.groups.items()
        if score.counted
    ]
    lines.append(f"{'SCORE':<20} {summary.total.render()}")
    if summary.families:
        lines.append("by rule family (corpus cases, each in its first rule's family):")
        lines += [f"  {f:<18} {s.render()}" for f, s in summary.families.items()]
    return lines


def _finding_lines(summary: Summary) -> list[str]:
    lines = []
    if summary.outcomes:
        parts = ", ".join(f"{k}={v}" for k, v in sorted(summary.outcomes.items()))
        lines.append(f"outcomes: {parts}")
    if summary.failures:
        lines.append("failed tests by kind (baseline xfails included):")
        lines += [
            f"  {count:>4}  {KIND_LABEL.get(kind, kind)}"
            for kind, count in summary.failures.most_common()
        ]
    if summary.tolerated:
        parts = ", ".join(f"{k}={v}" for k, v in sorted(summary.tolerated.items()))
        lines.append(f"tolerated (i_) outcomes: {parts}")
    for title, rules in (
        (VIOLATED_TITLE, summary.violated),
        (MISCLASSIFIED_TITLE, summary.misclassified),
    ):
        if rules:
            lines.append(f"{title}:")
            lines += [
                f"  {rule:<18} {len(cases):>3}: {_shown(cases, SHOWN_CASES)}"
                for rule, cases in rules.items()
            ]
    if not summary.violated:
        lines.append("rules violated: none")
    return lines


def _record_json(state: SuiteState, record: Record) -> dict[str, Any]:
    case = state.corpus.by_id.get(record.case or "")
    return {
        "test": record.name,
        "nodeid": record.nodeid,
        "group": record.group,
        "case": record.case,
        "verdict": case["verdict"] if case else None,
        "rules": list(record.rules),
        "result": record.result,
        "outcome": record.outcome or None,
        "crash": record.crash or None,
        "memory": record.memory or None,
        "failure": failure_kind(record),
        "reported_rule": record.reported_rule,
        "message": record.text or None,
    }


def _score_json(score: Score) -> dict[str, Any]:
    return {
        "passed": score.passed,
        "total": score.total,
        "failures": dict(score.kinds),
        "not_applicable": score.not_applicable,
        "skipped": score.skipped,
    }


def write_json(path: Path, state: SuiteState) -> None:
    """Every test's result plus the summary, as JSON."""
    summary = summarise(state)
    data = {
        "suite_version": SUITE_VERSION,
        "implementation": {
            "name": printable(state.adapter.name),
            "version": printable(state.adapter.version),
            "kind": state.adapter.kind,
            "capabilities": state.adapter.capabilities.as_json(),
        },
        "corpus": str(state.corpus.directory),
        "corpus_seed": state.corpus_seed,
        "summary": {
            "groups": {
                g: _score_json(s) for g, s in summary.groups.items() if s.counted
            },
            "families": {f: _score_json(s) for f, s in summary.families.items()},
            "total": _score_json(summary.total),
            "outcomes": dict(sorted(summary.outcomes.items())),
            "failures": dict(summary.failures.most_common()),
            "rules_violated": summary.violated,
            "rules_misclassified": summary.misclassified,
            "tolerated_outcomes": dict(summary.tolerated),
            "warnings": warnings_of(summary),
            "hints": summary.hints,
        },
        "tests": [_record_json(state, r) for r in ordered(state)],
    }
    # the implementation's text is made encodable where it enters (Outcome);
    # anything that still is not (a test id, pytest's own text) is escaped
    path.write_text(
        json.dumps(data, indent=1, ensure_ascii=False) + "\n",
        encoding="utf-8",
        errors="backslashreplace",
    )


def _cell(text: str) -> str:
    return text.replace("|", "\\|")


# What Markdown or GitHub's HTML would read as markup in a table cell: a tag,
# an entity, a link, a code span.  Untrusted text is written as plain text.
_MARKUP: Final = str.maketrans(
    {
        "&": "&amp;",
        "<": "&lt;",
        ">": "&gt;",
        "[": "\\[",
        "]": "\\]",
        "`": "\\`",
        "|": "\\|",
        "\\": "\\\\",
    }
)


def _text(text: str) -> str:
    """Untrusted text (an implementation's message or name) as a plain cell."""
    return " ".join(printable(text).translate(_MARKUP).split())


def _rule_table(title: str, rules: dict[str, list[str]]) -> list[str]:
    lines = ["", f"### {title}", "", "| rule | tests | cases |", "|---|---:|---|"]
    for rule, cases in rules.items():
        shown = _shown([f"`{c}`" for c in cases], SHOWN_CASES_MD)
        lines.append(f"| `{rule}` | {len(cases)} | {_cell(shown)} |")
    return lines


def write_md(path: Path, state: SuiteState) -> None:
    """A Markdown summary: scores, wrong verdicts by rule, failures, i_ outcomes."""
    summary = summarise(state)
    lines = [f"## safetensors conformance: {_text(state.adapter.label())}", ""]
    lines += [f"> **Warning:** {w}" for w in warnings_of(summary)]
    lines += [f"> **Declaration hint:** {h}" for h in summary.hints]
    lines += [
        "",
        "| group | passed | total | failures | not applicable | skipped |",
        "|---|---:|---:|---|---:|---:|",
    ]
    for group, score in summary.groups.items():
        if score.counted:
            kinds = ", ".join(f"{k} {v}" for k, v in sorted(score.kinds.items()))
            lines.append(
                f"| {GROUP_LABEL[group]} | {score.passed} | {score.total} | {kinds} "
                f"| {score.not_applicable} | {score.skipped} |"
            )
    total = summary.total
    lines.append(
        f"| **total** | {total.passed} | {total.total} | "
        f"| {total.not_applicable} | {total.skipped} |"
    )
    if summary.failures:
        lines += ["", "### Failures by kind", "", "| kind | tests |", "|---|---:|"]
        lines += [
            f"| {KIND_LABEL.get(kind, kind)} | {count} |"
            for kind, count in summary.failures.most_common()
        ]
    if summary.violated:
        lines += _rule_table("Rules violated", summary.violated)
    if summary.misclassified:
        lines += _rule_table("Misclassified (--check-rules)", summary.misclassified)
    failures = [r for r in ordered(state) if failure_kind(r) is not None]
    if failures:
        lines += [
            "",
            "### Failures",
            "",
            "| test | result | kind | message |",
            "|---|---|---|---|",
        ]
        for record in failures:
            lines.append(
                f"| `{record.name}` | {record.result} | {failure_kind(record)} "
                f"| {_text(record.message)} |"
            )
    if summary.tolerated:
        lines += [
            "",
            "### Tolerated (i_) outcomes",
            "",
            "| case | outcome |",
            "|---|---|",
        ]
        for record in ordered(state):
            if record.group == "tolerated" and record.outcome:
                lines.append(f"| `{record.case}` | {record.outcome} |")
    path.write_text(
        "\n".join(lines) + "\n", encoding="utf-8", errors="backslashreplace"
    )
