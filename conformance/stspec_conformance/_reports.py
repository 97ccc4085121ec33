"""The terminal summary, ``--report-json`` and ``--report-md``."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

from stspec_conformance import SUITE_VERSION
from stspec_conformance._score import GROUP_LABEL, Score, ordered, summarise

if TYPE_CHECKING:
    from pathlib import Path

    import pytest

    from stspec_conformance._state import Record, SuiteState

__all__ = ["print_summary", "write_json", "write_md"]


def print_summary(terminalreporter: pytest.TerminalReporter, state: SuiteState) -> None:
    """The score section at the end of the terminal output."""
    summary = summarise(state)
    write = terminalreporter.write_line
    terminalreporter.section(f"safetensors conformance: {state.adapter.label()}")
    for group, score in summary.groups.items():
        if score.total:
            write(f"{GROUP_LABEL.get(group, group):<20} {score.render()}")
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
        "rules": list(record.rules),
        "result": record.result,
        "outcome": record.outcome or None,
        "reported_rule": record.reported_rule,
        "message": record.text or None,
    }


def _score_json(score: Score) -> dict[str, Any]:
    return {"passed": score.passed, "total": score.total, "failures": dict(score.kinds)}


def write_json(path: Path, state: SuiteState) -> None:
    """Every test's result plus the summary, as JSON."""
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
        "tests": [_record_json(state, r) for r in ordered(state)],
    }
    path.write_text(
        json.dumps(data, indent=1, ensure_ascii=False) + "\n", encoding="utf-8"
    )


def write_md(path: Path, state: SuiteState) -> None:
    """A Markdown summary: scores, violated rules, failures, i_ outcomes."""
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
                f"| {GROUP_LABEL[group]} | {score.passed} | {score.total} | {kinds} |"
            )
    lines.append(f"| **total** | {summary.total.passed} | {summary.total.total} | |")
    if summary.violated:
        lines += ["", "### Rules violated", "", "| rule | cases |", "|---|---|"]
        for rule, cases in summary.violated.items():
            lines.append(f"| `{rule}` | {', '.join(f'`{c}`' for c in cases)} |")
    failures = [r for r in ordered(state) if r.result not in {"passed", "skipped"}]
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
        for record in ordered(state):
            if record.group == "tolerated" and record.outcome:
                lines.append(f"| `{record.case}` | {record.outcome} |")
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
