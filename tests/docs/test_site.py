"""The documentation site builds clean, and renders in a real browser.

CI builds the site once (.ci/run, ``docs/build_site.py``: warnings are errors,
every internal link and anchor resolves) and names the build in
STSPEC_DOCS_BUILT; without it these tests build their own copy.  The browser
is Debian's headless Chromium: as root, ``apt-get install chromium`` (.ci/run
does it); elsewhere the browser tests skip, except under CI=true.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from html.parser import HTMLParser
from pathlib import Path

import pytest
from external_tools import chromium

import stspec

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    built = os.environ.get("STSPEC_DOCS_BUILT")
    if built and (Path(built) / "index.html").is_file():
        return Path(built)
    out = tmp_path_factory.mktemp("site") / "html"
    done = subprocess.run(
        [sys.executable, str(ROOT / "docs" / "build_site.py"), str(out)],
        capture_output=True, text=True, check=False, timeout=600,
    )  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr
    return out


class _Ids(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.ids: list[str] = []

    def handle_starttag(self, _tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.ids += [value for key, value in attrs if key == "id" and value]


def ids(page: Path) -> list[str]:
    parser = _Ids()
    parser.feed(page.read_text(encoding="utf-8"))
    return parser.ids


def test_every_rule_has_its_stable_anchor_in_the_spec(site: Path) -> None:
    found = ids(site / "spec" / "SPEC.html")
    assert [
        f"rule-{rule.id}" for rule in stspec.RULES if f"rule-{rule.id}" not in found
    ] == []
    assert all(found.count(f"rule-{rule.id}") == 1 for rule in stspec.RULES)


def test_every_shard_check_has_its_anchor_on_the_companion_page(site: Path) -> None:
    # SPEC.md §13.2 and the SARIF rule table link these anchors
    from stspec.audit.shard_checks import SHARD_CHECKS  # noqa: PLC0415

    found = ids(site / "spec" / "sharded-checkpoints.html")
    assert [c.id for c in SHARD_CHECKS if c.id.lower() not in found] == []


def test_the_site_has_its_four_sections_and_the_matrix(site: Path) -> None:
    for page in ("tutorials", "howto", "reference", "explanation", "spec"):
        assert (site / page / "index.html").is_file(), page
    assert (site / "results" / "index.html").is_file()
    cli = (site / "reference" / "cli.html").read_text(encoding="utf-8")
    assert "--sarif FILE" in cli


def test_the_link_check_finds_a_broken_anchor(site: Path, tmp_path: Path) -> None:
    sys.path.insert(0, str(ROOT / "docs"))
    try:
        import build_site  # noqa: PLC0415 - a script beside conf.py
    finally:
        sys.path.remove(str(ROOT / "docs"))
    copy = tmp_path / "site"
    shutil.copytree(site, copy)
    assert build_site.broken_links(copy) == []
    page = copy / "reference" / "rules.html"
    page.write_text(
        page.read_text(encoding="utf-8").replace("#rule-key-unique", "#rule-nope"),
        encoding="utf-8",
    )
    (copy / "reference" / "cli.html").unlink()
    problems = build_site.broken_links(copy)
    assert any("no id 'rule-nope'" in problem for problem in problems), problems
    assert any("no file reference/cli.html" in problem for problem in problems)


def rendered(page: Path, tmp_path: Path) -> str:
    """The DOM Chromium built for ``page`` (scripts run, styles applied)."""
    return chromium(page, tmp_path / "profile", "--dump-dom")


def test_the_site_renders_in_chromium(site: Path, tmp_path: Path) -> None:
    landing = rendered(site / "index.html", tmp_path)
    assert "<title>safetensors-spec" in landing
    assert re.search(r'href="tutorials/index\.html"', landing)
    spec = rendered(site / "spec" / "SPEC.html", tmp_path)
    anchor = spec.index('id="rule-KEY-UNIQUE"')
    assert "KEY-UNIQUE" in spec[anchor : anchor + 600]
    assert "MUST NOT contain two members" in spec[anchor : anchor + 2000]
    cli = rendered(site / "reference" / "cli.html", tmp_path)
    assert "stspec check" in cli
    assert "--sarif FILE" in cli
    matrix = rendered(site / "results" / "index.html", tmp_path)
    assert matrix.count('class="case"') >= 300
    assert 'href="../spec/SPEC.html#key-unique"' in matrix
