"""Archival gold files: what old versions of the main writers wrote, kept.

    python -m matrix.gold keep --files DIR --writer NAME ... [--rows DIR]
    python -m matrix.gold check

A writer that can no longer be installed can still be read: the files it
wrote for the grid's requests are kept in ``matrix/gold/WRITER/
REQUEST.safetensors`` and listed, with their provenance, in
``matrix/gold/manifest.json`` (one entry per file: the writer's row, the
version it described, the request, the file's size and sha256).  The grid
reads each writer's kept files as one more writer, ``gold-WRITER``, so every
reader of every run reads them; the reference still judges each file, so a
gold file that breaks the spec stays its writer's fault.

``keep`` copies what the named writers wrote in a grid's ``files/`` folder
(every request but those larger than ``MAX_FILE_BYTES``, to keep the
repository small) and writes the manifest; ``check`` says what in the folder
disagrees with the manifest (exit 1 then).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import shutil
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final

from matrix import envs
from matrix.described import described
from matrix.grid_requests import requests
from matrix.impls import IMPLS

if TYPE_CHECKING:
    from collections.abc import Callable, Sequence

    from matrix.grid_requests import Request

    Write = Callable[[Sequence[Request], Path], dict[str, dict[str, str]]]

__all__ = [
    "FOLDER",
    "MAX_FILE_BYTES",
    "PREFIX",
    "check",
    "keep",
    "main",
    "manifest",
    "writers",
]

FOLDER: Final = envs.REPO / "matrix" / "gold"
PREFIX: Final = "gold-"
# the model-like request with many tensors is ~63 kB: kept from no writer
MAX_FILE_BYTES: Final = 32 * 1024
_FIELDS: Final = ("writer", "version", "request", "path", "bytes", "sha256")


def _sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def manifest(folder: Path = FOLDER) -> list[dict[str, Any]]:
    """The manifest's entries ([] when nothing is kept)."""
    path = folder / "manifest.json"
    if not path.is_file():
        return []
    entries: list[dict[str, Any]] = json.loads(path.read_text("utf-8"))["files"]
    return entries


def check(folder: Path = FOLDER) -> list[str]:
    """Every disagreement between the manifest and the files ([]: none)."""
    rows = {impl.name for impl in IMPLS}
    known = {r.name for r in requests()}
    problems = []
    listed = set()
    for entry in manifest(folder):
        if sorted(entry) != sorted(_FIELDS):
            problems.append(f"{entry}: fields are not {', '.join(_FIELDS)}")
            continue
        where = f"{entry['writer']}/{entry['request']}"
        if entry["writer"] not in rows:
            problems.append(f"{where}: {entry['writer']!r} is not a row of the matrix")
        if entry["request"] not in known:
            problems.append(f"{where}: {entry['request']!r} is not a grid request")
        if not entry["version"]:
            problems.append(f"{where}: no version")
        if entry["path"] != f"{entry['writer']}/{entry['request']}.safetensors":
            problems.append(f"{where}: path {entry['path']!r} is not WRITER/REQUEST")
        file = folder / entry["path"]
        listed.add(entry["path"])
        if file.is_symlink() or not file.is_file():
            problems.append(f"{where}: no file {entry['path']}")
            continue
        if file.stat().st_size != entry["bytes"]:
            problems.append(
                f"{where}: {file.stat().st_size} bytes, not {entry['bytes']}"
            )
        if _sha256(file) != entry["sha256"]:
            problems.append(f"{where}: sha256 {_sha256(file)}, not {entry['sha256']}")
    on_disk = {p.relative_to(folder).as_posix() for p in folder.glob("*/*.safetensors")}
    problems += [f"{path}: not in the manifest" for path in sorted(on_disk - listed)]
    return problems


def keep(files: Path, writers: Sequence[str], rows: Path, folder: Path = FOLDER) -> int:
    """Copy what ``writers`` wrote in ``files``/WRITER/ and list it; files kept."""
    kept = [e for e in manifest(folder) if e["writer"] not in writers]
    for writer in writers:
        version = str((described(rows, writer) or {}).get("version") or "")
        if not version:
            raise ValueError(f"{writer}: no version described in {rows}")
        target = folder / writer
        shutil.rmtree(target, ignore_errors=True)
        target.mkdir(parents=True)
        for request in requests():
            source = files / writer / f"{request.name}.safetensors"
            if not source.is_file() or source.stat().st_size > MAX_FILE_BYTES:
                continue
            shutil.copyfile(source, target / source.name)
            kept.append(
                {
                    "writer": writer,
                    "version": version,
                    "request": request.name,
                    "path": f"{writer}/{source.name}",
                    "bytes": source.stat().st_size,
                    "sha256": _sha256(source),
                }
            )
    kept.sort(key=lambda e: (e["writer"], e["request"]))
    (folder / "manifest.json").write_text(
        json.dumps({"files": kept}, indent=1, sort_keys=True) + "\n", "utf-8"
    )
    return len(kept)


def writers(folder: Path = FOLDER) -> dict[str, Write]:
    """Per writer kept, ``gold-WRITER``: a grid writer that "writes" its kept files."""
    by_writer: dict[str, dict[str, dict[str, Any]]] = {}
    for entry in manifest(folder):
        by_writer.setdefault(entry["writer"], {})[entry["request"]] = entry
    return {
        PREFIX + name: _copier(folder, entries)
        for name, entries in sorted(by_writer.items())
    }


def _copier(folder: Path, entries: dict[str, dict[str, Any]]) -> Write:
    def write(wanted: Sequence[Request], out: Path) -> dict[str, dict[str, str]]:
        outcomes = {}
        for request in wanted:
            entry = entries.get(request.name)
            if entry is None:
                outcomes[request.name] = {
                    "result": "not-kept",
                    "reason": "no gold file for this request",
                    "undeclared": "false",
                }
                continue
            source = folder / entry["path"]
            if source.is_symlink() or _sha256(source) != entry["sha256"]:
                outcomes[request.name] = {
                    "result": "crashed",
                    "reason": f"{entry['path']}: not the file the manifest lists",
                }
                continue
            shutil.copyfile(source, out / f"{request.name}.safetensors")
            outcomes[request.name] = {
                "result": "written",
                "reason": f"kept from {entry['writer']} {entry['version']}",
            }
        return outcomes

    return write


def main(argv: list[str] | None = None) -> int:
    """``keep`` or ``check`` (see the module's text)."""
    parser = argparse.ArgumentParser(
        prog="python -m matrix.gold",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("action", choices=("keep", "check"))
    parser.add_argument("--files", type=Path, help="a grid's files/ folder")
    parser.add_argument("--writer", action="append", default=[], metavar="NAME")
    parser.add_argument(
        "--rows",
        type=Path,
        default=envs.REPO / "results",
        help="the rows' results/NAME.json, for the version each described",
    )
    args = parser.parse_args(argv)
    if args.action == "keep":
        if args.files is None or not args.writer:
            parser.error("keep needs --files and --writer")
        try:
            count = keep(args.files, args.writer, args.rows)
        except ValueError as exc:
            print(f"[matrix] gold: {exc}", file=sys.stderr)
            return 1
        print(f"[matrix] gold: {count} files kept in {FOLDER}", file=sys.stderr)
        return 0
    problems = check()
    for problem in problems:
        print(f"[matrix] gold: {problem}", file=sys.stderr)
    return 1 if problems else 0


if __name__ == "__main__":
    raise SystemExit(main())
