"""The interop grid past one machine: a job per writer, a job per reader, a merge.

    python -m matrix.grid_shards list                     # writers and readers, as JSON
    python -m matrix.grid_shards write --writer NAME --results SHARD
    python -m matrix.grid_shards read --reader NAME --writes DIR --results SHARD
    python -m matrix.grid_shards merge --shard DIR ... [--results DIR]

``write`` has one writer write every request (``SHARD/interop/files/NAME/``)
and keeps its outcomes (``SHARD/interop/written/NAME.json``).  ``read`` has
one reader read every file of the writes gathered in ``DIR`` (the ``interop``
folders of all write shards, copied into one) and keeps its cells
(``SHARD/interop/cells/NAME.json``).  ``merge`` puts the writes and the cells
of all shards together as ``--results``/interop/ (``grid.json``,
``grid.md``, the files): the grid one run of ``python -m matrix.grid`` over
the same rows writes.  Each job needs only its own row's environment.

Shards are folders other jobs wrote: only files named after a row of the
matrix are read, a writer's outcomes must name known requests, files are read
only where those outcomes say a file was written, links are refused, and a
row found in two shards is refused rather than one chosen.
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final

from matrix import envs, gold, grid
from matrix.grid_requests import requests
from matrix.impls import IMPLS, by_name

if TYPE_CHECKING:
    from collections.abc import Collection, Sequence

__all__ = ["main", "merge", "read_shard", "write_shard"]

# the rows, then the writers whose gold files are kept (``matrix.gold``)
_ROWS: Final = tuple(impl.name for impl in IMPLS) + tuple(gold.writers())


def write_shard(writer: grid.Writer, shard: Path) -> None:
    """One writer's files and outcomes, under ``shard``/interop/."""
    out = shard / "interop"
    written = grid.write_all([writer], out)
    (out / "written").mkdir(parents=True, exist_ok=True)
    _dump(out / "written" / f"{writer.name}.json", written[writer.name])


def read_shard(reader: grid.Reader, writes: Path, shard: Path) -> None:
    """One reader's cells on every file of ``writes``, under ``shard``/interop/."""
    written = _writes(writes, _ROWS)
    cells = grid.read_all([reader], writes, written)
    mine = {w: {reader.name: c[reader.name]} for w, c in cells.items()}
    (shard / "interop" / "cells").mkdir(parents=True, exist_ok=True)
    _dump(shard / "interop" / "cells" / f"{reader.name}.json", mine)


def merge(
    shards: Sequence[Path], out: Path, rows: Sequence[str] = _ROWS
) -> dict[str, Any]:
    """The grid of every write and read in ``shards``, saved in ``out``.

    ``rows`` are the names a shard may hold, in the grid's order.  ValueError
    names every file refused and every row found twice; nothing is written then.
    """
    gathered = _Gathered()
    for shard in shards:
        try:
            gathered.add(shard / "interop", rows)
        except (ValueError, TypeError) as exc:
            gathered.problems.append(f"{shard}: {exc}")
    gathered.problems.extend(
        f"cells of writer {name}, whose writes no shard holds"
        for name in sorted(set(gathered.cells) - set(gathered.written))
    )
    if gathered.problems:
        raise ValueError("\n".join(gathered.problems))
    for name, outcomes in gathered.written.items():
        target = out / "files" / name
        shutil.rmtree(target, ignore_errors=True)
        target.mkdir(parents=True)
        for request, outcome in outcomes.items():
            if outcome.get("result") == "written":
                source = gathered.sources[name] / "files" / name
                shutil.copyfile(
                    source / f"{request}.safetensors", target / f"{request}.safetensors"
                )
    # in the order of one run: writers and readers as the rows, requests as asked
    order = [r.name for r in requests()]
    written = {
        name: _ordered(gathered.written[name], order)
        for name in rows
        if name in gathered.written
    }
    readers = [name for name in rows if name in gathered.readers]
    cells = {
        writer: {
            reader: _ordered(gathered.cells[writer][reader], order)
            for reader in readers
            if reader in gathered.cells[writer]
        }
        for writer in written
        if writer in gathered.cells
    }
    return grid.save(written, readers, cells, out)


def _ordered(by_request: dict[str, Any], order: Sequence[str]) -> dict[str, Any]:
    return {name: by_request[name] for name in order if name in by_request}


@dataclass
class _Gathered:
    """What the shards hold so far, and what is wrong with them."""

    written: dict[str, Any] = field(default_factory=dict)
    sources: dict[str, Path] = field(default_factory=dict)
    cells: dict[str, Any] = field(default_factory=dict)
    readers: set[str] = field(default_factory=set)
    problems: list[str] = field(default_factory=list)

    def add(self, folder: Path, rows: Collection[str]) -> None:
        """Take one shard's writes and cells (ValueError, TypeError: refused)."""
        found = _writes(folder, rows) if (folder / "written").is_dir() else {}
        read = _cells(folder, rows)
        twice = [f"writer {n}" for n in found if n in self.written] + [
            f"reader {n}" for n, _ in read if n in self.readers
        ]
        if twice:
            raise ValueError(", ".join(twice) + ": in two shards")
        self.written.update(found)
        self.sources.update(dict.fromkeys(found, folder))
        for reader, its in read:
            self.readers.add(reader)
            for writer, row in its.items():
                self.cells.setdefault(writer, {})[reader] = row


def _dump(path: Path, data: object) -> None:
    path.write_text(json.dumps(data, indent=1, sort_keys=True) + "\n", "utf-8")


def _load(path: Path) -> object:
    if path.is_symlink() or not path.is_file():
        raise ValueError(f"{path.name}: not a regular file")
    try:
        return json.loads(path.read_text("utf-8"))
    except ValueError as exc:
        raise ValueError(f"{path.name}: not JSON ({exc})") from None


def _writes(folder: Path, rows: Collection[str]) -> dict[str, Any]:
    """The writers' outcomes in ``folder``/written/, checked against their files."""
    names = {r.name for r in requests()}
    written: dict[str, Any] = {}
    for path in sorted((folder / "written").glob("*.json")):
        if path.stem not in rows:
            raise ValueError(f"{path.name}: {path.stem!r} is not a row of the matrix")
        outcomes = _load(path)
        if not isinstance(outcomes, dict) or set(outcomes) != names:
            raise TypeError(f"{path.name}: not one outcome per request")
        for request, outcome in outcomes.items():
            if not isinstance(outcome, dict):
                raise TypeError(f"{path.name}: {request}: not an outcome")
            file = folder / "files" / path.stem / f"{request}.safetensors"
            is_file = file.is_file() and not file.is_symlink()
            if (outcome.get("result") == "written") != is_file:
                raise ValueError(f"{path.stem}/{request}: the outcome and files differ")
        written[path.stem] = outcomes
    return written


def _cells(folder: Path, rows: Collection[str]) -> list[tuple[str, dict[str, Any]]]:
    """(reader, writer -> that reader's cells) of each file of ``folder``/cells/."""
    found = []
    for path in sorted((folder / "cells").glob("*.json")):
        if path.stem not in rows:
            raise ValueError(f"{path.name}: {path.stem!r} is not a row of the matrix")
        data = _load(path)
        if not isinstance(data, dict):
            raise TypeError(f"{path.name}: not a writer -> cells object")
        its = {}
        for writer, row in data.items():
            if not isinstance(row, dict) or set(row) != {path.stem}:
                raise TypeError(f"{path.name}: {writer}: not {path.stem}'s cells")
            its[writer] = row[path.stem]
        found.append((path.stem, its))
    return found


def _caps(results: Path, name: str) -> dict[str, Any]:
    return grid.capabilities(results, name) or {}


def _listing(results: Path) -> dict[str, list[str]]:
    """The grid's writers and readers, as ``python -m matrix.grid`` picks them."""
    caps = {
        impl.name: found
        for impl in IMPLS
        if (found := grid.capabilities(results, impl.name)) is not None
    }
    return {
        "writers": [name for name, found in caps.items() if found.get("write")]
        + list(gold.writers()),
        "readers": list(caps),
    }


def main(argv: list[str] | None = None) -> int:
    """``write``, ``read`` or ``merge`` (see the module's text); 1 on a refusal."""
    parser = argparse.ArgumentParser(
        prog="python -m matrix.grid_shards",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("phase", choices=("list", "write", "read", "merge"))
    parser.add_argument("--writer", metavar="NAME")
    parser.add_argument("--reader", metavar="NAME")
    parser.add_argument("--writes", type=Path, metavar="DIR")
    parser.add_argument("--shard", action="append", default=[], type=Path)
    parser.add_argument("--results", type=Path, default=envs.REPO / "results")
    parser.add_argument(
        "--rows",
        type=Path,
        default=envs.REPO / "results",
        help="the rows' results/NAME.json, for what each declares",
    )
    args = parser.parse_args(argv)
    if args.phase == "list":
        # one line of JSON: CI job matrices read it (fromJSON)
        print(json.dumps(_listing(args.rows)))
        return 0
    try:
        kept = gold.writers()
        if args.phase == "write" and args.writer in kept:
            write_shard(grid.Writer(args.writer, kept[args.writer]), args.results)
        elif args.phase == "write" and args.writer:
            impl = by_name(args.writer)
            write_shard(
                grid.real_writer(impl, _caps(args.rows, impl.name)), args.results
            )
        elif args.phase == "read" and args.reader and args.writes:
            impl = by_name(args.reader)
            reader = grid.real_reader(impl, _caps(args.rows, impl.name))
            read_shard(reader, args.writes, args.results)
        elif args.phase == "merge" and args.shard:
            merge(args.shard, args.results / "interop")
        else:
            parser.error(
                "write needs --writer, read needs --reader and --writes, "
                "merge needs --shard"
            )
    except (ValueError, TypeError) as exc:
        print(f"[matrix] grid shards refused:\n{exc}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
