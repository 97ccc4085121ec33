"""The plain reader path reads, and runs, without the shortcuts or read()'s mode.

docs/explanation/reference-design.md tells an auditor to read plain.py and the
modules it names top to bottom.  Those modules must hold no code of the
shortcuts (fast.py, bulk.py) nor of read()'s first-violation mode (first.py):
no import of them, and none of the names those modules are built from.  And
the plain pipeline must run on its own: in a fresh interpreter that cannot
import them, it gives the corpus the verdicts ``check(..., shortcuts=False)``
gives.
"""

from __future__ import annotations

import ast
import json
import subprocess
import sys
from pathlib import Path
from typing import Final

import pytest

from stspec.reader.pipeline import check

ROOT: Final = Path(__file__).resolve().parents[2]
READER: Final = ROOT / "reference" / "stspec" / "reader"
CORPUS: Final = ROOT / "corpus" / "files"
# The parts as the design page lists them (bench/reader_sizes.py measures
# them and writes this file, which the page renders).
PARTS: Final = json.loads(
    (ROOT / "bench" / "results" / "reader-sizes.json").read_text(encoding="utf-8")
)["part_modules"]
PLAIN: Final[tuple[str, ...]] = tuple(PARTS["plain path"])
OTHERS: Final = (*PARTS["shortcuts"], *PARTS["first violation"], "pipeline.py")
FORBIDDEN_MODULES: Final = tuple(
    f"stspec.reader.{name.removesuffix('.py')}" for name in OTHERS
)
# Names the shortcuts and the first-violation mode are built from; none may
# appear as code (a name, attribute, definition, argument or import) in the
# plain path.  Docstrings may point to them.
SHORTCUT_NAMES: Final = frozenset(
    (
        # the shortcuts
        "FastText",
        "FastScan",
        "FastHeader",
        "shortcuts",
        "shallow",
        "nests_shallowly",
        "CANONICAL",
        "_sound_run",
        "_sound_entry",
        "load_bulk",
        "bulk_runs",
        "take",
        "raw_decode",
        "_counted_only",
        "count_more",
        "saturated",
        "element_rule",
        # read()'s first-violation mode
        "first_only",
        "Settled",
        "settles",
        "parse_fault",
        "rest",
        "in_entry",
        "FirstViolation",
        "past_buffer",
        "early",
        "_early",
        "structural",
        "utf8_fault",
        "_Again",
    )
)


def _identifiers(path: Path) -> set[str]:
    """Every name the module's code uses or defines (not its strings)."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Name):
            found.add(node.id)
        elif isinstance(node, ast.Attribute):
            found.add(node.attr)
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            found.add(node.name)
        elif isinstance(node, (ast.arg, ast.keyword)) and node.arg is not None:
            found.add(node.arg)
        elif isinstance(node, ast.alias):
            found.add(node.asname or node.name)
    return found


def _imported_modules(path: Path) -> set[str]:
    """Every module the file imports, under ``if TYPE_CHECKING:`` too."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module is not None:
            found.add(node.module)
            found.update(f"{node.module}.{alias.name}" for alias in node.names)
    return found


def test_the_names_listed_are_those_of_the_other_modules() -> None:
    # A name renamed away from fast/bulk/first/pipeline would make the check
    # below vacuous for it.
    used = set().union(*(_identifiers(READER / name) for name in OTHERS))
    assert sorted(SHORTCUT_NAMES - used) == []


@pytest.mark.parametrize("name", PLAIN)
def test_a_plain_module_imports_no_shortcut(name: str) -> None:
    imported = _imported_modules(READER / name)
    assert sorted(imported.intersection(FORBIDDEN_MODULES)) == []


@pytest.mark.parametrize("name", PLAIN)
def test_a_plain_module_holds_no_shortcut_code(name: str) -> None:
    assert sorted(_identifiers(READER / name) & SHORTCUT_NAMES) == []


# The plain pipeline alone, in an interpreter that cannot load the others.
# stspec/__init__.py loads read() and so the pipeline: the package is set up
# without it, then plain.py imported as an auditor reads it.
ALONE: Final = """
import importlib.abc, json, sys, types
from pathlib import Path

FORBIDDEN = {forbidden!r}

class Refuse(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path=None, target=None):
        if name in FORBIDDEN:
            raise ImportError(f"the plain path imported {{name}}")
        return None

sys.meta_path.insert(0, Refuse())
package = types.ModuleType("stspec")
package.__path__ = [{package!r}]
sys.modules["stspec"] = package
from stspec.reader import plain

verdicts = {{}}
for path in sorted(Path({corpus!r}).glob("*.safetensors")):
    errors, valid = plain.check(memoryview(path.read_bytes()), limit=None)
    verdicts[path.name] = [
        [error.rule, error.offset, str(error)] for error in errors
    ] if valid is None else None
loaded = sorted(name for name in sys.modules if name.startswith("stspec."))
print(json.dumps({{"verdicts": verdicts, "loaded": loaded}}))
"""


def test_the_plain_pipeline_runs_alone_with_the_same_verdicts() -> None:
    script = ALONE.format(
        forbidden=FORBIDDEN_MODULES,
        package=str(READER.parent),
        corpus=str(CORPUS),
    )
    done = subprocess.run(
        [sys.executable, "-c", script],
        capture_output=True,
        text=True,
        check=False,
        timeout=600,
    )
    assert done.returncode == 0, done.stderr
    alone = json.loads(done.stdout)
    assert sorted(set(alone["loaded"]).intersection(FORBIDDEN_MODULES)) == []
    assert "stspec.reader.plain" in alone["loaded"]
    expected = {}
    for path in sorted(CORPUS.glob("*.safetensors")):
        errors, valid = check(
            memoryview(path.read_bytes()), limit=None, shortcuts=False
        )
        expected[path.name] = (
            [[error.rule, error.offset, str(error)] for error in errors]
            if valid is None
            else None
        )
    assert len(expected) > 100  # the corpus is there
    assert any(v is None for v in expected.values())
    assert any(v is not None for v in expected.values())
    assert alone["verdicts"] == expected
