"""Sphinx extension: a stable anchor per spec rule, and the results matrix page."""

from __future__ import annotations

import html
import re
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Final

from stspec import RULES_BY_ID

if TYPE_CHECKING:
    from sphinx.application import Sphinx

ROOT: Final = Path(__file__).resolve().parents[2]
# SPEC.md marks each rule with <a id="key-unique"></a> for GitHub's renderer
_RAW_ANCHOR: Final = re.compile(r'^<a id="([a-z0-9-]+)"></a>$', re.MULTILINE)
# the results matrix page, copied into the site as it is committed
MATRIX_PAGE: Final = ("results/index.html", "results/index.html")
# where the site says whether its suite is the one the results come from
SUITE_MARK: Final = '<p id="suite-in-tree"></p>'
SUITE_LINE: Final = "<!-- the suite in this tree -->"


def suite_in_tree() -> str:
    """Whether this tree's suite produced results/ (matrix.render_suite).

    Said when the site is built, not in a committed file: any change to the
    suite would make a committed sentence about it stale.
    """
    if str(ROOT) not in sys.path:
        sys.path.insert(0, str(ROOT))  # matrix/ is a folder of the checkout
    from matrix.render_data import load_results  # noqa: PLC0415
    from matrix.render_suite import tree_status  # noqa: PLC0415

    return tree_status(load_results(ROOT / "results"))


def results_page(_app: Sphinx, docname: str, content: list[str]) -> None:
    """Put the suite's sentence into the results page of the docs."""
    if docname == "reference/results":
        content[0] = content[0].replace(SUITE_LINE, suite_in_tree())


def _anchor(match: re.Match[str]) -> str:
    """Turn a rule's raw anchor into Sphinx labels and the site's rule-ID anchor.

    The labels let other pages refer to the rule (``{ref}`rule-key-unique```)
    and keep the spec's own ``(#key-unique)`` links resolvable; the raw anchor
    keeps the rule id's case in the URL (``#rule-KEY-UNIQUE``).
    """
    name = match.group(1)
    rule = name.upper()
    if rule not in RULES_BY_ID:
        return f"({name})="
    return f'<a id="rule-{rule}"></a>\n\n({name})=\n(rule-{name})='


def spec_anchors(
    _app: Sphinx, relative_path: Path, _parent: str, content: list[str]
) -> None:
    """Rewrite the rule anchors of spec/SPEC.md when a page includes it."""
    if Path(relative_path).name == "SPEC.md":
        content[0] = _RAW_ANCHOR.sub(_anchor, content[0])


def companion_anchors(_app: Sphinx, docname: str, content: list[str]) -> None:
    """Rewrite the raw anchors of the spec's companion pages (docs/spec/*.md).

    The shard checks' definitions carry ``<a id="shard-missing"></a>`` as
    SPEC.md's rules do, so that links to them work on GitHub and in the site.
    """
    if docname.startswith("spec/"):
        content[0] = _RAW_ANCHOR.sub(_anchor, content[0])


def copy_matrix(app: Sphinx, exception: Exception | None) -> None:
    """Put the committed results matrix page and its badges into the site."""
    if exception is not None or app.builder.format != "html":
        return
    source, target = MATRIX_PAGE
    destination = Path(app.outdir) / target
    destination.parent.mkdir(parents=True, exist_ok=True)
    # the page links the spec as the repository holds it; the site renders it
    page = (ROOT / source).read_text(encoding="utf-8")
    page = page.replace('href="../spec/SPEC.md', 'href="../spec/SPEC.html')
    status = html.escape(suite_in_tree()).replace("`", "")
    page = page.replace(SUITE_MARK, f'<p id="suite-in-tree">{status}</p>')
    destination.write_text(page, encoding="utf-8")
    # the shields.io endpoint files the implementations' badges read
    badges = destination.parent / "badges"
    badges.mkdir(exist_ok=True)
    for badge in sorted((ROOT / "results" / "badges").glob("*.json")):
        (badges / badge.name).write_bytes(badge.read_bytes())


def plain_blocks(
    _app: Sphinx,
    _what: str,
    _name: str,
    _obj: object,
    _options: object,
    lines: list[str],
) -> None:
    """Show an indented block after a line ending in ':' as written.

    The docstrings are written for ``help()``: an aligned list under "Attributes:"
    is plain text there, and would be an indentation error as reStructuredText.
    Napoleon has already turned "Raises:" and the like into fields.
    """
    shown: list[str] = []
    for index, line in enumerate(lines):
        following = lines[index + 1] if index + 1 < len(lines) else ""
        indent = len(line) - len(line.lstrip())
        if (
            line.rstrip().endswith(":")
            and not line.rstrip().endswith("::")
            and not line.lstrip().startswith(":")
            and following.strip()
            and len(following) - len(following.lstrip()) > indent
        ):
            shown += [line.rstrip() + ":", ""]
        else:
            shown.append(line)
    lines[:] = shown


def setup(app: Sphinx) -> dict[str, object]:
    """Register the hooks."""
    app.connect("autodoc-process-docstring", plain_blocks, priority=600)
    app.connect("include-read", spec_anchors)
    app.connect("source-read", companion_anchors)
    app.connect("source-read", results_page)
    app.connect("build-finished", copy_matrix)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
