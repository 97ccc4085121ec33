"""The results as the pages show them: one outcome class per case, and scores.

Every page (``render_md``, ``render_html``) and the badges read the runs
through these functions, so the table, the grid and the badges cannot disagree.
"""

from __future__ import annotations

import json
from collections import Counter
from typing import TYPE_CHECKING, Any, Final

from matrix import envs
from matrix.impls import IMPLS
from matrix.render_diff import as_stated, differentials
from matrix.scores import Score, not_the_library, score
from stspec.dtypes import DTYPES
from stspec_conformance.opt_in import OPT_IN_CASES

if TYPE_CHECKING:
    from collections.abc import Sequence
    from pathlib import Path

__all__ = [
    "CELL",
    "SUMMARY_COLUMNS",
    "UNAVAILABLE_INTRO",
    "caps",
    "cell_class",
    "counts",
    "declaration",
    "fraction",
    "load_results",
    "manifest",
    "names",
    "not_set_up",
    "ran",
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
        "crashed (native: a signal, a panic, an abort, an unexplained exit)",
    ),
    "exception": (
        "EXC",
        "#444444",
        "raised an unexpected exception (managed runtime: Python, JavaScript, Java)",
    ),
    "fail-open": (
        "OPEN",
        "#8b0000",
        "answered success on a file it said it could not judge (fails open)",
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
# the columns of the Markdown table of counts, in this order
SUMMARY_COLUMNS: Final = (
    "ok-accept",
    "ok-reject",
    "should-reject",
    "should-accept",
    "wrong-content",
    "i-accept",
    "i-reject",
    "crashed",
    "exception",
    "fail-open",
    "hung",
    "resource",
    "invalid-output",
    "not-applicable",
)
UNAVAILABLE_INTRO: Final = (
    "Implementations with a parser of their own that the matrix cannot install "
    "or call, and why (matrix/impls.py, UNAVAILABLE)."
)

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


def manifest() -> list[dict[str, Any]]:
    """The corpus manifest's cases, by id."""
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


def scores(
    results: list[dict[str, Any]], cases: list[dict[str, Any]]
) -> dict[str, Score]:
    """Each implementation's score, by name, in the order of ``results``."""
    # a differential counts against the readers that did not load what the
    # file states (all of them, for a file that states nothing: it is invalid)
    right = as_stated(cases)
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
        name = result["implementation"]["name"]
        # what the wrapper caused is not the library's: out of the score too
        skip = not_the_library(name)
        classes = [
            (str(c["verdict"]), cell_class(str(c["verdict"]), got.get(c["id"])))
            for c in cases
            if c["id"] not in skip
        ]
        out[name] = score(result, classes, involved[name])
    return out


def counts(
    results: list[dict[str, Any]], cases: list[dict[str, Any]]
) -> list[Counter[str]]:
    """Per result, how many cases fall in each outcome class."""
    out = []
    for result in results:
        got = result.get("cases", {})
        out.append(
            Counter(cell_class(str(c["verdict"]), got.get(c["id"])) for c in cases)
        )
    return out


def fraction(right: int, total: int) -> str:
    """``right/total``, or n/a when nothing applied."""
    return f"{right}/{total}" if total else "n/a"


def caps(impl: dict[str, Any]) -> dict[str, Any]:
    """The capabilities the suite read from an implementation's declaration."""
    found: dict[str, Any] = (impl.get("described") or {}).get("capabilities") or {}
    return found


def declaration(caps: dict[str, Any]) -> str:
    """A declaration in a few words: header-only, dtypes, writer."""
    if not caps:
        return "?"
    parts = ["header-only" if caps.get("header_only") else "reads bytes"]
    reads = caps.get("read_dtypes") or []
    if len(reads) < len(DTYPES):
        parts.append(f"reads {len(reads)} dtypes")
    if caps.get("metadata_presence") is False:
        parts.append("absent metadata = {}")
    if caps.get("write"):
        writes = caps.get("write_dtypes") or []
        parts.append(
            ("canonical writer" if caps.get("canonical") else "writer")
            + (f" ({len(writes)} dtypes)" if len(writes) < len(DTYPES) else "")
        )
    return "; ".join(parts)


def not_set_up(result: dict[str, Any]) -> tuple[str, str, str]:
    """(title, language, reason) of an implementation whose set-up failed."""
    impl = result["implementation"]
    reason = " ".join(str(result["setup_error"]).split())[:300]
    return impl.get("title", impl["name"]), impl.get("language", ""), reason


def names(results: Sequence[dict[str, Any]]) -> list[str]:
    """The implementations' names, in order."""
    return [str(r["implementation"]["name"]) for r in results]
