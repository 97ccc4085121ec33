"""The suite digest covers what decides verdicts, and results come from one run."""

from __future__ import annotations

import ast
from pathlib import Path
from typing import TYPE_CHECKING

from matrix import envs, inputs, render_data, render_suite

if TYPE_CHECKING:
    import pytest

REPO = Path(__file__).resolve().parents[2]
# the packages whose code runs in a suite run, and the folder each lives in
RUN: dict[str, Path] = {
    "stspec_conformance": REPO / "conformance" / "stspec_conformance",
    "stspec_corpus": REPO / "corpus" / "stspec_corpus",
    "stspec": REPO / "reference" / "stspec",
}


def _module_file(name: str) -> Path | None:
    top, _, rest = name.partition(".")
    if top not in RUN:
        return None
    base = RUN[top].joinpath(*rest.split(".")) if rest else RUN[top]
    for candidate in (base / "__init__.py", base.with_suffix(".py")):
        if candidate.is_file():
            return candidate
    return None


def _imported(path: Path, name: str) -> set[str]:
    """Every module ``path`` imports, deferred and TYPE_CHECKING imports included."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text("utf-8"))):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parts = package.split(".")
                parts = parts[: len(parts) - node.level + 1]
                base = ".".join([*parts, base] if base else parts)
            found.add(base)
            # ``from pkg import mod`` may name a submodule
            found.update(f"{base}.{alias.name}" for alias in node.names)
        elif (
            isinstance(node, ast.Constant)
            and isinstance(node.value, str)
            and node.value.startswith("stspec.")
            and " " not in node.value
        ):
            # importlib.import_module("stspec.audit...") and the like
            found.add(node.value)
    return found


def _parents(name: str) -> list[str]:
    parts = name.split(".")
    return [".".join(parts[:i]) for i in range(1, len(parts) + 1)]


def reached() -> set[str]:
    """The modules a suite run can import: every conformance and corpus module,
    and whatever they import, to the end."""
    todo = [
        ".".join([top, *path.relative_to(folder).with_suffix("").parts]).removesuffix(
            ".__init__"
        )
        for top, folder in RUN.items()
        if top != "stspec"
        for path in folder.rglob("*.py")
    ]
    seen: set[str] = set()
    while todo:
        name = todo.pop()
        for module in _parents(name):  # importing a.b.c runs a and a.b first
            if module in seen or (path := _module_file(module)) is None:
                continue
            seen.add(module)
            todo.extend(_imported(path, module))
    return seen


def test_the_suite_never_imports_the_command_line_auditor() -> None:
    modules = reached()
    assert "stspec_conformance.plugin" in modules  # the walk found the suite
    assert "stspec.reader" in modules  # and the reference it judges with
    assert "stspec.writer" in modules
    kept = {REPO / part for part in inputs.SUITE_KEPT}
    excluded = [
        name
        for name in modules
        if (path := _module_file(name)) is not None
        and path not in kept
        and any(path.is_relative_to(REPO / part) for part in inputs.SUITE_EXCLUDED)
    ]
    assert excluded == [], "the suite imports what SUITE_EXCLUDED leaves out"


def test_the_walk_would_see_an_import_of_the_auditor(tmp_path: Path) -> None:
    source = tmp_path / "mod.py"
    source.write_text(
        "import importlib\n"
        "def f():\n"
        "    from stspec.audit import cli\n"
        "    importlib.import_module('stspec.audit.check')\n"
    )
    found = _imported(source, "stspec_conformance.mod")
    assert {"stspec.audit", "stspec.audit.cli", "stspec.audit.check"} <= found


def test_the_suite_digest_leaves_out_the_auditor_only(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    tree = tmp_path / "reference" / "stspec"
    (tree / "audit").mkdir(parents=True)
    (tree / "reader.py").write_text("x = 1\n")
    (tree / "audit" / "cli.py").write_text("y = 1\n")
    (tree / "audit" / "terminal.py").write_text("w = 1\n")
    (tree / "__main__.py").write_text("z = 1\n")
    monkeypatch.setattr(envs, "REPO", tmp_path)
    monkeypatch.setattr(inputs, "SUITE_DIRS", ("reference",))
    before = inputs.suite_digest()
    (tree / "audit" / "cli.py").write_text("y = 2\n")
    (tree / "__main__.py").write_text("z = 2\n")
    assert inputs.suite_digest() == before
    (tree / "audit" / "terminal.py").write_text("w = 2\n")  # the suite imports it
    assert inputs.suite_digest() != before
    before = inputs.suite_digest()
    (tree / "reader.py").write_text("x = 2\n")
    assert inputs.suite_digest() != before


def test_every_row_in_results_comes_from_one_run_of_the_suite() -> None:
    """A page mixing rows of different suites compares rows judged differently."""
    runs = render_suite.runs(render_data.load_results(REPO / "results"))
    assert len(runs) == 1, "rows of results/ come from different suites: " + (
        "; ".join(f"{run.digest[:12]}: {', '.join(run.names)}" for run in runs)
    )
