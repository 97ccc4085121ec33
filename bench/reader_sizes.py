"""Measure the reader's parts: the plain path against the shortcuts.

Run: python bench/reader_sizes.py [OUT.json]   (default bench/results/reader-sizes.json)

Counts, per module of reference/stspec/reader/ and per part of the reader,
the lines and the statements (every statement the Python grammar has,
compound ones included, docstrings not; close to what coverage counts).  The
parts are those docs/explanation/reference-design.md describes: the plain
path, the shortcuts, read()'s first-violation mode and the public API.
Functions of pipeline.py are counted with the part they belong to.
"""

from __future__ import annotations

import ast
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
READER = ROOT / "reference" / "stspec" / "reader"
OUT = ROOT / "bench" / "results" / "reader-sizes.json"

# Whole modules per part, in the order the design page reads them.
PARTS = {
    "plain path": (
        "plain.py",
        "container.py",
        "strict_json.py",
        "header.py",
        "layout.py",
        "report.py",
        "table.py",
    ),
    "shortcuts": ("fast.py", "members.py", "recognise.py", "values.py", "bulk.py"),
    "first violation": ("first.py",),
    "api": ("__init__.py", "unmapped.py"),
}
# pipeline.py holds read()/validate() (the API) and the drivers of the fast
# path and of read()'s first-violation mode: its functions, split by part.
PIPELINE_FIRST = ("_early", "_Again")
PIPELINE_SHORTCUTS = ("check", "_check", "_members", "_collector_paused")


def _statements(nodes: list[ast.stmt]) -> int:
    count = 0
    for node in nodes:
        if not (
            isinstance(node, ast.Expr)
            and isinstance(node.value, ast.Constant)
            and isinstance(node.value.value, str)
        ):
            count += 1
        for field in ("body", "orelse", "finalbody", "handlers", "cases"):
            children = getattr(node, field, [])
            count += _statements(
                [child for child in children if isinstance(child, ast.stmt)]
            )
            for child in children:
                if isinstance(child, (ast.ExceptHandler, ast.match_case)):
                    count += _statements(child.body)
    return count


def _size(nodes: list[ast.stmt], lines: int) -> dict[str, int]:
    return {"lines": lines, "statements": _statements(nodes)}


def measure() -> dict[str, object]:
    """Return the sizes per module and per part."""
    modules: dict[str, dict[str, int]] = {}
    for path in sorted(READER.glob("*.py")):
        text = path.read_text(encoding="utf-8")
        modules[path.name] = _size(ast.parse(text).body, len(text.splitlines()))
    pipeline = READER / "pipeline.py"
    text = pipeline.read_text(encoding="utf-8")
    tree = ast.parse(text)
    split: dict[str, dict[str, int]] = {
        "first violation": {"lines": 0, "statements": 0},
        "shortcuts": {"lines": 0, "statements": 0},
    }
    for node in tree.body:
        name = getattr(node, "name", None)
        part = (
            "first violation"
            if name in PIPELINE_FIRST
            else "shortcuts"
            if name in PIPELINE_SHORTCUTS
            else None
        )
        if part is not None:
            size = _size([node], node.end_lineno - node.lineno + 1)  # type: ignore[operator]
            for key, value in size.items():
                split[part][key] += value
    parts: dict[str, dict[str, int]] = {}
    for part, names in PARTS.items():
        total = {"lines": 0, "statements": 0}
        for name in names:
            for key in total:
                total[key] += modules[name][key]
        parts[part] = total
    for part, size in split.items():
        for key in size:
            parts[part][key] += size[key]
    parts["api"] = {
        key: parts["api"][key]
        + modules["pipeline.py"][key]
        - split["first violation"][key]
        - split["shortcuts"][key]
        for key in ("lines", "statements")
    }
    return {
        "what": "lines and statements of reference/stspec/reader/, by part",
        "parts": parts,
        "part_modules": {
            **{part: list(names) for part, names in PARTS.items()},
            "pipeline.py functions": {
                "first violation": list(PIPELINE_FIRST),
                "shortcuts": list(PIPELINE_SHORTCUTS),
            },
        },
        "modules": modules,
    }


def main() -> int:
    """Write the sizes as JSON and print them."""
    out = Path(sys.argv[1]) if len(sys.argv) > 1 else OUT
    sizes = measure()
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(sizes, indent=2) + "\n", encoding="utf-8")
    print(json.dumps(sizes["parts"], indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
