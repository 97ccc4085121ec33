"""The interop grid's section of the results page (``results/interop/grid.json``)."""

from __future__ import annotations

import html
import json
from typing import TYPE_CHECKING, Any, Final

from matrix import findings
from matrix.grid_judge import FAILURES
from matrix.grid_report import summary

if TYPE_CHECKING:
    from pathlib import Path

__all__ = ["grid_html", "load_grid"]

# The page is also copied into the documentation site, which holds none of
# results/interop/: the table is linked where the repository publishes it.
GRID_URL: Final = f"{findings.REPO_URL}/blob/main/results/interop/grid.md"


def load_grid(folder: Path) -> dict[str, Any] | None:
    """``folder/interop/grid.json``, or None when the grid has not been run."""
    path = folder / "interop" / "grid.json"
    return json.loads(path.read_text("utf-8")) if path.is_file() else None


def _cell(cells: dict[str, dict[str, str]]) -> str:
    counts = summary(cells)
    same = counts.get("same", 0)
    failed = sum(counts.get(v, 0) for v in FAILURES)
    if not same + failed and not counts.get("refused-declared"):
        return "<td></td>"
    cls = "unsafe" if failed else "safe"
    extra = counts.get("refused-declared", 0)
    title = "; ".join(
        f"{request}: {cell['verdict']} {cell['detail']}".strip()
        for request, cell in cells.items()
        if cell["verdict"] in FAILURES
    )
    note = f" <small>+{extra}</small>" if extra else ""
    return (
        f'<td class={cls} title="{html.escape(title[:1000])}">'
        f"{same}/{same + failed}{note}</td>"
    )


def grid_html(grid: dict[str, Any] | None) -> list[str]:
    """Writers down, readers across; empty when there is no grid."""
    if grid is None:
        return []
    readers = grid["readers"]
    head = "".join(f"<th>{html.escape(r)}</th>" for r in readers)
    rows = []
    for writer, outcomes in grid["writers"].items():
        faults = sum(bool(o.get("fault")) for o in outcomes.values())
        row = grid["cells"].get(writer, {})
        cells = "".join(_cell(row.get(r, {})) for r in readers)
        mark = f" <small>(writer's fault: {faults})</small>" if faults else ""
        rows.append(f"<tr><th>{html.escape(writer)}{mark}</th>{cells}</tr>")
    intro = (
        "<p>Each cell: the files the reader loaded exactly as the strict reference "
        "reads them, of those within its declared dtypes and limits; "
        "<small>+N</small>: refusals of dtypes it does not declare or of files "
        "beyond limits it declares (no failure). A file that breaks the spec is "
        "its writer's fault and counts in no reader's cell. Writers named "
        "gold-WRITER are archival files old writers wrote (matrix/gold/). "
        "Hover a red cell "
        f'for what failed; every cell and file: <a href="{GRID_URL}">'
        "interop/grid.md</a>.</p>"
    )
    return [
        '<h2 id="interop">Interop grid: each writer\'s files in each reader</h2>',
        intro,
        f"<table><tr><th>writer \\ reader</th>{head}</tr>{''.join(rows)}</table>",
    ]
