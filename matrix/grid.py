"""The interop grid: each writer writes the fixed requests; each reader reads them all.

    python -m matrix.grid [--writer NAME ...] [--reader NAME ...] [--results DIR]

Each file a writer wrote is first judged by the strict reference: a file that
breaks the spec, or holds something other than the request, is the writer's
fault, whatever readers make of it.  Each reader's answer on a good file is
compared with what the reference read from that file (not with the request,
so a reader is never blamed for the writer):

``same``             loaded the same tensor names, dtypes, shapes, bytes (where
                     the reader gives bytes) and metadata (where it reads it)
``refused-declared`` refused a file holding a dtype it does not declare: not a
                     failure
``refused``          refused a valid file within its declarations
``different``        loaded something else; the detail says what differed
``crashed``, ``hung``, ``invalid-output``: as the suite means them

Everything goes to ``DIR/interop/`` (default ``results/interop/``):
``grid.json`` (every cell), ``grid.md`` (the table) and ``files/WRITER/
REQUEST.safetensors`` (the files, so any cell can be reproduced with
``matrix.probe``).  Writers and readers are the rows whose
``results/NAME.json`` exist; writers are those that declare ``write``.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import shutil
import subprocess
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final

import stspec
from matrix import envs, probe
from matrix.grid_requests import Request, dumps, requests
from matrix.impls import Impl, by_name
from matrix.scrub import scrub

if TYPE_CHECKING:
    from collections.abc import Callable, Sequence

__all__ = [
    "Reader",
    "Writer",
    "compare",
    "judge",
    "main",
    "run_grid",
]

Answer = dict[str, Any]
WRITE_S: Final = 60  # one request, any writer: the largest is under 100 kB
FAILURES: Final = ("refused", "different", "crashed", "hung", "invalid-output")


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


def _digest(data: object) -> str:
    return hashlib.sha256(memoryview(data).cast("B")).hexdigest()  # type: ignore[arg-type]


def _as_answer(request: Request) -> Answer:
    return {
        "result": "accepted",
        "metadata": request.metadata,
        "tensors": {
            name: [dtype, list(shape), _digest(data)]
            for name, (dtype, shape, data) in request.tensors.items()
        },
    }


def judge(path: Path, request: Request) -> tuple[str, Answer | None]:
    """What the reference reads from a written file: (the writer's fault or "", it)."""
    try:
        with stspec.read(path, mapped=False) as st:
            truth: Answer = {
                "result": "accepted",
                "metadata": st.metadata,
                "tensors": {
                    name: [info.dtype, list(info.shape), _digest(st.tensor_bytes(name))]
                    for name, info in st.tensors.items()
                },
            }
    except stspec.SafetensorsError as exc:
        return f"wrote an invalid file: {exc}", None
    differed = compare(_as_answer(request), truth, {"metadata_presence": True})
    if differed:
        return f"wrote something other than the request: {differed}", truth
    return "", truth


def _few(names: Sequence[str]) -> str:
    shown = ", ".join(repr(n) for n in sorted(names)[:3])
    return shown + (f" and {len(names) - 3} more" if len(names) > 3 else "")


def compare(expected: Answer, got: Answer, caps: dict[str, Any]) -> str:
    """How ``got`` differs from ``expected`` ("" if it does not), as ``caps`` allow.

    Order does not count (a reader may list tensors in any order); bytes are
    compared where the reader gave them, metadata where it reads metadata,
    and an absent ``__metadata__`` equals ``{}`` for a reader that cannot
    tell them apart (``metadata_presence``).
    """
    want, have = expected.get("tensors") or {}, got.get("tensors") or {}
    found = []
    if missing := set(want) - set(have):
        found.append(f"tensors missing: {_few(list(missing))}")
    if extra := set(have) - set(want):
        found.append(f"tensors not in the file: {_few(list(extra))}")
    for name in sorted(set(want) & set(have)):
        dtype, shape, digest = want[name]
        other_dtype, other_shape, other_digest = have[name]
        if dtype != other_dtype:
            found.append(f"{name!r} dtype {other_dtype!r}, not {dtype!r}")
        if list(shape) != (
            list(other_shape) if isinstance(other_shape, list) else other_shape
        ):
            found.append(f"{name!r} shape {other_shape}, not {list(shape)}")
        gave_bytes = isinstance(other_digest, str) and not other_digest.startswith(
            "windows:"
        )
        if gave_bytes and digest != other_digest:
            found.append(f"{name!r} bytes differ")
    if caps.get("metadata", True):
        meta, other = expected.get("metadata"), got.get("metadata")
        if not caps.get("metadata_presence", False):
            meta, other = meta or {}, other or {}
        if meta != other:
            found.append(
                f"metadata {json.dumps(other)[:120]}, not {json.dumps(meta)[:120]}"
            )
    return "; ".join(found[:4]) + ("; ..." if len(found) > 4 else "")


def _cell(
    answer: Answer | None, truth: Answer, request: Request, caps: dict[str, Any]
) -> dict[str, str]:
    if answer is None:
        return {"verdict": "crashed", "detail": "no answer"}
    result = answer.get("result")
    if result == "accepted":
        differed = compare(truth, answer, caps)
        return (
            {"verdict": "different", "detail": differed}
            if differed
            else {"verdict": "same", "detail": ""}
        )
    if result == "rejected":
        reason = scrub(str(answer.get("error") or ""))[:300]
        declared = caps.get("read_dtypes")
        if declared is not None and not request.dtypes <= set(declared):
            outside = ", ".join(sorted(request.dtypes - set(declared)))
            return {
                "verdict": "refused-declared",
                "detail": f"declares no {outside}: {reason}",
            }
        return {"verdict": "refused", "detail": reason}
    verdict = result if result in {"hung", "invalid-output"} else "crashed"
    return {"verdict": verdict, "detail": scrub(str(answer.get("error") or ""))[:300]}


def run_grid(
    writers: Sequence[Writer], readers: Sequence[Reader], out: Path
) -> dict[str, Any]:
    """Write, judge and read everything; the grid (also saved as ``out``/grid.json)."""
    wanted = requests()
    by_name_ = {r.name: r for r in wanted}
    files = out / "files"
    shutil.rmtree(files, ignore_errors=True)
    written: dict[str, dict[str, dict[str, str]]] = {}
    truths: dict[tuple[str, str], Answer] = {}
    to_read: list[Path] = []
    for writer in writers:
        folder = files / writer.name
        folder.mkdir(parents=True)
        outcomes = writer.write(wanted, folder)
        written[writer.name] = {}
        for request in wanted:
            outcome = dict(
                outcomes.get(request.name)
                or {"result": "crashed", "reason": "no answer"}
            )
            # what a writer raised may name the file: kept is its name
            outcome["reason"] = scrub(outcome.get("reason", ""))
            path = folder / f"{request.name}.safetensors"
            if outcome["result"] == "written" and path.is_file():
                fault, truth = judge(path, request)
                outcome["fault"] = fault
                if truth is not None:
                    truths[(writer.name, request.name)] = truth
                to_read.append(path)
            else:
                path.unlink(missing_ok=True)
                if "undeclared" not in outcome:
                    declared = writer.write_dtypes
                    outcome["undeclared"] = str(
                        declared is not None and not request.dtypes <= declared
                    ).lower()
            written[writer.name][request.name] = outcome
    cells: dict[str, dict[str, dict[str, dict[str, str]]]] = {}
    for reader in readers:
        answers = _read_all(reader, to_read)
        for path in to_read:
            writer_name, request_name = path.parent.name, path.stem
            truth = truths.get((writer_name, request_name))
            answer = answers.get(f"{writer_name}/{request_name}")
            if truth is None:  # the writer's fault: recorded, never the reader's
                cell = {
                    "verdict": "writer-fault",
                    "detail": str((answer or {}).get("result")),
                }
            else:
                cell = _cell(answer, truth, by_name_[request_name], reader.caps)
            cells.setdefault(writer_name, {}).setdefault(reader.name, {})[
                request_name
            ] = cell
    grid = {
        "requests": [r.name for r in wanted],
        "writers": written,
        "readers": [r.name for r in readers],
        "cells": cells,
    }
    (out / "grid.json").write_text(
        json.dumps(grid, indent=1, sort_keys=True) + "\n", "utf-8"
    )
    (out / "grid.md").write_text(markdown(grid), "utf-8")
    return grid


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


def summary(cells: dict[str, dict[str, str]]) -> dict[str, int]:
    """Counts of each verdict in one writer x reader cell."""
    counts: dict[str, int] = {}
    for cell in cells.values():
        counts[cell["verdict"]] = counts.get(cell["verdict"], 0) + 1
    return counts


def _cell_text(counts: dict[str, int]) -> str:
    same = counts.get("same", 0)
    failed = sum(counts.get(v, 0) for v in FAILURES)
    text = f"{same}/{same + failed}"
    if failed:
        text = f"**{text}**"
    if counts.get("refused-declared"):
        text += f" +{counts['refused-declared']} undeclared"
    return text


def markdown(grid: dict[str, Any]) -> str:
    """``grid.md``: writers down, readers across, then every failed cell."""
    readers = grid["readers"]
    out = [
        "# Interop grid: files each writer wrote, read by each reader",
        "",
        (
            "Generated by `python -m matrix.grid` (`grid.json` has every cell; the "
            "files are under `files/WRITER/`). A cell is *same/tried*: the files the "
            "reader loaded exactly as the reference reads them, of those it was asked "
            "to read within its declarations (**bold**: some failed); *+N "
            "undeclared*: refusals of dtypes it does not declare, not failures."
        ),
        "",
        # what follows is data (libraries' own messages), not prose
        "<!-- generated: interop-grid -->",
        "",
        "## What each writer wrote",
        "",
        "| writer | valid | refused, undeclared dtype | refused | writer's fault |",
        "|---|---|---|---|---|",
    ]
    for writer, outcomes in grid["writers"].items():
        valid = sum(
            o["result"] == "written" and not o.get("fault") for o in outcomes.values()
        )
        faults = [f"{r}: {o['fault']}" for r, o in outcomes.items() if o.get("fault")]
        undeclared = sum(
            o["result"] != "written" and o.get("undeclared") == "true"
            for o in outcomes.values()
        )
        refused = sum(
            o["result"] != "written" and o.get("undeclared") != "true"
            for o in outcomes.values()
        )
        out.append(
            f"| {writer} | {valid} | {undeclared} | {refused} | "
            f"{'; '.join(faults)[:400] or ''} |"
        )
    out += [
        "",
        "## Writers x readers",
        "",
        "| writer | " + " | ".join(readers) + " |",
        "|---|" + "---|" * len(readers),
    ]
    for writer in grid["writers"]:
        row = grid["cells"].get(writer, {})
        out.append(
            f"| {writer} | "
            + " | ".join(_cell_text(summary(row.get(r, {}))) for r in readers)
            + " |"
        )
    out += [
        "",
        "## Every cell that failed",
        "",
        "| writer | reader | request | verdict | detail |",
        "|---|---|---|---|---|",
    ]
    for writer, row in grid["cells"].items():
        for reader, cells in row.items():
            for request, cell in cells.items():
                if cell["verdict"] in FAILURES:
                    detail = cell["detail"].replace("|", "\\|").replace("\n", " ")[:200]
                    verdict = cell["verdict"]
                    out.append(
                        f"| {writer} | {reader} | {request} | {verdict} | {detail} |"
                    )
    out += ["", "<!-- end: interop-grid -->"]
    return "\n".join(out) + "\n"


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
                tail = done.stderr.strip().splitlines()[-1:] or [""]
                outcomes[todo[0].name] = {
                    "result": "crashed",
                    "reason": f"exit {done.returncode}: {tail[0]}"[:300],
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
                tail = done.stderr.strip().splitlines()[-1:] or [""]
                outcomes[request.name] = {
                    "result": "crashed",
                    "reason": f"exit {done.returncode}: {tail[0]}"[:300],
                }
            if outcomes[request.name]["result"] != "written":
                path.unlink(missing_ok=True)
        return outcomes

    return write


def _caps(results: Path, name: str) -> dict[str, Any] | None:
    path = results / f"{name}.json"
    if not path.is_file():
        return None
    data = json.loads(path.read_text("utf-8"))
    if data.get("setup_error"):
        return None
    described = (data.get("implementation") or {}).get("described") or {}
    return dict(described.get("capabilities") or {})


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

    caps = {i.name: c for i in IMPLS if (c := _caps(args.results, i.name)) is not None}
    try:
        writer_rows = [by_name(n) for n in args.writer] or [
            i for i in IMPLS if caps.get(i.name, {}).get("write")
        ]
        reader_rows = [by_name(n) for n in args.reader] or [
            i for i in IMPLS if i.name in caps
        ]
    except ValueError as exc:
        parser.error(str(exc))
    writers = [real_writer(i, caps.get(i.name, {})) for i in writer_rows]
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
