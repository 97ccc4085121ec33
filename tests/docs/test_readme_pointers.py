"""Every pointer into a section of the README names a section the README has.

A comment or page that sends the reader to 'README, "Some section"' goes
stale when that section moves to the documentation site; links are checked
by the site build, prose pointers only here.  spec/ is left out: there
[README] is the upstream project's README, which the spec quotes.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from test_worklog import ROOT, SKIPPED_DIRS

HERE = Path(__file__).resolve()

SUFFIXES = {
    ".py", ".md", ".rs", ".go", ".java", ".mjs", ".js", ".sh", ".toml", ".yml",
    ".yaml", ".cfg",
}  # fmt: skip
# README, "Title" / the README's "Title" / README section "Title"
POINTER = re.compile(r"README(?:,|'s| section) [\"\u201c]([^\"\u201d\n]+)[\"\u201d]")


def readme_sections() -> set[str]:
    """The titles of the README's headings."""
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    return {
        line.lstrip("#").strip()
        for line in text.splitlines()
        if re.match(r"#{1,6} ", line)
    }


def stale_pointers(text: str, sections: set[str]) -> list[str]:
    """Each section ``text`` points to that is not among ``sections``."""
    return [
        match.group(1)
        for match in POINTER.finditer(text)
        if match.group(1) not in sections
    ]


def scanned() -> list[Path]:
    """The project's source files and pages, spec/ and this file left out."""
    found = []
    for path in sorted(ROOT.rglob("*")):
        parts = path.relative_to(ROOT).parts
        if set(parts[:-1]) & SKIPPED_DIRS or parts[0] == "spec" or path == HERE:
            continue
        if path.suffix in SUFFIXES and path.is_file():
            found.append(path)
    return found


@pytest.mark.parametrize(
    "text",
    [
        '// command protocol 2 (README, "The command protocol"), with',
        'allowance (see the README\'s "Resource limits"), valid',
        'as the README section "Capability declarations" says',
    ],
)
def test_the_scan_finds_a_pointer_to_a_missing_section(text: str) -> None:
    assert len(stale_pointers(text, {"Quick start", "License"})) == 1


def test_the_scan_keeps_a_pointer_to_a_section_the_readme_has() -> None:
    assert readme_sections() >= {"Quick start", "License"}
    text = 'see README, "Quick start", and the README\'s "License"'
    assert stale_pointers(text, readme_sections()) == []


def test_no_file_points_to_a_section_the_readme_lacks() -> None:
    sections = readme_sections()
    found = [
        f"{path.relative_to(ROOT)}: {title!r}"
        for path in scanned()
        for title in stale_pointers(
            path.read_text(encoding="utf-8", errors="replace"), sections
        )
    ]
    assert found == [], "\n".join(found)
