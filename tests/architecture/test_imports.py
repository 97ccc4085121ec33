"""The import graph: packages import only downward, and nothing imports in a cycle.

The layers, lowest first: ``stspec`` (the reference) <- ``stspec_corpus`` <-
``stspec_conformance`` <- ``matrix`` <- ``fuzz``.  Every import counts,
including the ones deferred into a function body (a deferred import still
runs, it only hides a cycle); imports under ``if TYPE_CHECKING:`` count for
the direction of the layers and for cycles between subpackages, where a type
names a dependency as much as a call does.
"""

from __future__ import annotations

import ast
import graphlib
import itertools
from dataclasses import dataclass
from pathlib import Path
from typing import Final

import pytest

ROOT: Final = Path(__file__).resolve().parents[2]
# (layer name, folder holding it, module prefix); scripts folders hold
# top-level modules that import their siblings by bare name.
PACKAGES: Final = (
    ("stspec", ROOT / "reference" / "stspec", "stspec"),
    ("stspec_corpus", ROOT / "corpus" / "stspec_corpus", "stspec_corpus"),
    (
        "stspec_conformance",
        ROOT / "conformance" / "stspec_conformance",
        "stspec_conformance",
    ),
    ("matrix", ROOT / "matrix", "matrix"),
    ("fuzz", ROOT / "fuzz", "fuzz"),
)
LAYERS: Final = tuple(name for name, _, _ in PACKAGES)
SCRIPT_FOLDERS: Final = (
    ROOT / "fuzz",
    ROOT / "matrix" / "wrappers",
    ROOT / "matrix" / "repro",
)


@dataclass(frozen=True)
class Edge:
    source: str
    target: str
    where: str  # file:line
    typing_only: bool


@dataclass(frozen=True)
class Graph:
    modules: dict[str, Path]  # name -> file
    packages: frozenset[str]  # names whose file is an __init__.py
    edges: tuple[Edge, ...]

    def layer(self, module: str) -> str:
        return module.split(".", maxsplit=1)[0]


def _module_name(path: Path, folder: Path, prefix: str) -> str:
    parts = [prefix, *path.relative_to(folder).with_suffix("").parts]
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _modules() -> tuple[dict[str, Path], frozenset[str]]:
    modules: dict[str, Path] = {}
    packages: set[str] = set()
    for _, folder, prefix in PACKAGES:
        for path in sorted(folder.rglob("*.py")):
            if any(part.startswith(".") or part == "build" for part in path.parts):
                continue
            name = _module_name(path, folder, prefix)
            modules[name] = path
            if path.name == "__init__.py":
                packages.add(name)
    return modules, frozenset(packages)


class _Imports(ast.NodeVisitor):
    """Every import statement of a module, and whether it is for type checking."""

    def __init__(self) -> None:
        self.found: list[tuple[ast.Import | ast.ImportFrom, bool]] = []
        self._typing = 0

    def visit_If(self, node: ast.If) -> None:
        test = node.test
        typing_block = (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
            isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
        )
        self._typing += typing_block
        for child in node.body:
            self.visit(child)
        self._typing -= typing_block
        for child in node.orelse:
            self.visit(child)

    def visit_Import(self, node: ast.Import) -> None:
        self.found.append((node, self._typing > 0))

    def visit_ImportFrom(self, node: ast.ImportFrom) -> None:
        self.found.append((node, self._typing > 0))


def _deepest(name: str, modules: dict[str, Path]) -> str | None:
    parts = name.split(".")
    while parts:
        candidate = ".".join(parts)
        if candidate in modules:
            return candidate
        parts.pop()
    return None


def _targets(
    node: ast.Import | ast.ImportFrom,
    module: str,
    path: Path,
    modules: dict[str, Path],
    packages: frozenset[str],
) -> list[str]:
    script_folder = path.parent if path.parent in SCRIPT_FOLDERS else None
    sibling_prefix = module.rsplit(".", 1)[0] if script_folder else None

    def resolve(name: str) -> str | None:
        found = _deepest(name, modules)
        if found is None and sibling_prefix is not None:
            found = _deepest(f"{sibling_prefix}.{name}", modules)
        return found

    if isinstance(node, ast.Import):
        return [t for alias in node.names if (t := resolve(alias.name)) is not None]
    if node.level:
        here = module if module in packages else module.rsplit(".", 1)[0]
        base_parts = here.split(".")[: len(here.split(".")) - node.level + 1]
        base = ".".join([*base_parts, *([node.module] if node.module else [])])
    else:
        base = node.module or ""
    targets = []
    for alias in node.names:
        target = resolve(f"{base}.{alias.name}") or resolve(base)
        if target is not None:
            targets.append(target)
    return targets


def build_graph() -> Graph:
    modules, packages = _modules()
    edges = []
    for module, path in modules.items():
        visitor = _Imports()
        visitor.visit(ast.parse(path.read_text(encoding="utf-8"), str(path)))
        for node, typing_only in visitor.found:
            for target in _targets(node, module, path, modules, packages):
                if target != module:
                    where = f"{path.relative_to(ROOT)}:{node.lineno}"
                    edges.append(Edge(module, target, where, typing_only))
    return Graph(modules, packages, tuple(edges))


def find_cycle(edges: dict[str, set[str]]) -> list[str]:
    """One cycle of ``edges`` (first node repeated at the end), or []."""
    try:
        graphlib.TopologicalSorter(edges).prepare()
    except graphlib.CycleError as exc:
        return list(exc.args[1])
    return []


def _describe(cycle: list[str], graph: Graph, unit: dict[str, str]) -> str:
    steps = set(itertools.pairwise(cycle))
    lines = {
        f"    {unit[e.source]} -> {unit[e.target]} ({e.where})"
        for e in graph.edges
        if (unit[e.source], unit[e.target]) in steps
        or (unit[e.target], unit[e.source]) in steps
    }
    return "  cycle " + " -> ".join(cycle) + ":\n" + "\n".join(sorted(lines))


def _cycle_report(graph: Graph, unit: dict[str, str], *, typing: bool) -> str:
    edges: dict[str, set[str]] = {}
    for edge in graph.edges:
        if edge.typing_only and not typing:
            continue
        source, target = unit[edge.source], unit[edge.target]
        if source != target:
            edges.setdefault(source, set()).add(target)
    cycle = find_cycle(edges)
    return _describe(cycle, graph, unit) if cycle else ""


@pytest.fixture(scope="module")
def graph() -> Graph:
    return build_graph()


def test_the_graph_sees_every_package(graph: Graph) -> None:
    layers = {graph.layer(m) for m in graph.modules}
    assert layers == set(LAYERS)
    assert any(e.target.startswith("stspec.") for e in graph.edges)


def test_packages_import_only_downward(graph: Graph) -> None:
    upward = [
        f"  {e.source} ({graph.layer(e.source)}) imports {e.target} "
        f"({graph.layer(e.target)}) at {e.where}"
        for e in graph.edges
        if LAYERS.index(graph.layer(e.target)) > LAYERS.index(graph.layer(e.source))
    ]
    assert not upward, (
        "upward imports (layers: " + " <- ".join(LAYERS) + "):\n" + ("\n".join(upward))
    )


def test_no_module_imports_itself_through_others(graph: Graph) -> None:
    unit = {m: m for m in graph.modules}
    found = _cycle_report(graph, unit, typing=False)
    assert not found, "an import cycle between modules:\n" + found


def test_no_reader_module_names_itself_through_others_even_in_types(
    graph: Graph,
) -> None:
    # The reader's floors: a module may name a type of one above it no more
    # than it may call it (first.py holds its own state, for one).
    inside = tuple(
        e
        for e in graph.edges
        if e.source.startswith("stspec.reader.")
        and e.target.startswith("stspec.reader.")
    )
    reader = Graph(graph.modules, graph.packages, inside)
    found = _cycle_report(reader, {m: m for m in graph.modules}, typing=True)
    assert not found, "an import cycle between reader modules:\n" + found


def _subpackage(module: str, graph: Graph) -> str:
    """The unit a module belongs to: its package's subpackage, or itself."""
    parts = module.split(".")
    for depth in range(2, len(parts) + 1):
        candidate = ".".join(parts[:depth])
        if candidate in graph.packages:
            return candidate
    return module


def test_no_subpackage_depends_on_a_module_that_depends_on_it(graph: Graph) -> None:
    unit = {m: _subpackage(m, graph) for m in graph.modules}
    found = _cycle_report(graph, unit, typing=True)
    assert not found, "an import cycle between subpackages and modules:\n" + found


def test_the_cycle_finder_finds_a_cycle() -> None:
    edges = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}
    cycle = find_cycle(edges)
    assert cycle[0] == cycle[-1]
    assert set(cycle) == {"a", "b", "c"}
    assert find_cycle({"a": {"b"}, "d": {"a"}}) == []
