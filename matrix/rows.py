"""Matrix rows as data: one TOML file per row, checked against ``rows.schema.json``.

    python -m matrix.rows export DIR     # every row of matrix/impls.py as DIR/NAME.toml
    python -m matrix.rows check FILE...  # validate proposed row files

A row file holds the fields of ``matrix.impls.Impl`` (defaults left out) and
may add ``tracker`` (where the library's issues go) and ``api`` (the public
call the wrapper makes).  ``load`` turns a file back into an ``Impl``;
``export`` and ``load`` round-trip every row of ``IMPLS`` exactly (the
tests prove it), which is what lets ``impls.py`` read the files instead.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import sys
import tomllib
from pathlib import Path
from typing import Any, Final

import jsonschema  # type: ignore[import-untyped]

from matrix.impls import IMPLS, Impl

__all__ = ["SCHEMA", "check", "dumps", "export", "load"]

SCHEMA: Final = Path(__file__).resolve().parent / "rows.schema.json"
_HERE: Final = Path(__file__).resolve().parent
_EXTRA: Final = ("tracker", "api")  # in the file, not (yet) on Impl
_DEFAULTS: Final = {f.name: f for f in dataclasses.fields(Impl)}


def _default(name: str) -> object:
    spec = _DEFAULTS[name]
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
    build = data.get("build")
    if isinstance(build, str) and not (_HERE / "build" / build).is_file():
        problems.append(f"build: matrix/build/{build} does not exist")
    return problems


def load(path: Path) -> Impl:
    """One row file as an ``Impl`` (ValueError says every problem)."""
    data = tomllib.loads(path.read_text("utf-8"))
    problems = check(data)
    if problems:
        raise ValueError(f"{path.name}: " + "; ".join(problems))
    fields = {k: v for k, v in data.items() if k not in _EXTRA}
    for name, value in fields.items():
        if isinstance(value, list):
            fields[name] = tuple(value)
    return Impl(**fields)


def export(folder: Path) -> list[Path]:
    """Write every row of ``IMPLS`` as ``folder/NAME.toml``."""
    folder.mkdir(parents=True, exist_ok=True)
    written = []
    for impl in IMPLS:
        path = folder / f"{impl.name}.toml"
        path.write_text(dumps(impl), "utf-8")
        written.append(path)
    return written


def main(argv: list[str] | None = None) -> int:
    """``export DIR`` or ``check FILE...``; 1 when a file has a problem."""
    parser = argparse.ArgumentParser(prog="python -m matrix.rows", description=__doc__)
    parser.add_argument("action", choices=("export", "check"))
    parser.add_argument("paths", nargs="+", type=Path)
    args = parser.parse_args(argv)
    if args.action == "export":
        for path in export(args.paths[0]):
            print(path)
        return 0
    status = 0
    for path in args.paths:
        try:
            impl = load(path)
        except (ValueError, tomllib.TOMLDecodeError) as exc:
            print(f"{path}: {exc}", file=sys.stderr)
            status = 1
            continue
        if impl.name != path.stem:
            print(f"{path}: name {impl.name!r} is not the file's name", file=sys.stderr)
            status = 1
            continue
        print(f"{path}: ok")
    return status


if __name__ == "__main__":
    raise SystemExit(main())
