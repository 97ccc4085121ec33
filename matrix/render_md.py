"""results/matrix.md: scores, counts by outcome, disagreements, differentials."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Final

from matrix import notes, render_suite
from matrix import render_data as data
from matrix.impls import UNAVAILABLE
from matrix.render_diff import as_stated, describe_loaded, differentials
from matrix.render_safety import Safety, meaning, report_url, safety

if TYPE_CHECKING:
    from collections.abc import Sequence

__all__ = ["render_markdown"]

_HEADS: Final = {
    "ok-accept": "y_ ok", "ok-reject": "n_ ok", "should-reject": "n_ ACCEPTED",
    "should-accept": "y_ rejected", "wrong-content": "wrong content",
    "i-accept": "i_ acc", "i-reject": "i_ rej", "crashed": "crashed",
    "exception": "exception", "fail-open": "fail-open", "hung": "hung",
    "resource": "resource", "invalid-output": "bad output",
    "not-applicable": "n/a",
}  # fmt: skip


def _safety(answer: Safety) -> str:
    if not answer.found:
        return answer.words()
    return f"{answer.words()} ([report]({report_url(answer.name)}))"


def _scores(
    results: list[dict[str, Any]],
    cases: list[dict[str, Any]],
    failed: Sequence[dict[str, Any]],
) -> list[str]:
    answers = safety(results, cases)
    safe = [name for name, answer in answers.items() if answer.safe]
    lines = [
        (
            f"**Safe on untrusted files ({len(safe)} of {len(answers)}):** "
            f"{', '.join(safe) or 'none'}. {meaning()}"
        ),
        "",
        (
            "| implementation | safe on untrusted files? | language | "
            "valid files read right | invalid files rejected | crashes and hangs | "
            "parser differentials | other tests passed | badge |"
        ),
        "|---|---|---|---:|---:|---:|---:|---:|---|",
    ]
    by_name = data.scores(results, cases)
    for result in results:
        impl = result["implementation"]
        one = by_name[impl["name"]]
        lines.append(
            f"| {impl.get('title', impl['name'])} | "
            f"{_safety(answers[impl['name']])} | {impl.get('language', '')} | "
            f"{data.fraction(one.valid_right, one.valid_total)} | "
            f"{data.fraction(one.invalid_rejected, one.invalid_total)} | "
            f"{one.crashes} | {one.differentials} | "
            f"{data.fraction(one.tests_passed, one.tests_total)} | "
            f"`badges/{impl['name']}.json` |"
        )
    for result in failed:
        title, language, reason = data.not_set_up(result)
        lines.append(
            f"| {title} | not known | {language} | set-up failed: {reason} ||||||"
        )
    return lines


def _counts(results: list[dict[str, Any]], cases: list[dict[str, Any]]) -> list[str]:
    cols = data.SUMMARY_COLUMNS
    lines = [
        "",
        "Counts of the corpus cases by outcome:",
        "",
        "| implementation | language | declared | "
        + " | ".join(_HEADS[c] for c in cols)
        + " | other tests passed |",
        "|---|---|---|" + "---:|" * len(cols) + "---:|",
    ]
    for result, count in zip(results, data.counts(results, cases), strict=True):
        impl = result["implementation"]
        others = result.get("tests", {})
        passed = sum(1 for e in others.values() if e.get("ok"))
        applicable = sum(
            1 for e in others.values() if e.get("outcome") != "not-applicable"
        )
        lines.append(
            f"| {impl.get('title', impl['name'])} | {impl.get('language', '')} | "
            f"{data.declaration(data.caps(impl))} | "
            + " | ".join(str(count[c]) for c in cols)
            + f" | {passed}/{applicable} |"
        )
    return lines


def _unavailable() -> list[str]:
    lines = ["", "## Not in the matrix", "", data.UNAVAILABLE_INTRO, ""]
    lines += ["| implementation | language | why |", "|---|---|---|"]
    lines += [f"| {u.title} | {u.language} | {u.reason} |" for u in UNAVAILABLE]
    return lines


def _disagreements(
    results: list[dict[str, Any]], cases: list[dict[str, Any]]
) -> list[str]:
    lines = ["", "## Cases the implementations disagree on", ""]
    lines.append("| case | rules | " + " | ".join(data.names(results)) + " |")
    lines.append("|---|---|" + "---|" * len(results))
    for case in cases:
        classes = [
            data.cell_class(str(case["verdict"]), r.get("cases", {}).get(case["id"]))
            for r in results
        ]
        if all(c in {"ok-accept", "ok-reject", "not-applicable"} for c in classes):
            continue
        lines.append(
            f"| `{case['id']}` | {', '.join(case.get('rules', []))} | "
            + " | ".join(data.CELL[c][0] for c in classes)
            + " |"
        )
    return lines


def _differentials(
    results: list[dict[str, Any]], cases: list[dict[str, Any]]
) -> list[str]:
    found = differentials(results)
    lines = [
        "",
        "## Parser differentials",
        "",
        (
            "Files that two implementations both accept but load differently "
            "(what each loaded, from `matrix.probe`): "
            f"{len(found)} case(s)."
        ),
        "",
    ]
    right = as_stated(cases)
    for case_id, kind, groups in found:
        lines.append(f"- `{case_id}` ({kind} differ):")
        lines.extend(
            f"  - {', '.join(members)}: {describe_loaded(answer)}"
            + (" (as the valid file states)" if right(case_id, answer) else "")
            for members, answer in groups
        )
    return lines


def render_markdown(
    results: list[dict[str, Any]],
    cases: list[dict[str, Any]],
    failed: Sequence[dict[str, Any]] = (),
    changes: notes.Notes | None = None,
) -> str:
    """The summary table (one row per implementation) and the disagreements."""
    lines = [
        "# Results matrix",
        "",
        (
            "Generated by `python -m matrix render` from `results/*.json`. "
            "One row per implementation: its score, then counts of the "
            f"{len(cases)} corpus cases by outcome. The per-case table is "
            "`index.html`; each implementation's badge is `badges/NAME.json`. "
            + render_suite.statement(results, commit=False)
        ),
        "",
        *_scores(results, cases, failed),
        *_counts(results, cases),
    ]
    lines += _disagreements(results, cases)
    lines += _differentials(results, cases)
    lines += _unavailable()
    if changes is not None:
        lines += notes.markdown_section(changes, data.names(results))
    legend = "; ".join(f"`{text}` {legend}" for text, _, legend in data.CELL.values())
    lines += ["", f"Legend: {legend}.", ""]
    return "\n".join(lines)
