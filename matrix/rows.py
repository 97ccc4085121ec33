"""Matrix rows as data: one TOML file per row, checked against ``rows.schema.json``.

    python -m matrix.rows check FILE...  # validate row files (what CI runs)
    python -m matrix.rows list           # every row's name, in table order, as JSON
    python -m matrix.rows affected PATH...  # the row files a change to PATHs concerns
    python -m matrix.rows apt FILE...    # the Debian packages those rows need

Every row of the matrix is a file ``matrix/rows/NAME.toml`` holding the
fields of :class:`Impl` (defaults left out); ``matrix.impls.IMPLS`` is
``load_all(ROWS)``.  A file is refused, with every problem named, when it
breaks the schema, names a wrapper or build script that does not exist, or
is named other than its row.  ``order`` places a row in the results table;
rows without one follow the ordered rows, by name.  ``dumps`` writes a row
in the form the files use (defaults left out).
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import sys
import tomllib
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import TYPE_CHECKING, Any, Final, Literal

import jsonschema  # type: ignore[import-untyped]

if TYPE_CHECKING:
    from collections.abc import Iterable

__all__ = [
    "ROWS",
    "SCHEMA",
    "Impl",
    "affected",
    "check",
    "dumps",
    "load",
    "load_all",
    "main",
]

_HERE: Final = Path(__file__).resolve().parent
SCHEMA: Final = _HERE / "rows.schema.json"
ROWS: Final = _HERE / "rows"


@dataclass(frozen=True, slots=True)
class Impl:
    """One column of the matrix."""

    name: str  # the column id and results/NAME.json
    title: str  # what a person calls it, with the version
    language: str  # the language of the parser itself
    kind: Literal["python", "cmd"]
    wrapper: str  # file under matrix/wrappers/ (or builtin:NAME, the suite's own)
    pip: tuple[str, ...] = ()
    # installed after ``pip`` with --no-deps: a package whose one module the
    # wrapper loads by path, without the framework its other modules import
    pip_no_deps: tuple[str, ...] = ()
    npm: tuple[str, ...] = ()
    apt: tuple[str, ...] = ()
    build: str | None = None  # script under matrix/build/
    build_args: tuple[str, ...] = ()  # after DEST: what the script builds
    layer: str | None = None  # a name from matrix.impls.LAYERS
    env: dict[str, str] = field(default_factory=dict)
    memory_limit_mib: int = 2048  # --memory-limit (cmd: programs)
    case_timeout_s: float = 10.0
    suite_args: tuple[str, ...] = ()  # more options for pytest conformance
    note: str = ""  # how it is called, shown under the table
    probe: str | None = None  # the wrapper matrix.probe calls (default: wrapper)
    ci: bool = False  # cheap enough for CI's machinery test
    tracker: str | None = None  # where the library's issues are reported
    api: str = ""  # the public call the wrapper makes, as its users write it
    order: int | None = None  # place in the results table (None: after, by name)


_FIELDS: Final = {f.name: f for f in dataclasses.fields(Impl)}


def _default(name: str) -> object:
    spec = _FIELDS[name]
    if spec.default is not dataclasses.MISSING:
        return spec.default
    if spec.default_factory is not dataclasses.MISSING:
        return spec.default_factory()
    return dataclasses.MISSING


def _value(value: object) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return repr(value)
    if isinstance(value, str):
        return json.dumps(value, ensure_ascii=False)  # a TOML basic string
    if isinstance(value, tuple | list):
        return "[" + ", ".join(_value(v) for v in value) + "]"
    if isinstance(value, dict):
        return (
            "{"
            + ", ".join(f"{json.dumps(k)} = {_value(v)}" for k, v in value.items())
            + "}"
        )
    raise TypeError(f"no TOML form for {value!r}")


def dumps(impl: Impl) -> str:
    """The row as TOML, every field that is not its default."""
    lines = []
    for spec in dataclasses.fields(impl):
        value = getattr(impl, spec.name)
        if value != _default(spec.name):
            lines.append(f"{spec.name} = {_value(value)}")
    return "\n".join(lines) + "\n"


def _schema() -> dict[str, Any]:
    loaded: dict[str, Any] = json.loads(SCHEMA.read_text("utf-8"))
    return loaded


def check(data: dict[str, Any]) -> list[str]:
    """What is wrong with one row's data (nothing: a list that is empty)."""
    validator = jsonschema.Draft202012Validator(_schema())
    problems = [
        f"{'/'.join(str(p) for p in error.absolute_path) or '(row)'}: {error.message}"
        for error in sorted(validator.iter_errors(data), key=lambda e: list(e.path))
    ]
    wrapper = data.get("wrapper")
    if (
        isinstance(wrapper, str)
        and not wrapper.startswith("builtin:")
        and not (_HERE / "wrappers" / wrapper).exists()
    ):
        problems.append(f"wrapper: matrix/wrappers/{wrapper} does not exist")
    probe = data.get("probe")
    if isinstance(probe, str) and not (_HERE / "wrappers" / probe).exists():
        problems.append(f"probe: matrix/wrappers/{probe} does not exist")
    build = data.get("build")
    if isinstance(build, str) and not (_HERE / "build" / build).is_file():
        problems.append(f"build: matrix/build/{build} does not exist")
    if data.get("kind") == "cmd" and "npm" not in data and "build" not in data:
        problems.append(
            "build: a cmd row needs a build script (matrix/build/) or npm pins"
        )
    return problems


def load(path: Path) -> Impl:
    """One row file as an ``Impl`` (ValueError says every problem)."""
    try:
        data = tomllib.loads(path.read_text("utf-8"))
    except tomllib.TOMLDecodeError as exc:
        raise ValueError(f"{path.name}: not TOML: {exc}") from None
    problems = check(data)
    if not problems and data["name"] != path.stem:
        problems.append(f"name: {data['name']!r} is not the file's name")
    if problems:
        raise ValueError(f"{path.name}: " + "; ".join(problems))
    fields = dict(data)
    for name, value in fields.items():
        if isinstance(value, list):
            fields[name] = tuple(value)
    return Impl(**fields)


def _place(impl: Impl) -> tuple[bool, int, str]:
    return (impl.order is None, impl.order or 0, impl.name)


def load_all(folder: Path = ROWS) -> tuple[Impl, ...]:
    """Every ``folder/*.toml`` as rows, in table order (ValueError: every problem)."""
    problems: list[str] = []
    loaded: list[Impl] = []
    for path in sorted(folder.glob("*.toml")):
        try:
            loaded.append(load(path))
        except ValueError as exc:
            problems.append(str(exc))
    orders: dict[int, str] = {}
    for impl in loaded:
        if impl.order is not None and impl.order in orders:
            problems.append(
                f"{impl.name}.toml: order: {impl.order} is also "
                f"{orders[impl.order]}'s; each row has a place of its own"
            )
        elif impl.order is not None:
            orders[impl.order] = impl.name
    if problems:
        raise ValueError("\n".join(problems))
    return tuple(sorted(loaded, key=_place))


def affected(changed: Iterable[str]) -> list[Path]:
    """The row files that ``changed`` (paths in the repository) concern, by name.

    A row is concerned when its own file, its wrapper or probe (a file, or a
    file in its folder) or its build script changed.  Helpers every wrapper
    shares concern every row and are left to a full run.
    """
    paths = {PurePosixPath(p) for p in changed}
    found = []
    for path in sorted(ROWS.glob("*.toml")):
        if PurePosixPath("matrix/rows", path.name) in paths:
            found.append(path)  # even if it does not load: the check says why
            continue
        try:
            impl = load(path)
        except ValueError:
            continue
        own = {
            PurePosixPath("matrix/wrappers", name)
            for name in (impl.wrapper, impl.probe)
            if name and not name.startswith("builtin:")
        }
        if impl.build:
            own.add(PurePosixPath("matrix/build", impl.build))
        if any(p == part or part in p.parents for p in paths for part in own):
            found.append(path)
    return found


def _check_files(paths: Iterable[Path]) -> int:
    status = 0
    for path in paths:
        try:
            load(path)
        except (OSError, ValueError) as exc:
            print(f"{path}: {exc}", file=sys.stderr)
            status = 1
            continue
        print(f"{path}: ok")
    return status


def main(argv: list[str] | None = None) -> int:
    """``check``, ``list``, ``affected`` or ``apt``; 1 when a row file has a problem."""
    parser = argparse.ArgumentParser(
        prog="python -m matrix.rows",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("action", choices=("check", "list", "affected", "apt"))
    parser.add_argument("paths", nargs="*", type=Path, metavar="FILE")
    args = parser.parse_args(argv)
    if args.action == "affected":
        for path in affected(p.as_posix() for p in args.paths):
            print(path.relative_to(_HERE.parent).as_posix())
        return 0
    if args.action == "apt":
        # for a CI job, which installs them with sudo before the row's set-up
        needed = {package for path in args.paths for package in load(path).apt}
        print("\n".join(sorted(needed)))
        return 0
    if args.action == "list":
        # one line of JSON: a CI job matrix reads it (fromJSON)
        print(json.dumps([impl.name for impl in load_all()]))
        return 0
    if not args.paths:
        parser.error("check needs at least one FILE")
    return _check_files(args.paths)


if __name__ == "__main__":
    raise SystemExit(main())
