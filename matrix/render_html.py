"""results/index.html: the JSONTestSuite-style page (scores, grids, differentials).

The page has no external assets: styles are inline and there is no script.
"""

from __future__ import annotations

import html
from collections import defaultdict
from typing import TYPE_CHECKING, Any, Final

from matrix import findings, notes, render_suite
from matrix import render_data as data
from matrix.impls import IMPLS, UNAVAILABLE
from matrix.render_diff import (
    Differential,
    as_stated,
    describe_loaded,
    differentials,
)
from matrix.render_dump import case_bytes
from matrix.render_safety import Safety, meaning, report_url, safety
from matrix.scrub import scrub

if TYPE_CHECKING:
    from collections.abc import Callable, Sequence

    from matrix.scores import Score

__all__ = ["render_html"]

_DARK: Final = {
    "crashed",
    "exception",
    "fail-open",
    "should-reject",
    "i-reject",
    "wrong-content",
    "ok-accept",
}
_RULE_ANCHOR: Final = "../spec/SPEC.md#{}"


def _rule_links(case: dict[str, Any]) -> str:
    return " ".join(
        f'<a href="{_RULE_ANCHOR.format(rule.lower())}">{html.escape(rule)}</a>'
        for rule in case.get("rules", [])
    )


def _cell(cls: str, entry: dict[str, Any] | None) -> str:
    text = data.CELL[cls][0]
    title = data.CELL[cls][2]
    if entry:
        if entry.get("unchecked"):
            title += " (content not checked: the suite has no header-only expectation)"
        extra = entry.get("crash") or entry.get("detail") or ""
        if extra:
            title += ": " + scrub(str(extra))[:200]
    return f'<td class="c {cls}" title="{html.escape(title)}">{text}</td>'


def _style() -> str:
    rules = [
        "body{font-family:system-ui,sans-serif;margin:1em;color:#222}",
        "table{border-collapse:collapse;font-size:12px}",
        "th,td{border:1px solid #ccc;padding:2px 4px;vertical-align:top}",
        # the grids' header rows stay in view while a long grid scrolls
        "thead th{position:sticky;top:0;background:#fff;z-index:1}",
        "td.n{text-align:right}",
        (
            "th.impl{writing-mode:vertical-rl;transform:rotate(180deg);"
            "white-space:nowrap;max-height:18em}"
        ),
        "td.c{text-align:center;min-width:2.6em;font-weight:600}",
        "td.id{font-family:monospace;white-space:nowrap}",
        (
            "pre,.bytes{font-family:monospace;white-space:pre-wrap;word-break:break-all;"
            "max-width:60em;margin:0}"
        ),
        ".np{background:#ffe08a;color:#8a0000;border-radius:2px}",
        ".n{color:#555}.data{color:#336}.more{color:#888;font-style:italic}",
        "details summary{cursor:pointer;color:#336}",
        ".legend td{padding:3px 8px}",
        "td.safe{background:#d8efd8}td.unsafe{background:#f6d5d5}",
        "td.unknown{background:#eee}",
    ]
    for cls, (_, colour, _legend) in data.CELL.items():
        fg = "#fff" if cls in _DARK else "#000"
        rules.append(f".{cls}{{background:{colour};color:{fg}}}")
    return "".join(rules)


def _header_row(results: list[dict[str, Any]], first: list[str]) -> str:
    cells = "".join(f"<th>{html.escape(h)}</th>" for h in first)
    for result in results:
        impl = result["implementation"]
        title = f"{impl.get('title', impl['name'])} — {impl.get('language', '')}"
        name = html.escape(impl["name"])
        cells += f'<th class="impl" title="{html.escape(title)}">{name}</th>'
    return f"<thead><tr>{cells}</tr></thead>"


def _safety_cell(answer: Safety) -> str:
    if answer.safe:
        return f"<td class=safe>{html.escape(answer.words())}</td>"
    if not answer.found:
        return f"<td class=unknown>{html.escape(answer.words())}</td>"
    link = f'<a href="{html.escape(report_url(answer.name))}">report</a>'
    return f"<td class=unsafe>{html.escape(answer.words())} ({link})</td>"


def _score_table(
    results: list[dict[str, Any]],
    by_name: dict[str, Score],
    answers: dict[str, Safety],
) -> str:
    rows = [
        (
            "<thead><tr><th>implementation</th><th>safe on untrusted files?</th>"
            "<th>language</th>"
            "<th>valid files read right</th><th>invalid files rejected</th>"
            "<th>crashes and hangs</th><th>parser differentials</th>"
            "<th>other tests passed</th><th>not applicable</th></tr></thead>"
        )
    ]
    for result in results:
        impl = result["implementation"]
        one = by_name[impl["name"]]
        rows.append(
            '<tr class="score">'
            f'<td><a href="#impl-{html.escape(impl["name"])}">'
            f"{html.escape(impl.get('title', impl['name']))}</a></td>"
            f"{_safety_cell(answers[impl['name']])}"
            f"<td>{html.escape(impl.get('language', ''))}</td>"
            f"<td class=n>{data.fraction(one.valid_right, one.valid_total)}</td>"
            f"<td class=n>{data.fraction(one.invalid_rejected, one.invalid_total)}</td>"
            f"<td class=n>{one.crashes}</td><td class=n>{one.differentials}</td>"
            f"<td class=n>{data.fraction(one.tests_passed, one.tests_total)}</td>"
            f"<td class=n>{one.not_applicable}</td></tr>"
        )
    return '<table id="scores">' + "".join(rows) + "</table>"


# outcome class -> the outcome matrix.findings judges (an invalid file's
# wrong content is an acceptance)
_FOUND_AS: Final = {
    "should-reject": "accepted",
    "crashed": "crashed",
    "exception": "exception",
    "fail-open": "fail-open",
    "hung": "hung",
    "resource": "resource",
}


# classes of a wrong verdict or of no verdict where the file needed one
_WRONG: Final = {"should-reject", "crashed", "exception", "fail-open", "wrong-content"}


def _dangerous(case: dict[str, Any], vector: tuple[str, ...]) -> int:
    """In how many columns the case is a dangerous finding (matrix.findings)."""
    return sum(
        findings.classify(case, _FOUND_AS[cls]) is not None
        for cls in vector
        if cls in _FOUND_AS
    )


def _groups(
    cases: list[dict[str, Any]], vectors: dict[str, tuple[str, ...]]
) -> list[tuple[tuple[str, ...], list[dict[str, Any]]]]:
    grouped: dict[tuple[str, tuple[str, ...]], list[dict[str, Any]]] = defaultdict(list)
    for case in cases:
        grouped[(str(case["verdict"]), vectors[case["id"]])].append(case)

    def badness(item: tuple[tuple[str, tuple[str, ...]], list[Any]]) -> tuple[int, ...]:
        # dangerous findings first, then other wrong verdicts, then failures
        (_, vector), members = item
        danger = max(_dangerous(case, vector) for case in members)
        bad = sum(c in _WRONG for c in vector)
        odd = sum(not c.startswith(("ok", "i-", "not-")) for c in vector)
        return (-danger, -bad, -odd, -len(members))

    ordered = sorted(grouped.items(), key=lambda item: (*badness(item), item[0]))
    return [(vector, members) for (_, vector), members in ordered]


def _row_links(name: str) -> str:
    """The API the row calls and a link to where its project takes reports."""
    row = next((impl for impl in IMPLS if impl.name == name), None)
    if row is None:
        return ""
    parts = [f"API: <code>{html.escape(row.api)}</code>"] if row.api else []
    if row.tracker:
        parts.append(f'<a href="{html.escape(row.tracker)}">issue tracker</a>')
    return "<br><small>" + " · ".join(parts) + "</small>" if parts else ""


def _implementations_table(results: list[dict[str, Any]]) -> str:
    rows = [
        (
            "<tr><th>column</th><th>implementation</th><th>language</th>"
            "<th>declared</th><th>called as</th><th>run</th></tr>"
        )
    ]
    for result in results:
        impl = result["implementation"]
        declared = data.declaration(data.caps(impl))
        run = result.get("run", {})
        rows.append(
            f'<tr id="impl-{html.escape(impl["name"])}">'
            f"<td class=id>{html.escape(impl['name'])}</td>"
            f"<td>{html.escape(impl.get('title', ''))}<br><small>"
            f"{html.escape(impl.get('note', ''))}</small>"
            f"{_row_links(str(impl['name']))}</td>"
            f"<td>{html.escape(impl.get('language', ''))}</td>"
            f"<td>{html.escape(declared)}</td>"
            f"<td class=id>{html.escape(str(impl.get('called_as', '')))}</td>"
            f"<td>{run.get('seconds', '?')} s"
            f"{'' if run.get('complete', True) else ' (incomplete)'}</td>"
            "</tr>"
        )
    return "<table>" + "".join(rows) + "</table>"


def _vectors(
    results: list[dict[str, Any]], cases: list[dict[str, Any]]
) -> dict[str, tuple[str, ...]]:
    """Per case id, its outcome class in each column."""
    return {
        case["id"]: tuple(
            data.cell_class(str(case["verdict"]), r.get("cases", {}).get(case["id"]))
            for r in results
        )
        for case in cases
    }


def _safe_summary(answers: dict[str, Safety]) -> str:
    safe = [
        f'<a href="#impl-{html.escape(name)}">{html.escape(name)}</a>'
        for name, answer in answers.items()
        if answer.safe
    ]
    return (
        f"<p><strong>Safe on untrusted files ({len(safe)} of {len(answers)}):"
        f"</strong> {', '.join(safe) or 'none'}.</p>"
    )


def _head(
    results: list[dict[str, Any]],
    cases: list[dict[str, Any]],
    failed: Sequence[dict[str, Any]],
) -> list[str]:
    answers = safety(results, cases)
    return [
        "<!DOCTYPE html>",
        '<html lang="en"><head><meta charset="utf-8">',
        "<title>safetensors results matrix</title>",
        f"<style>{_style()}</style></head><body>",
        "<h1>safetensors results matrix</h1>",
        (
            f"<p>{len(cases)} corpus cases &times; {len(results)} implementations, "
            "each run through <code>pytest conformance</code>. Generated from "
            "<code>results/*.json</code> by <code>python -m matrix render</code>. "
            f"{html.escape(render_suite.statement(results))}</p>"
        ),
        # the site says here whether its own suite is that one (docs/_ext)
        '<p id="suite-in-tree"></p>',
        '<h2 id="score">Safe on untrusted files, and scores</h2>',
        _safe_summary(answers),
        (f"<p>{html.escape(meaning())}</p>"),
        (
            "<p>Per implementation: whether it is safe on untrusted files, valid "
            "(<code>y_</code>) files loaded with exactly "
            "their content, invalid (<code>n_</code>) files rejected, crashes and "
            "hangs on any case, parser differentials (files that two accepting "
            "implementations load differently, counted against each one that did "
            "not load what the file states), and the suite's other tests "
            "(writer, properties, single faults). Cases and tests outside its "
            "declared capabilities are not applicable.</p>"
        ),
        _score_table(results, data.scores(results, cases), answers),
        *(
            "<p class=failed>{} ({}): set-up failed: {}</p>".format(
                *map(html.escape, data.not_set_up(result))
            )
            for result in failed
        ),
    ]


def _unavailable() -> list[str]:
    return [
        "<h2>Not in the matrix</h2>",
        f"<p>{html.escape(data.UNAVAILABLE_INTRO)}</p>",
        "<table><tr><th>implementation</th><th>language</th><th>why</th></tr>",
        *(
            f"<tr><td>{html.escape(u.title)}</td><td>{html.escape(u.language)}</td>"
            f"<td>{html.escape(u.reason)}</td></tr>"
            for u in UNAVAILABLE
        ),
        "</table>",
    ]


def _legend() -> list[str]:
    out = ["<h2>Legend</h2><table class=legend>"]
    for cls, (text, _, legend) in data.CELL.items():
        out.append(
            f'<tr><td class="c {cls}">{text}</td><td>{html.escape(legend)}</td></tr>'
        )
    out.append("</table>")
    return out


def _pruned(
    results: list[dict[str, Any]],
    cases: list[dict[str, Any]],
    vectors: dict[str, tuple[str, ...]],
) -> list[str]:
    return [
        '<h2 id="pruned">Pruned view: cases grouped by identical outcomes</h2>',
        (
            "<p>One row per group of cases with the same verdict and the same outcome "
            "in every column; the groups with the most dangerous outcomes first.</p>"
        ),
        '<table id="pruned-table">',
        _header_row(results, ["cases", "verdict"]),
        *(_group_row(vector, members) for vector, members in _groups(cases, vectors)),
        "</table>",
    ]


def _group_row(vector: tuple[str, ...], members: list[dict[str, Any]]) -> str:
    shown = ", ".join(
        f'<a href="#{html.escape(c["id"])}">{html.escape(c["id"])}</a>'
        for c in members[:6]
    )
    if len(members) > 6:
        shown += f" … (+{len(members) - 6})"
    cells = "".join(_cell(cls, None) for cls in vector)
    return (
        f'<tr class="group"><td>{len(members)} case(s): {shown}</td>'
        f"<td>{html.escape(str(members[0]['verdict']))}</td>{cells}</tr>"
    )


def _full(
    results: list[dict[str, Any]],
    cases: list[dict[str, Any]],
    vectors: dict[str, tuple[str, ...]],
) -> list[str]:
    by_id = {case["id"]: case for case in cases}
    return [
        '<h2 id="full">Full view: one row per case</h2>',
        '<table id="full-table">',
        _header_row(results, ["case", "rules", "bytes"]),
        *(
            _case_row(by_id[case_id], vectors[case_id], results)
            for case_id in sorted(by_id)
        ),
        "</table>",
    ]


def _case_row(
    case: dict[str, Any], vector: tuple[str, ...], results: list[dict[str, Any]]
) -> str:
    case_id = case["id"]
    cells = "".join(
        _cell(cls, r.get("cases", {}).get(case_id))
        for cls, r in zip(vector, results, strict=True)
    )
    description = html.escape(str(case.get("description", "")))
    return (
        f'<tr id="{html.escape(case_id)}" class="case">'
        f'<td class=id title="{description}">{html.escape(case_id)}</td>'
        f"<td>{_rule_links(case)}</td>"
        f'<td><details><summary>{description[:60]}</summary><div class="bytes">'
        f"{case_bytes(case)}</div></details></td>{cells}</tr>"
    )


def _differentials(
    results: list[dict[str, Any]], cases: list[dict[str, Any]]
) -> list[str]:
    found = differentials(results)
    right = as_stated(cases)
    return [
        '<h2 id="differentials">Parser differentials</h2>',
        (
            f"<p>{len(found)} file(s) that two implementations both accept but load "
            "differently (names, dtypes, shapes, or bytes where both give them).</p>"
        ),
        (
            '<table id="differentials-table"><tr><th>case</th><th>differ in</th>'
            "<th>implementations</th><th>what they loaded</th></tr>"
        ),
        *(row for case in found for row in _differential_rows(case, right)),
        "</table>",
    ]


def _differential_rows(
    differential: Differential, right: Callable[[str, dict[str, Any]], bool]
) -> list[str]:
    """One row per group of implementations that loaded the case alike."""
    case_id, kind, groups = differential
    rows = []
    for i, (members, answer) in enumerate(groups):
        head = (
            f'<td rowspan="{len(groups)}" class=id>'
            f'<a href="#{html.escape(case_id)}">{html.escape(case_id)}</a></td>'
            f'<td rowspan="{len(groups)}">{kind}</td>'
            if i == 0
            else ""
        )
        loaded = describe_loaded(answer)
        if right(case_id, answer):
            loaded += " (as the valid file states)"
        rows.append(
            f'<tr class="differential">{head}<td>{html.escape(", ".join(members))}'
            f"</td><td class=id>{html.escape(loaded)}</td></tr>"
        )
    return rows


def render_html(
    results: list[dict[str, Any]],
    cases: list[dict[str, Any]],
    failed: Sequence[dict[str, Any]] = (),
    changes: notes.Notes | None = None,
    sections: Sequence[str] = (),
) -> str:
    """The JSONTestSuite-style page: legend, pruned view, full view.

    ``sections``: more HTML (history, interop) placed after the differentials.
    """
    vectors = _vectors(results, cases)
    out = [
        *_head(results, cases, failed),
        *_legend(),
        *_pruned(results, cases, vectors),
        *_differentials(results, cases),
        *sections,
        "<h2>Implementations</h2>",
        _implementations_table(results),
        *_unavailable(),
        *_full(results, cases, vectors),
        *(notes.html_section(changes, data.names(results)) if changes else ()),
        "</body></html>",
        "",
    ]
    return "\n".join(out)
