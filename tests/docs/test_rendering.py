"""Documentation that renders where readers meet it.

The README and the package metadata send readers to the built site, the one
the Pages workflow publishes; the Markdown sources GitHub shows carry their main
content in plain Markdown (a directive is a line of code there) or say where the
rendered page is; the tutorials and how-to guides are listed in reading order.
"""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[2]
DOCS = ROOT / "docs"
PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text("utf-8"))
REPOSITORY = PYPROJECT["project"]["urls"]["Source"]
# GitHub Pages publishes https://github.com/OWNER/NAME at https://OWNER.github.io/NAME
_OWNER, _NAME = REPOSITORY.removeprefix("https://github.com/").split("/")
SITE = f"https://{_OWNER}.github.io/{_NAME}"
INDEXES = sorted(DOCS.glob("*/index.md"))
_LINK = re.compile(r"\]\(([^)\s]+)\)")
_DIRECTIVE = re.compile(r"^```\{(\w[\w-]*)\}", re.MULTILINE)


def test_the_pages_workflow_publishes_the_site_the_links_name() -> None:
    pages = yaml.safe_load((ROOT / ".github" / "workflows" / "pages.yml").read_text())
    steps = [s.get("uses", "") for job in pages["jobs"].values() for s in job["steps"]]
    assert any(uses.startswith("actions/deploy-pages@") for uses in steps)
    badges = (ROOT / "matrix" / "badges.py").read_text("utf-8")
    assert f'SITE: Final = "{SITE}"' in badges  # the badges' endpoints live there


def _site_page(url: str) -> Path:
    """The docs source of a page of the built site."""
    path = url.removeprefix(f"{SITE}/").split("#")[0] or "index.html"
    assert path.endswith(".html"), url
    return DOCS / path.replace(".html", ".md")


def test_readme_and_metadata_send_readers_to_the_built_site() -> None:
    readme = (ROOT / "README.md").read_text("utf-8")
    links = _LINK.findall(readme)
    assert not [link for link in links if re.match(r"docs/.*\.md", link)]
    on_site = [link for link in links if link.startswith(SITE)]
    assert len(on_site) >= 10
    for link in on_site:
        assert _site_page(link).is_file(), link
    urls = PYPROJECT["project"]["urls"]
    assert urls["Documentation"] == f"{SITE}/"
    assert _site_page(urls["Specification"]) == DOCS / "spec" / "SPEC.md"


def _toctree(text: str) -> tuple[list[str], list[str]]:
    match = re.search(r"```\{toctree\}\n((?::\S+:.*\n)*)\n(.*?)```", text, re.DOTALL)
    assert match, "no toctree"
    options = match[1].splitlines()
    return options, match[2].split()


@pytest.mark.parametrize("index", INDEXES, ids=lambda p: p.parent.name)
def test_an_index_lists_its_pages_in_markdown_in_the_toctrees_order(
    index: Path,
) -> None:
    text = index.read_text("utf-8")
    options, entries = _toctree(text)
    assert ":hidden:" in options  # the Markdown list is what readers see
    assert not [o for o in options if o.startswith(":glob:")]  # an explicit order
    listed = [
        link.removesuffix(".md")
        for link in re.findall(r"^- \[[^\]]+\]\(([\w-]+\.md)\)", text, re.MULTILINE)
    ]
    assert listed == entries
    pages = {p.stem for p in index.parent.glob("*.md")} - {"index"}
    assert set(entries) == pages
    for title, link in re.findall(
        r"^- \[([^\]]+)\]\(([\w-]+\.md)\)", text, re.MULTILINE
    ):
        first = (index.parent / link).read_text("utf-8").splitlines()[0]
        if first.startswith("# "):
            assert title == first.removeprefix("# ")


def test_the_first_lesson_comes_first() -> None:
    _, tutorials = _toctree((DOCS / "tutorials" / "index.md").read_text("utf-8"))
    assert tutorials[0] == "first-conformance-run"
    # the cmd: tutorial builds on the first one
    assert tutorials.index("command-reader") > tutorials.index("first-conformance-run")


@pytest.mark.parametrize(
    "page",
    sorted(p for p in DOCS.rglob("*.md") if "_build" not in p.parts),
    ids=lambda p: p.relative_to(DOCS).as_posix(),
)
def test_a_page_needing_sphinx_says_where_it_renders(page: Path) -> None:
    """An include or autodoc directive leaves GitHub's view of the page without
    its content: a comment line (shown by GitHub, dropped by Sphinx) names the
    source and the rendered page."""
    text = page.read_text("utf-8")
    needs = set(_DIRECTIVE.findall(text)) & {"include", "literalinclude", "eval-rst"}
    if not needs:
        return
    relative = page.relative_to(DOCS).with_suffix(".html").as_posix()
    assert "% GitHub shows this page's source" in text, needs
    assert f"]({SITE}/{relative})" in text
