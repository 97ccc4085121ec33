"""Render results/*.json into results/matrix.md, results/index.html and badges.

Deterministic: the output depends only on the JSON files, the corpus manifest
and the corpus files (no clock, no environment).  One module per output:
``render_md`` (the Markdown table), ``render_html`` (the page), with
``render_data`` (outcome classes and scores), ``render_diff`` (parser
differentials) and ``render_dump`` (a file's bytes) shared by both.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from matrix import history, notes
from matrix.badges import write_badges
from matrix.render_data import load_results, manifest, ran, scores
from matrix.render_grid import grid_html, load_grid
from matrix.render_history import history_html, history_markdown
from matrix.render_html import render_html
from matrix.render_md import render_markdown

if TYPE_CHECKING:
    from pathlib import Path

__all__ = ["render_dir"]


def render_dir(folder: Path) -> None:
    """Write ``matrix.md``, ``index.html``, ``history.md`` and ``badges/*.json``.

    The page's history and interop sections come from ``history.jsonl`` and
    ``interop/grid.json`` when they exist.
    """
    loaded = load_results(folder)
    # an implementation whose set-up failed keeps its row, with the reason and
    # no score: it ran nothing
    failed = [r for r in loaded if r.get("setup_error")]
    results = [r for r in loaded if not r.get("setup_error")]
    cases = ran(manifest(), results)
    write_badges(folder, scores(results, cases))
    changes = notes.load() if notes.DATA.exists() else None
    runs = history.read(folder / history.FILE)
    sections = [*history_html(runs), *grid_html(load_grid(folder))]
    pages = [
        ("matrix.md", render_markdown(results, cases, failed, changes)),
        ("index.html", render_html(results, cases, failed, changes, sections)),
    ]
    if runs:
        pages.append(("history.md", history_markdown(runs)))
    # names and messages may hold lone surrogates: written as \udXXX escapes
    for name, text in pages:
        (folder / name).write_text(text, "utf-8", errors="backslashreplace")
