"""No page of the project, and no comment in its code, tells the story of the work.

Work periods, the times and machine load of runs, commit hashes and "until now"
belong in git history and CHANGELOG.md (exempt).  Generated parts of pages are
data (a benchmark record states its load) and are not prose.
"""

from __future__ import annotations

import io
import re
import tokenize
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SKIPPED_DIRS = {
    ".git", ".venv", "_build", ".matrix", "node_modules", "work", "build", "dist",
    "__pycache__", ".mypy_cache", ".ruff_cache", ".hypothesis", ".pytest_cache",
}  # fmt: skip
EXEMPT = {"CHANGELOG.md"}
CODE = {".py", ".mjs", ".js", ".rs", ".sh", ".yml", ".yaml", ".toml", ".cfg"}
GENERATED = re.compile(r"<!-- generated: ([^>]+?) -->.*?<!-- end: \1 -->", re.DOTALL)
MARKERS = {
    "a numbered work period": re.compile(
        r"\b(?:sessions?|work periods?|rounds?) \d+\b", re.IGNORECASE
    ),
    "the UTC time of a run": re.compile(
        r"(?<!daily )\b\d{1,2}:\d{2}(?:[\u2013-]\d{1,2}:\d{2})? ?UTC\b"
        r"|\b\d{2}:\d{2}[\u2013-]\d{2}:\d{2}\b"
    ),
    "a load average": re.compile(
        r"\bload average(?: of)?(?: about)? \d"
        r"|\bat (?:a )?load (?:of )?\d"
        r"|\bload \d+(?:\.\d+)?[\u2013-]\d|\bload \d+\.\d+\b",
        re.IGNORECASE,
    ),
    "a commit hash": re.compile(
        r"`[0-9a-f]{7,10}\^?`|\((?=[0-9a-f]*\d)[0-9a-f]{7,10}\)"
        r"|\bcommit [0-9a-f]{7,40}\b|\bmain at `?[0-9a-f]{7}"
    ),
    "'until now'": re.compile(r"\buntil now\b", re.IGNORECASE),
    "a change told as an event": re.compile(
        r"\bsince (?:the|its|our) [\w' -]{0,30}?(?:refactoring|rewrite|redesign)\b",
        re.IGNORECASE,
    ),
}


def _files() -> list[Path]:
    found = []
    for path in sorted(ROOT.rglob("*")):
        parts = set(path.relative_to(ROOT).parts[:-1])
        if parts & SKIPPED_DIRS or not path.is_file() or path.name in EXEMPT:
            continue
        if path.suffix == ".md" or path.suffix in CODE or path.parent.name == ".ci":
            found.append(path)
    return found


def prose(path: Path) -> str:
    """The text of a page, or the comments of a source file."""
    text = path.read_text(encoding="utf-8", errors="replace")
    if path.suffix == ".md":
        return GENERATED.sub("", text)
    if path.suffix == ".py":
        try:
            tokens = tokenize.generate_tokens(io.StringIO(text).readline)
            return "\n".join(t.string for t in tokens if t.type == tokenize.COMMENT)
        except (tokenize.TokenError, SyntaxError):
            return text
    comment = "//" if path.suffix in {".mjs", ".js", ".rs"} else "#"
    return "\n".join(
        line.split(comment, 1)[1] for line in text.splitlines() if comment in line
    )


def work_log_lines(text: str) -> list[str]:
    """Each line of ``text`` that holds a work-log marker, with the marker's kind."""
    found = []
    for number, line in enumerate(text.splitlines(), 1):
        found += [
            f"line {number}: {kind}: {line.strip()[:120]}"
            for kind, pattern in MARKERS.items()
            if pattern.search(line)
        ]
    return found


@pytest.mark.parametrize(
    ("text", "kind"),
    [
        ("measured in session 3 after the changes", "a numbered work period"),
        ("First pass, 23:26\u201323:51 UTC on main", "the UTC time of a run"),
        ("at a load average of 6\u20137 (other jobs)", "a load average"),
        ("the same benchmark gave 1.68x (load 4.3)", "a load average"),
        ("the reader at `919096d`, measured", "a commit hash"),
        ("fixed by the reader's owner (9a73171),", "a commit hash"),
        ("which it counted until now as a rejection", "'until now'"),
        ("Since the reader's refactoring, both paths", "a change told as an event"),
    ],
)
def test_the_scan_finds_each_kind_of_marker(text: str, kind: str) -> None:
    assert [line.split(": ")[1] for line in work_log_lines(text)] == [kind]


@pytest.mark.parametrize(
    "text",
    [
        "| `cflite_batch.yml` | daily 03:00 UTC (or by hand) |",
        "`tensors_sha256` 6e340b9cffb37a989ca544e6bb780a2c78901d3fb33738768511a30",
        "F4 [16] 8 1032547698badcfe",
        "the worker loads the file; under session autogroups",
        "The conformance suite allows each load 10 s of CPU",
        "records the load average before and after",
    ],
)
def test_the_scan_leaves_ordinary_text_alone(text: str) -> None:
    assert work_log_lines(text) == []


def test_no_page_or_comment_tells_the_story_of_the_work() -> None:
    found = [
        f"{path.relative_to(ROOT)} {line}"
        for path in _files()
        for line in work_log_lines(prose(path))
    ]
    assert found == [], "\n".join(found)
