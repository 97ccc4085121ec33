"""Merge the results of rows run on different machines into one ``results/``.

A run that scales past one machine runs each row in a job of its own
(``python -m matrix run --only NAME --results SHARD``, the matrix workflow)
and merges the shards: ``python -m matrix merge --shard SHARD ...`` copies
every row's ``NAME.json`` into ``--results``, then records the history and
renders the pages once, over all rows, as a run of them on one machine does.

A shard is read as a folder of files another job wrote: only regular files
named after a row of the matrix are taken, each must be a JSON object that
says it is that row, and a row found in two shards is refused rather than
one of them chosen.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

from matrix.impls import IMPLS

if TYPE_CHECKING:
    from collections.abc import Sequence
    from pathlib import Path

__all__ = ["merge", "whole_runs"]


def _row_file(path: Path, known: set[str]) -> tuple[str, bytes]:
    """(row name, contents) of one shard file (ValueError: why it is refused)."""
    if path.is_symlink() or not path.is_file():
        raise ValueError(f"{path}: not a regular file")
    if path.stem not in known:
        raise ValueError(f"{path}: {path.stem!r} is not a row of the matrix")
    data = path.read_bytes()
    try:
        loaded: Any = json.loads(data)
    except ValueError as exc:
        raise ValueError(f"{path}: not JSON ({exc})") from None
    named = (
        loaded.get("implementation", {}).get("name")
        if isinstance(loaded, dict)
        else None
    )
    if named != path.stem:
        raise ValueError(f"{path}: the result is of {named!r}, not of {path.stem!r}")
    return path.stem, data


def merge(shards: Sequence[Path], results: Path) -> list[str]:
    """Copy every row result of ``shards`` into ``results``; the rows, in table order.

    ValueError names every file refused and every row found twice; nothing is
    copied then.
    """
    known = {impl.name for impl in IMPLS}
    found: dict[str, tuple[Path, bytes]] = {}
    problems = []
    for shard in shards:
        if not shard.is_dir():
            problems.append(f"{shard}: not a folder")
            continue
        for path in sorted(shard.glob("*.json")):
            try:
                name, data = _row_file(path, known)
            except ValueError as exc:
                problems.append(str(exc))
                continue
            if name in found:
                problems.append(f"{name}: in {found[name][0].parent} and {shard}")
                continue
            found[name] = (path, data)
    if problems:
        raise ValueError("\n".join(problems))
    results.mkdir(parents=True, exist_ok=True)
    for name, (_, data) in found.items():
        (results / f"{name}.json").write_bytes(data)
    return [impl.name for impl in IMPLS if impl.name in found]


def whole_runs(results: Path, names: Sequence[str]) -> list[str]:
    """The rows of ``names`` whose result is a run of the whole suite.

    What ``python -m matrix run`` records in the history: not a set-up that
    failed, not a partial (``-k``) run.
    """
    recorded = []
    for name in names:
        loaded: Any = json.loads((results / f"{name}.json").read_text("utf-8"))
        run = loaded.get("run") if isinstance(loaded, dict) else None
        if isinstance(run, dict) and "selected" not in run:
            recorded.append(name)
    return recorded
