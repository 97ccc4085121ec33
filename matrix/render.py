"""Render results/*.json into results/matrix.md and results/index.html.

Deterministic: the output depends only on the JSON files, the corpus manifest
and the corpus files (no clock, no environment).  The page has no external
assets: styles are inline and there is no script.
"""

from __future__ import annotations

import html
import json
from collections import Counter, defaultdict
from typing import TYPE_CHECKING, Any, Final

from matrix import envs, notes
from matrix.badges import write_badges
from matrix.impls import IMPLS, UNAVAILABLE
from matrix.probe import DIFFERENCES, difference, differs, stated
from matrix.scores import Score, score
from stspec_conformance.opt_in import OPT_IN_CASES

if TYPE_CHECKING:
    from collections.abc import Callable, Sequence
    from pathlib import Path

__all__ = [
    "CELL",
    "cell_class",
    "differentials",
    "dump_bytes",
    "load_results",
    "ran",
    "render_dir",
    "scores",
]

# cell class -> (short text, colour, legend)
CELL: Final = {
    "ok-accept": (
        "ok",
        "#3c9a3c",
        "valid file accepted with exactly the expected content",
    ),
    "ok-reject": ("ok", "#74c474", "invalid file rejected"),
    "should-reject": (
        "ACC",
        "#d62728",
        "invalid file ACCEPTED (should have been rejected)",
    ),
    "should-accept": (
        "rej",
        "#f0b400",
        "valid file rejected (should have been accepted)",
    ),
    "wrong-content": (
        "diff",
        "#9b3fb5",
        "accepted, but loaded other bytes, dtypes, shapes or metadata",
    ),
    "i-accept": (
        "acc",
        "#6fa8dc",
        "implementation-defined file: accepted (exactly as expected)",
    ),
    "i-reject": ("rej", "#1f5f99", "implementation-defined file: rejected"),
    "crashed": (
        "CRASH",
        "#111111",
        "crashed (signal, exit status, unexpected exception)",
    ),
    "hung": ("hang", "#7f7f7f", "no answer within the time limit"),
    "resource": ("res", "#b5651d", "ran past its CPU-time or memory allowance"),
    "invalid-output": (
        "bad",
        "#e377c2",
        "answer malformed (e.g. a non-string metadata value passed through)",
    ),
    "not-applicable": (
        "n/a",
        "#f4f4f4",
        "outside the implementation's declared capabilities",
    ),
    "missing": ("?", "#ffffff", "no result (the run did not reach this case)"),
}
_DARK: Final = {"crashed", "should-reject", "i-reject", "wrong-content", "ok-accept"}
_SHOWN_BYTES: Final = 384
_RULE_ANCHOR: Final = "../spec/SPEC.md#{}"


# (verdict, accepted, passed) -> class, for the outcomes accepted and rejected
_VERDICT_CELL: Final = {
    ("valid", True, True): "ok-accept",
    ("valid", True, False): "wrong-content",
    ("invalid", True, True): "should-reject",
    ("invalid", True, False): "should-reject",
    ("tolerated", True, True): "i-accept",
    ("tolerated", True, False): "wrong-content",
}
_REJECTED_CELL: Final = {
    "valid": "should-accept",
    "invalid": "ok-reject",
    "tolerated": "i-reject",
}


def cell_class(verdict: str, entry: dict[str, Any] | None) -> str:
    """Give the colour class of one case for one implementation."""
    if entry is None:
        return "missing"
    outcome = str(entry.get("outcome"))
    if outcome == "wrong-content":
        outcome = "accepted"
        entry = {**entry, "ok": False}
    elif outcome in CELL:
        return outcome
    if outcome == "accepted":
        return _VERDICT_CELL[verdict, True, bool(entry.get("ok"))]
    return _REJECTED_CELL[verdict]


def load_results(folder: Path) -> list[dict[str, Any]]:
    """Every results/NAME.json, in the order of the implementation table."""
    order = {impl.name: i for i, impl in enumerate(IMPLS)}
    found = [
        json.loads(path.read_text(encoding="utf-8"))
        for path in sorted(folder.glob("*.json"))
    ]
    return sorted(
        found,
        key=lambda r: (order.get(r["implementation"]["name"], len(order)),
                       r["implementation"]["name"]),
    )  # fmt: skip


def _manifest() -> list[dict[str, Any]]:
    data = json.loads((envs.REPO / "corpus" / "manifest.json").read_text("utf-8"))
    cases: list[dict[str, Any]] = data["cases"]
    return sorted(cases, key=lambda c: str(c["id"]))


def ran(
    cases: list[dict[str, Any]], results: list[dict[str, Any]]
) -> list[dict[str, Any]]:
    """Return the manifest's cases less the on-request ones no implementation ran.

    The 1.8-million-entry header (``--dense-header``) is then no column,
    rather than "no result" in every row and a point off every score.
    """
    done = {case for result in results for case in result.get("cases", {})}
    return [c for c in cases if c["id"] not in OPT_IN_CASES or c["id"] in done]


def dump_bytes(data: bytes, limit: int = _SHOWN_BYTES) -> str:
    """HTML for a file's bytes: N as a number, the header as text, the rest hex.

    Non-printable bytes in the header are shown as ``<XX>`` in a marked span,
    so control characters, NULs and invalid UTF-8 are visible.
    """
    parts: list[str] = []
    if len(data) < 8:
        return '<span class="np">' + data.hex(" ") + "</span> (shorter than 8 bytes)"
    length = int.from_bytes(data[:8], "little")
    parts.append(f'<span class="n">N={length} [{data[:8].hex(" ")}]</span> ')
    end = min(len(data), 8 + min(length, limit))
    header = data[8:end]
    text = header.decode("utf-8", errors="surrogateescape")
    for char in text:
        code = ord(char)
        if 0xDC80 <= code <= 0xDCFF:  # an undecodable byte
            parts.append(f'<span class="np">&lt;{code - 0xDC00:02X}&gt;</span>')
        elif code < 0x20 or code == 0x7F:
            parts.append(f'<span class="np">&lt;{code:02X}&gt;</span>')
        elif not char.isprintable():
            parts.append(f'<span class="np">&lt;U+{code:04X}&gt;</span>')
        else:
            parts.append(html.escape(char))
    if 8 + length > end:
        parts.append(
            f'<span class="more">… header continues to byte {8 + length}</span>'
        )
    rest = data[8 + length :] if 8 + length <= len(data) else b""
    if rest:
        shown = rest[:64].hex(" ")
        more = f" … ({len(rest)} bytes)" if len(rest) > 64 else ""
        parts.append(f'<br><span class="data">data: {shown}{more}</span>')
    elif 8 + length > len(data):
        parts.append(f'<br><span class="more">(file is {len(data)} bytes)</span>')
    return "".join(parts)


def _case_bytes(case: dict[str, Any]) -> str:
    if "file" in case:
        path = envs.REPO / "corpus" / str(case["file"])
        with path.open("rb") as file:
            data = file.read(8 + 4 * _SHOWN_BYTES + 64)
        return dump_bytes(data)
    recipe = case.get("recipe", {})
    params = dict(recipe.get("params", {}))
    header = params.pop("header", None)
    shown = html.escape(json.dumps(params, sort_keys=True)[:200])
    if isinstance(header, str):
        shown += "<br>header: " + html.escape(header[:_SHOWN_BYTES])
    return (
        f'<span class="more">built at run time ({case.get("size")} bytes): recipe '
        f"{html.escape(str(recipe.get('name')))} {shown}</span>"
    )


def _rule_links(case: dict[str, Any]) -> str:
    return " ".join(
        f'<a href="{_RULE_ANCHOR.format(rule.lower())}">{html.escape(rule)}</a>'
        for rule in case.get("rules", [])
    )


def _cell(cls: str, entry: dict[str, Any] | None) -> str:
    text = CELL[cls][0]
    title = CELL[cls][2]
    if entry:
        if entry.get("unchecked"):
            title += " (content not checked: the suite has no header-only expectation)"
        extra = entry.get("crash") or entry.get("detail") or ""
        if extra:
            title += ": " + str(extra)[:200]
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
    ]
    for cls, (_, colour, _legend) in CELL.items():
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


def scores(
    results: list[dict[str, Any]], cases: list[dict[str, Any]]
) -> dict[str, Score]:
    """Each implementation's score, by name, in the order of ``results``."""
    # a differential counts against the readers that did not load what the
    # file states (all of them, for a file that states nothing: it is invalid)
    right = _as_stated(cases)
    involved: Counter[str] = Counter(
        name
        for case_id, _, groups in differentials(results)
        for names, answer in groups
        if not right(case_id, answer)
        for name in names
    )
    out = {}
    for result in results:
        got = result.get("cases", {})
        classes = [
            (str(c["verdict"]), cell_class(str(c["verdict"]), got.get(c["id"])))
            for c in cases
        ]
        name = result["implementation"]["name"]
        out[name] = score(result, classes, involved[name])
    return out


def _fraction(right: int, total: int) -> str:
    return f"{right}/{total}" if total else "n/a"


def _score_table(results: list[dict[str, Any]], by_name: dict[str, Score]) -> str:
    rows = [
        (
            "<thead><tr><th>implementation</th><th>language</th>"
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
            f"<td>{html.escape(impl.get('language', ''))}</td>"
            f"<td class=n>{_fraction(one.valid_right, one.valid_total)}</td>"
            f"<td class=n>{_fraction(one.invalid_rejected, one.invalid_total)}</td>"
            f"<td class=n>{one.crashes}</td><td class=n>{one.differentials}</td>"
            f"<td class=n>{_fraction(one.tests_passed, one.tests_total)}</td>"
            f"<td class=n>{one.not_applicable}</td></tr>"
        )
    return '<table id="scores">' + "".join(rows) + "</table>"


def _groups(
    cases: list[dict[str, Any]], vectors: dict[str, tuple[str, ...]]
) -> list[tuple[tuple[str, ...], list[dict[str, Any]]]]:
    grouped: dict[tuple[str, tuple[str, ...]], list[dict[str, Any]]] = defaultdict(list)
    for case in cases:
        grouped[(str(case["verdict"]), vectors[case["id"]])].append(case)

    def badness(item: tuple[tuple[str, tuple[str, ...]], list[Any]]) -> tuple[int, ...]:
        (_, vector), members = item
        bad = sum(c in {"should-reject", "crashed", "wrong-content"} for c in vector)
        odd = sum(not c.startswith(("ok", "i-", "not-")) for c in vector)
        return (-bad, -odd, -len(members))

    ordered = sorted(grouped.items(), key=lambda item: (*badness(item), item[0]))
    return [(vector, members) for (_, vector), members in ordered]


def _implementations_table(results: list[dict[str, Any]]) -> str:
    rows = [
        (
            "<tr><th>column</th><th>implementation</th><th>language</th>"
            "<th>declared</th><th>called as</th><th>run</th></tr>"
        )
    ]
    for result in results:
        impl = result["implementation"]
        declared = _declaration(_caps(impl))
        run = result.get("run", {})
        rows.append(
            f'<tr id="impl-{html.escape(impl["name"])}">'
            f"<td class=id>{html.escape(impl['name'])}</td>"
            f"<td>{html.escape(impl.get('title', ''))}<br><small>"
            f"{html.escape(impl.get('note', ''))}</small></td>"
            f"<td>{html.escape(impl.get('language', ''))}</td>"
            f"<td>{html.escape(declared)}</td>"
            f"<td class=id>{html.escape(str(impl.get('called_as', '')))}</td>"
            f"<td>{run.get('seconds', '?')} s"
            f"{'' if run.get('complete', True) else ' (incomplete)'}</td>"
            "</tr>"
        )
    return "<table>" + "".join(rows) + "</table>"


def _caps(impl: dict[str, Any]) -> dict[str, Any]:
    caps: dict[str, Any] = (impl.get("described") or {}).get("capabilities") or {}
    return caps


def _declaration(caps: dict[str, Any]) -> str:
    if not caps:
        return "?"
    parts = ["header-only" if caps.get("header_only") else "reads bytes"]
    reads = caps.get("read_dtypes") or []
    if len(reads) < 22:
        parts.append(f"reads {len(reads)} dtypes")
    if caps.get("metadata_presence") is False:
        parts.append("absent metadata = {}")
    if caps.get("write"):
        writes = caps.get("write_dtypes") or []
        parts.append(
            ("canonical writer" if caps.get("canonical") else "writer")
            + (f" ({len(writes)} dtypes)" if len(writes) < 22 else "")
        )
    return "; ".join(parts)


def _counts(
    results: list[dict[str, Any]], cases: list[dict[str, Any]]
) -> list[Counter[str]]:
    out = []
    for result in results:
        got = result.get("cases", {})
        out.append(
            Counter(cell_class(str(c["verdict"]), got.get(c["id"])) for c in cases)
        )
    return out


def _summary_columns() -> list[str]:
    return [
        "ok-accept",
        "ok-reject",
        "should-reject",
        "should-accept",
        "wrong-content",
        "i-accept",
        "i-reject",
        "crashed",
        "hung",
        "resource",
        "invalid-output",
        "not-applicable",
    ]


# (case id, the worst difference between two groups, the groups)
Differential = tuple[str, str, list[tuple[list[str], dict[str, Any]]]]


def differentials(results: list[dict[str, Any]]) -> list[Differential]:
    """Files that two accepting readers load differently, from ``probe``.

    Per case: the worst difference and the groups of implementations that
    loaded the same thing (names, dtypes, shapes, and bytes where both readers
    gave them), when there is more than one group; the cases whose readers
    load different bytes first, then different names, dtypes, shapes.
    """
    out: list[Differential] = []
    case_ids = sorted({c for r in results for c in r.get("probe", {})})
    for case_id in case_ids:
        groups: list[tuple[list[str], dict[str, Any]]] = []
        for result in results:
            answer = result.get("probe", {}).get(case_id)
            if not answer or answer.get("result") != "accepted":
                continue
            name = result["implementation"]["name"]
            for members, first in groups:
                if not differs(first, answer):
                    members.append(name)
                    break
            else:
                groups.append(([name], answer))
        kinds = {
            difference(a, b)
            for i, (_, a) in enumerate(groups)
            for _, b in groups[i + 1 :]
        }
        worst = next((k for k in DIFFERENCES if k in kinds), None)
        if worst is not None:
            out.append((case_id, worst, groups))
    return sorted(out, key=lambda d: (DIFFERENCES.index(d[1]), d[0]))


def describe_loaded(answer: dict[str, Any], limit: int = 4) -> str:
    """``name DTYPE[shape] sha256-prefix`` per tensor, for a differential."""
    tensors = answer.get("tensors") or {}
    parts = []
    for name, (dtype, shape, digest) in list(tensors.items())[:limit]:
        short = str(digest)[:8] if digest else "no bytes"
        dims = list(shape) if isinstance(shape, list | tuple) else f"[{shape!r}]"
        parts.append(f"{name!r} {dtype}{dims} {short}")
    if len(tensors) > limit:
        parts.append(f"... {answer.get('tensors_total', len(tensors))} tensors")
    return "; ".join(parts) or "no tensors"


def _as_stated(cases: list[dict[str, Any]]) -> Callable[[str, dict[str, Any]], bool]:
    """Whether an answer loaded what a valid case states (False for others)."""
    expected = {str(c["id"]): stated(c) for c in cases}

    def right(case_id: str, answer: dict[str, Any]) -> bool:
        want = expected.get(case_id)
        return want is not None and not differs(want, answer)

    return right


_UNAVAILABLE_INTRO: Final = (
    "Implementations with a parser of their own that the matrix cannot install "
    "or call, and why (matrix/impls.py, UNAVAILABLE)."
)


def _not_set_up(result: dict[str, Any]) -> tuple[str, str, str]:
    impl = result["implementation"]
    reason = " ".join(str(result["setup_error"]).split())[:300]
    return impl.get("title", impl["name"]), impl.get("language", ""), reason


def _names(results: Sequence[dict[str, Any]]) -> list[str]:
    return [str(r["implementation"]["name"]) for r in results]


def render_markdown(
    results: list[dict[str, Any]],
    cases: list[dict[str, Any]],
    failed: Sequence[dict[str, Any]] = (),
    changes: notes.Notes | None = None,
) -> str:
    """The summary table (one row per implementation) and the disagreements."""
    cols = _summary_columns()
    heads = {
        "ok-accept": "y_ ok", "ok-reject": "n_ ok", "should-reject": "n_ ACCEPTED",
        "should-accept": "y_ rejected", "wrong-content": "wrong content",
        "i-accept": "i_ acc", "i-reject": "i_ rej", "crashed": "crashed",
        "hung": "hung", "resource": "resource", "invalid-output": "bad output",
        "not-applicable": "n/a",
    }  # fmt: skip
    lines = [
        "# Results matrix",
        "",
        (
            "Generated by `python -m matrix render` from `results/*.json`. "
            "One row per implementation: its score, then counts of the "
            f"{len(cases)} corpus cases by outcome. The per-case table is "
            "`index.html`; each implementation's badge is `badges/NAME.json`."
        ),
        "",
        (
            "| implementation | language | valid files read right | "
            "invalid files rejected | crashes and hangs | parser differentials | "
            "other tests passed | badge |"
        ),
        "|---|---|---:|---:|---:|---:|---:|---|",
    ]
    by_name = scores(results, cases)
    for result in results:
        impl = result["implementation"]
        one = by_name[impl["name"]]
        lines.append(
            f"| {impl.get('title', impl['name'])} | {impl.get('language', '')} | "
            f"{_fraction(one.valid_right, one.valid_total)} | "
            f"{_fraction(one.invalid_rejected, one.invalid_total)} | "
            f"{one.crashes} | {one.differentials} | "
            f"{_fraction(one.tests_passed, one.tests_total)} | "
            f"`badges/{impl['name']}.json` |"
        )
    for result in failed:
        title, language, reason = _not_set_up(result)
        lines.append(f"| {title} | {language} | set-up failed: {reason} ||||||")
    lines += [
        "",
        "Counts of the corpus cases by outcome:",
        "",
        "| implementation | language | declared | "
        + " | ".join(heads[c] for c in cols)
        + " | other tests passed |",
        "|---|---|---|" + "---:|" * len(cols) + "---:|",
    ]
    for result, count in zip(results, _counts(results, cases), strict=True):
        impl = result["implementation"]
        others = result.get("tests", {})
        passed = sum(1 for e in others.values() if e.get("ok"))
        applicable = sum(
            1 for e in others.values() if e.get("outcome") != "not-applicable"
        )
        lines.append(
            f"| {impl.get('title', impl['name'])} | {impl.get('language', '')} | "
            f"{_declaration(_caps(impl))} | "
            + " | ".join(str(count[c]) for c in cols)
            + f" | {passed}/{applicable} |"
        )
    if changes is not None:
        lines += notes.markdown_section(changes, _names(results))
    lines += ["", "## Not in the matrix", "", _UNAVAILABLE_INTRO, ""]
    lines += ["| implementation | language | why |", "|---|---|---|"]
    lines += [f"| {u.title} | {u.language} | {u.reason} |" for u in UNAVAILABLE]
    lines += ["", "## Cases the implementations disagree on", ""]
    lines.append("| case | rules | " + " | ".join(
        r["implementation"]["name"] for r in results) + " |")  # fmt: skip
    lines.append("|---|---|" + "---|" * len(results))
    for case in cases:
        classes = [
            cell_class(str(case["verdict"]), r.get("cases", {}).get(case["id"]))
            for r in results
        ]
        if all(c in {"ok-accept", "ok-reject", "not-applicable"} for c in classes):
            continue
        lines.append(
            f"| `{case['id']}` | {', '.join(case.get('rules', []))} | "
            + " | ".join(CELL[c][0] for c in classes)
            + " |"
        )
    found = differentials(results)
    lines += [
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
    right = _as_stated(cases)
    for case_id, kind, groups in found:
        lines.append(f"- `{case_id}` ({kind} differ):")
        lines.extend(
            f"  - {', '.join(names)}: {describe_loaded(answer)}"
            + (" (as the valid file states)" if right(case_id, answer) else "")
            for names, answer in groups
        )
    legend = "; ".join(f"`{text}` {legend}" for text, _, legend in CELL.values())
    lines += ["", f"Legend: {legend}.", ""]
    return "\n".join(lines)


def render_html(
    results: list[dict[str, Any]],
    cases: list[dict[str, Any]],
    failed: Sequence[dict[str, Any]] = (),
    changes: notes.Notes | None = None,
) -> str:
    """The JSONTestSuite-style page: legend, pruned view, full view."""
    vectors = {
        case["id"]: tuple(
            cell_class(str(case["verdict"]), r.get("cases", {}).get(case["id"]))
            for r in results
        )
        for case in cases
    }
    by_id = {case["id"]: case for case in cases}
    out = [
        "<!DOCTYPE html>",
        '<html lang="en"><head><meta charset="utf-8">',
        "<title>safetensors results matrix</title>",
        f"<style>{_style()}</style></head><body>",
        "<h1>safetensors results matrix</h1>",
        (
            f"<p>{len(cases)} corpus cases &times; {len(results)} implementations, "
            "each run through <code>pytest conformance</code>. Generated from "
            "<code>results/*.json</code> by <code>python -m matrix render</code>.</p>"
        ),
        '<h2 id="score">Scores</h2>',
        (
            "<p>Per implementation: valid (<code>y_</code>) files loaded with exactly "
            "their content, invalid (<code>n_</code>) files rejected, crashes and "
            "hangs on any case, parser differentials (files that two accepting "
            "implementations load differently, counted against each one that did "
            "not load what the file states), and the suite's other tests "
            "(writer, properties, single faults). Cases and tests outside its "
            "declared capabilities are not applicable.</p>"
        ),
        _score_table(results, scores(results, cases)),
        *(
            "<p class=failed>{} ({}): set-up failed: {}</p>".format(
                *map(html.escape, _not_set_up(result))
            )
            for result in failed
        ),
        *(notes.html_section(changes, _names(results)) if changes else ()),
        "<h2>Not in the matrix</h2>",
        f"<p>{html.escape(_UNAVAILABLE_INTRO)}</p>",
        "<table><tr><th>implementation</th><th>language</th><th>why</th></tr>",
        *(
            f"<tr><td>{html.escape(u.title)}</td><td>{html.escape(u.language)}</td>"
            f"<td>{html.escape(u.reason)}</td></tr>"
            for u in UNAVAILABLE
        ),
        "</table>",
        "<h2>Implementations</h2>",
        _implementations_table(results),
        "<h2>Legend</h2><table class=legend>",
    ]
    for cls, (text, _, legend) in CELL.items():
        out.append(
            f'<tr><td class="c {cls}">{text}</td><td>{html.escape(legend)}</td></tr>'
        )
    out += [
        "</table>",
        '<h2 id="pruned">Pruned view: cases grouped by identical outcomes</h2>',
        (
            "<p>One row per group of cases with the same verdict and the same outcome "
            "in every column; the groups with the most dangerous outcomes first.</p>"
        ),
        '<table id="pruned-table">',
        _header_row(results, ["cases", "verdict"]),
    ]
    for vector, members in _groups(cases, vectors):
        names = ", ".join(
            f'<a href="#{html.escape(c["id"])}">{html.escape(c["id"])}</a>'
            for c in members[:6]
        )
        if len(members) > 6:
            names += f" … (+{len(members) - 6})"
        cells = "".join(_cell(cls, None) for cls in vector)
        out.append(
            f'<tr class="group"><td>{len(members)} case(s): {names}</td>'
            f"<td>{html.escape(str(members[0]['verdict']))}</td>{cells}</tr>"
        )
    out += ["</table>", *_differentials_html(results, cases)]
    out += [
        '<h2 id="full">Full view: one row per case</h2>',
        '<table id="full-table">',
        _header_row(results, ["case", "rules", "bytes"]),
    ]
    for case_id in sorted(by_id):
        case = by_id[case_id]
        cells = "".join(
            _cell(cls, r.get("cases", {}).get(case_id))
            for cls, r in zip(vectors[case_id], results, strict=True)
        )
        description = html.escape(str(case.get("description", "")))
        out.append(
            f'<tr id="{html.escape(case_id)}" class="case">'
            f'<td class=id title="{description}">{html.escape(case_id)}</td>'
            f"<td>{_rule_links(case)}</td>"
            f'<td><details><summary>{description[:60]}</summary><div class="bytes">'
            f"{_case_bytes(case)}</div></details></td>{cells}</tr>"
        )
    out += ["</table>", "</body></html>", ""]
    return "\n".join(out)


def _differentials_html(
    results: list[dict[str, Any]], cases: list[dict[str, Any]]
) -> list[str]:
    found = differentials(results)
    right = _as_stated(cases)
    out = [
        '<h2 id="differentials">Parser differentials</h2>',
        (
            f"<p>{len(found)} file(s) that two implementations both accept but load "
            "differently (names, dtypes, shapes, or bytes where both give them).</p>"
        ),
        (
            '<table id="differentials-table"><tr><th>case</th><th>differ in</th>'
            "<th>implementations</th><th>what they loaded</th></tr>"
        ),
    ]
    for case_id, kind, groups in found:
        for i, (names, answer) in enumerate(groups):
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
            out.append(
                f'<tr class="differential">{head}<td>{html.escape(", ".join(names))}'
                f"</td><td class=id>{html.escape(loaded)}</td></tr>"
            )
    out.append("</table>")
    return out


def render_dir(folder: Path) -> None:
    """Write ``matrix.md``, ``index.html`` and ``badges/*.json`` into ``folder``."""
    loaded = load_results(folder)
    # an implementation whose set-up failed keeps its row, with the reason and
    # no score: it ran nothing
    failed = [r for r in loaded if r.get("setup_error")]
    results = [r for r in loaded if not r.get("setup_error")]
    cases = ran(_manifest(), results)
    write_badges(folder, scores(results, cases))
    changes = notes.load() if notes.DATA.exists() else None
    # names and messages may hold lone surrogates: written as \udXXX escapes
    for name, text in (
        ("matrix.md", render_markdown(results, cases, failed, changes)),
        ("index.html", render_html(results, cases, failed, changes)),
    ):
        (folder / name).write_text(text, "utf-8", errors="backslashreplace")
