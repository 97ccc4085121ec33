"""The interop grid: each writer writes the fixed requests; each reader reads them all.

    python -m matrix.grid [--writer NAME ...] [--reader NAME ...] [--results DIR]

Each file a writer wrote is first judged by the strict reference: a file that
breaks the spec, or holds something other than the request, is the writer's
fault, whatever readers make of it.  Each reader's answer on a good file is
compared with what the reference read from that file (not with the request,
so a reader is never blamed for the writer):

``same``             loaded the same tensor names, dtypes, shapes, bytes (where
                     the reader gives bytes) and metadata (where it reads it)
``refused-declared`` refused (or raised its runtime's exception on) a file holding a
                     dtype it does not declare, or
                     going beyond a limit it declares (``max_dimension``, ...):
                     not a failure
``refused``          refused a valid file within its declarations
``different``        loaded something else; the detail says what differed
``crashed``, ``hung``, ``invalid-output``: as the suite means them

Everything goes to ``DIR/interop/`` (default ``results/interop/``):
``grid.json`` (every cell), ``grid.md`` (the table) and ``files/WRITER/
REQUEST.safetensors`` (the files, so any cell can be reproduced with
``matrix.probe``).  Writers and readers are the rows whose
``results/NAME.json`` exist; writers are those that declare ``write``, then
the archival gold files of old writers (``matrix.gold``), each kept writer
as one more writer named ``gold-WRITER``.
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final

from matrix import envs, gold, probe
from matrix.crash_line import crash_line
from matrix.described import described
from matrix.grid_judge import FAILURES, Answer, cell, judge
from matrix.grid_report import markdown
from matrix.grid_requests import Request, dumps, requests
from matrix.impls import Impl, by_name
from matrix.scrub import scrub

if TYPE_CHECKING:
    from collections.abc import Callable, Sequence

__all__ = [
    "Reader",
    "Writer",
    "capabilities",
    "main",
    "read_all",
    "real_reader",
    "real_writer",
    "run_grid",
    "save",
    "write_all",
]

WRITE_S: Final = 60  # one request, any writer: the largest is under 100 kB


@dataclass(frozen=True, slots=True)
class Writer:
    """A row that writes: ``write(requests, folder)`` -> request name -> outcome."""

    name: str
    write: Callable[[Sequence[Request], Path], dict[str, dict[str, str]]]
    write_dtypes: frozenset[str] | None = None  # None: declares nothing


@dataclass(frozen=True, slots=True)
class Reader:
    """A row that reads: ``read(files)`` -> file stem -> probe answer."""

    name: str
    read: Callable[[list[Path]], dict[str, Answer]]
    caps: dict[str, Any] = field(default_factory=dict)


def write_all(writers: Sequence[Writer], out: Path) -> dict[str, Any]:
    """Each writer writes every request into ``out``/files/WRITER/, judged there.

    The writer's outcome per request; a written file's outcome has ``fault``
    (empty: a good file).
    """
    files = out / "files"
    written: dict[str, Any] = {}
    for writer in writers:
        folder = files / writer.name
        shutil.rmtree(folder, ignore_errors=True)
        folder.mkdir(parents=True)
        outcomes = writer.write(requests(), folder)
        written[writer.name] = {}
        for request in requests():
            outcome = dict(
                outcomes.get(request.name)
                or {"result": "crashed", "reason": "no answer"}
            )
            # what a writer raised may name the file: kept is its name
            outcome["reason"] = scrub(outcome.get("reason", ""))
            path = folder / f"{request.name}.safetensors"
            if outcome["result"] == "written" and path.is_file():
                outcome["fault"] = judge(path, request)[0]
            else:
                path.unlink(missing_ok=True)
                if "undeclared" not in outcome:
                    declared = writer.write_dtypes
                    outcome["undeclared"] = str(
                        declared is not None and not request.dtypes <= declared
                    ).lower()
            written[writer.name][request.name] = outcome
    return written


def read_all(
    readers: Sequence[Reader], out: Path, written: dict[str, Any]
) -> dict[str, Any]:
    """Each reader reads every file ``written`` names under ``out``/files/; the cells.

    What the reference reads from a file is the truth a reader is compared
    with; a file the reference refuses is the writer's fault, whatever the
    reader did.
    """
    by_name_ = {r.name: r for r in requests()}
    truths: dict[tuple[str, str], Answer] = {}
    to_read: list[Path] = []
    for writer_name, outcomes in written.items():
        for request_name, outcome in outcomes.items():
            path = out / "files" / writer_name / f"{request_name}.safetensors"
            if outcome.get("result") != "written" or not path.is_file():
                continue
            truth = judge(path, by_name_[request_name])[1]
            if truth is not None:
                truths[(writer_name, request_name)] = truth
            to_read.append(path)
    cells: dict[str, dict[str, dict[str, dict[str, str]]]] = {}
    for reader in readers:
        answers = _read_all(reader, to_read)
        for path in to_read:
            writer_name, request_name = path.parent.name, path.stem
            truth = truths.get((writer_name, request_name))
            answer = answers.get(f"{writer_name}/{request_name}")
            if truth is None:  # the writer's fault: recorded, never the reader's
                verdict = {
                    "verdict": "writer-fault",
                    "detail": str((answer or {}).get("result")),
                }
            else:
                verdict = cell(answer, truth, by_name_[request_name], reader.caps)
            row = cells.setdefault(writer_name, {}).setdefault(reader.name, {})
            row[request_name] = verdict
    return cells


def save(
    written: dict[str, Any], readers: Sequence[str], cells: dict[str, Any], out: Path
) -> dict[str, Any]:
    """The grid as ``out``/grid.json and grid.md; the grid."""
    grid = {
        "requests": [r.name for r in requests()],
        "writers": written,
        "readers": list(readers),
        "cells": cells,
    }
    (out / "grid.json").write_text(
        json.dumps(grid, indent=1, sort_keys=True) + "\n", "utf-8"
    )
    (out / "grid.md").write_text(markdown(grid), "utf-8")
    return grid


def run_grid(
    writers: Sequence[Writer], readers: Sequence[Reader], out: Path
) -> dict[str, Any]:
    """Write, judge and read everything; the grid (also saved as ``out``/grid.json)."""
    shutil.rmtree(out / "files", ignore_errors=True)
    written = write_all(writers, out)
    cells = read_all(readers, out, written)
    return save(written, [r.name for r in readers], cells, out)


def _read_all(reader: Reader, paths: list[Path]) -> dict[str, Answer]:
    """The reader's answer per ``WRITER/REQUEST``, from copies named uniquely."""
    # probe keys answers by file stem, and every writer writes the same stems
    with tempfile.TemporaryDirectory(prefix="stspec-grid-") as tmp:
        staged = {}
        for path in paths:
            copy = Path(tmp) / f"{path.parent.name}__{path.name}"
            shutil.copyfile(path, copy)
            staged[f"{path.parent.name}__{path.stem}"] = (
                f"{path.parent.name}/{path.stem}"
            )
        answers = reader.read(sorted(Path(tmp).iterdir()))
    return {key: answers[stem] for stem, key in staged.items() if stem in answers}


# --- the real rows ---------------------------------------------------------


def _python_writer(
    impl: Impl,
) -> Callable[[Sequence[Request], Path], dict[str, dict[str, str]]]:
    wrapper = envs.REPO / "matrix" / "wrappers" / (impl.probe or impl.wrapper)
    script = Path(__file__).resolve().parent / "grid_writer.py"

    def write(wanted: Sequence[Request], folder: Path) -> dict[str, dict[str, str]]:
        env = envs.run_env(impl)
        outcomes: dict[str, dict[str, str]] = {}
        todo = list(wanted)
        while todo:
            lines = "".join(
                json.dumps({"name": r.name, **json.loads(dumps(r))}) + "\n"
                for r in todo
            )
            done = subprocess.run(  # noqa: S603 - the row's own interpreter
                [
                    str(envs.python_of(impl.name)),
                    str(script),
                    str(wrapper),
                    str(folder),
                ],
                input=lines,
                capture_output=True,
                text=True,
                env=env,
                cwd=envs.REPO,
                timeout=WRITE_S * len(todo),
                check=False,
            )
            for line in done.stdout.splitlines():
                try:
                    answer = json.loads(line)
                except ValueError:
                    continue
                if isinstance(answer, dict) and answer.get("request") in {
                    r.name for r in todo
                }:
                    outcomes[answer["request"]] = {
                        "result": str(answer.get("result")),
                        "reason": str(answer.get("reason")),
                        "undeclared": str(answer.get("undeclared") is True).lower(),
                    }
            todo = [r for r in todo if r.name not in outcomes]
            if todo:  # the process died on todo[0]
                outcomes[todo[0].name] = {
                    "result": "crashed",
                    "reason": f"exit {done.returncode}: {crash_line(done.stderr)}"[
                        :300
                    ],
                }
                (folder / f"{todo[0].name}.safetensors").unlink(missing_ok=True)
                todo = todo[1:]
        return outcomes

    return write


def _cmd_writer(
    impl: Impl,
) -> Callable[[Sequence[Request], Path], dict[str, dict[str, str]]]:
    program = envs.env_dir(impl.name) / "bin" / impl.wrapper

    def write(wanted: Sequence[Request], folder: Path) -> dict[str, dict[str, str]]:
        outcomes = {}
        for request in wanted:
            path = folder / f"{request.name}.safetensors"
            try:
                done = subprocess.run(  # noqa: S603 - the row's own program
                    [str(program), "--write", str(path)],
                    input=dumps(request),
                    capture_output=True,
                    text=True,
                    env=envs.run_env(impl),
                    timeout=WRITE_S,
                    check=False,
                )
            except subprocess.TimeoutExpired:
                outcomes[request.name] = {"result": "crashed", "reason": "hung"}
                continue
            try:
                body = json.loads(done.stdout)
            except ValueError:
                body = None
            said = body.get("result") if isinstance(body, dict) else None
            if done.returncode == 0 and said == "written":
                outcomes[request.name] = {"result": "written", "reason": ""}
            elif done.returncode == 1 and said == "refused":
                outcomes[request.name] = {
                    "result": "refused",
                    "reason": str(body.get("reason"))[:300],
                }
            else:
                # a Rust or Go writer's panic, not the hint or frame below it
                said = crash_line(done.stderr)
                outcomes[request.name] = {
                    "result": "crashed",
                    "reason": f"exit {done.returncode}: {said}"[:300],
                }
            if outcomes[request.name]["result"] != "written":
                path.unlink(missing_ok=True)
        return outcomes

    return write


def capabilities(results: Path, name: str) -> dict[str, Any] | None:
    """What row ``name`` declared in its last run (None: no run that set up)."""
    found = described(results, name)
    return None if found is None else dict(found.get("capabilities") or {})


def real_writer(impl: Impl, caps: dict[str, Any]) -> Writer:
    """The row as a writer (through its wrapper's ``save`` or ``--write``)."""
    write = _python_writer(impl) if impl.kind == "python" else _cmd_writer(impl)
    dtypes = caps.get("write_dtypes")
    return Writer(impl.name, write, frozenset(dtypes) if dtypes is not None else None)


def real_reader(impl: Impl, caps: dict[str, Any]) -> Reader:
    """The row as a reader (``matrix.probe``)."""
    return Reader(impl.name, lambda paths: probe.probe(impl, paths), caps)


def main(argv: list[str] | None = None) -> int:
    """Run the grid over the rows named (default: every row with results)."""
    parser = argparse.ArgumentParser(
        prog="python -m matrix.grid",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--writer", action="append", default=[], metavar="NAME")
    parser.add_argument("--reader", action="append", default=[], metavar="NAME")
    parser.add_argument("--results", type=Path, default=envs.REPO / "results")
    args = parser.parse_args(argv)
    from matrix.impls import IMPLS  # noqa: PLC0415 - only the command needs every row

    caps = {
        i.name: c
        for i in IMPLS
        if (c := capabilities(args.results, i.name)) is not None
    }
    kept = [Writer(name, write) for name, write in gold.writers().items()]
    try:
        named = [n for n in args.writer if n not in {w.name for w in kept}]
        writer_rows = (
            [by_name(n) for n in named]
            if args.writer
            else [i for i in IMPLS if caps.get(i.name, {}).get("write")]
        )
        reader_rows = [by_name(n) for n in args.reader] or [
            i for i in IMPLS if i.name in caps
        ]
    except ValueError as exc:
        parser.error(str(exc))
    writers = [real_writer(i, caps.get(i.name, {})) for i in writer_rows]
    writers += [w for w in kept if not args.writer or w.name in args.writer]
    readers = [real_reader(i, caps.get(i.name, {})) for i in reader_rows]
    out = args.results / "interop"
    out.mkdir(parents=True, exist_ok=True)
    grid = run_grid(writers, readers, out)
    failed = sum(
        cell["verdict"] in FAILURES
        for row in grid["cells"].values()
        for cells in row.values()
        for cell in cells.values()
    )
    print(
        f"[matrix] grid: {len(writers)} writers x {len(readers)} readers, "
        f"{failed} failed cells; {out / 'grid.md'}",
        file=sys.stderr,
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
