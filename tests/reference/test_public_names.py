"""Nothing outside reference/ imports a private stspec name.

Ruff's PLC2701 says the same where it runs; this test also covers the files
where it is switched off for other packages' private modules (see
pyproject.toml).
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
FOLDERS = ("bench", "conformance", "corpus", "docs", "fuzz", "matrix", "tests")
# "stspec._x" (a module path in a string or an import), "from stspec import _x"
PRIVATE_PATH = re.compile(r"\bstspec(?:\.[A-Za-z]\w*)*\._(?!_)\w+")


def python_files() -> list[Path]:
    files = [ROOT / "setup.py"]
    for folder in FOLDERS:
        files.extend(
            path
            for path in sorted((ROOT / folder).rglob("*.py"))
            if not any(part.startswith(".") for part in path.relative_to(ROOT).parts)
        )
    return files


def private_imports(source: str) -> list[str]:
    found: list[str] = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.ImportFrom) and node.module is not None:
            if node.module == "stspec" or node.module.startswith("stspec."):
                found.extend(
                    f"{node.module}.{alias.name}"
                    for alias in node.names
                    if alias.name.startswith("_") and not alias.name.startswith("__")
                )
                found.extend(PRIVATE_PATH.findall(node.module))
        elif isinstance(node, ast.Import):
            found.extend(
                name
                for alias in node.names
                for name in PRIVATE_PATH.findall(alias.name)
            )
    return found


def test_the_check_finds_private_names() -> None:
    source = (
        "from stspec import _x, read\n"
        "from stspec._y import z\n"
        "import stspec.reader._w\n"
        "from stspec import __version__\n"
        "from stspec_corpus import _z\n"
    )
    assert private_imports(source) == [
        "stspec._x",
        "stspec._y",
        "stspec.reader._w",
    ]


def test_no_private_stspec_name_outside_reference() -> None:
    found = {
        str(path.relative_to(ROOT)): names
        for path in python_files()
        if (names := private_imports(path.read_text(encoding="utf-8")))
    }
    assert found == {}
