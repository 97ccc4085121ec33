"""The ``check`` command: gather inputs, check files, check models, report."""

from __future__ import annotations

import contextlib
import os
import sys

from stspec._rules import MAX_HEADER_SIZE
from stspec._version import SPEC_VERSION, __version__
from stspec.audit.check import FileResult, Progress, Task, check_files
from stspec.audit.inputs import Target, gather
from stspec.audit.shard_checks import SHARD_CHECKS_BY_ID
from stspec.audit.summary import Summary, combine
from stspec.audit.terminal import complain, count, out, out_json, violation_line

# No typing at run time (start-up cost, see _record.py); mypy reads this as True.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterable
    from typing import Final, NamedTuple

    from stspec.audit.inputs import Refused
    from stspec.audit.shards import Finding, Holdings, Index
else:
    from stspec._record import NamedTuple

__all__ = ["Options", "audit"]

VALID: Final = 0
INVALID: Final = 1  # invalid or tolerated: the strict reference rejects both
TROUBLE: Final = 2  # usage or I/O error


class Options(NamedTuple):
    """What the command line asked for."""

    every: bool = False
    as_json: bool = False
    quiet: bool = False
    summary: bool = False
    sarif: str | None = None
    jobs: int | None = None  # None: chosen by the number of files
    wait: float = 60.0


class _Model:
    """A sharded checkpoint: its index file and what checking it found."""

    __slots__ = (
        "findings",
        "index",
        "invalid_shards",
        "omitted",
        "shard_paths",
        "summary",
        "target",
    )

    def __init__(
        self, target: Target, index: Index | None, findings: list[Finding]
    ) -> None:
        self.target = target
        self.index = index
        self.findings = findings
        self.shard_paths: dict[str, str] = {}  # name -> path
        self.omitted: dict[str, int] = {}
        self.invalid_shards: list[str] = []
        self.summary: Summary | None = None

    def count(self, severity: str) -> int:
        """How many findings of ``severity`` there were, listed or not."""
        listed = sum(finding.severity == severity for finding in self.findings)
        return listed + sum(
            more
            for rule, more in self.omitted.items()
            if SHARD_CHECKS_BY_ID[rule].severity == severity
        )

    @property
    def valid(self) -> bool:
        """No error finding and no invalid shard (warnings do not count)."""
        return not self.count("error") and not self.invalid_shards


def audit(paths: list[str], options: Options) -> int:
    """Run ``stspec check`` on ``paths`` and return the exit status."""
    with contextlib.ExitStack() as scratch:
        inputs = gather(paths, wait=options.wait, scratch=scratch)
        status = VALID
        for refused in inputs.refused:
            _complain(refused.shown, refused.reason)
            status = TROUBLE
        models = [_open_model(target) for target in inputs.targets if target.index]
        tasks = _tasks(inputs.targets, models, every=options.every or _full(options))
        meter = Progress(sys.stderr, len(tasks))
        results: dict[str, FileResult] = {}
        for task, result in zip(
            tasks, check_files(tasks, jobs=options.jobs, meter=meter), strict=True
        ):
            results[task.path] = result
            status = max(status, _outcome(result))
            quiet = options.quiet and result.verdict == "valid"
            if not options.as_json and not quiet:
                meter.clear()  # the progress line stays unless a result replaces it
                _print_file(result, options)
        for model in models:
            _check_model(model, results)
            status = max(status, VALID if model.valid else INVALID)
            if not options.as_json:
                _print_model(model, options)
        if not options.as_json and not options.quiet:
            for folder, names in inputs.skipped.items():
                shown = ", ".join(names[:5]) + (", ..." if len(names) > 5 else "")
                out(
                    f"{folder}: {count(len(names), 'other file')} not checked ({shown})"
                )
        ordered = [results[task.path] for task in tasks]
        if options.as_json:
            out_json(_document(ordered, models, inputs.skipped, inputs.refused))
        if options.sarif is not None:
            status = max(
                status, _write_sarif(options.sarif, ordered, models, inputs.refused)
            )
    return status


def _full(options: Options) -> bool:
    # JSON and SARIF list every violation.
    return options.as_json or options.sarif is not None


def _open_model(target: Target) -> _Model:
    # Imported here, as for the other uses of _shards: most runs check no
    # sharded model, and the command starts faster without it.
    from stspec.audit.shards import Finding, parse_index  # noqa: PLC0415

    def unusable(why: str) -> _Model:
        return _Model(
            target, None, [Finding("SHARD-INDEX-JSON", target.shown, None, None, why)]
        )

    try:
        with open(target.path, "rb") as file:  # noqa: PTH123 - a plain path string
            # An index of a million tensors is about 100 MB; a file beyond the
            # header limit is not read into memory at all.
            raw = file.read(MAX_HEADER_SIZE + 1)
    except OSError as exc:
        return unusable(f"cannot read the index: {exc.strerror or exc}")
    if len(raw) > MAX_HEADER_SIZE:
        return unusable(
            f"the index is longer than {MAX_HEADER_SIZE:,} bytes, the most "
            "this checker reads"
        )
    index, findings = parse_index(raw, target.shown)
    model = _Model(target, index, findings)
    if index is not None:
        folder = os.path.dirname(target.path)  # noqa: PTH120 - a plain path string
        for shard in index.openable:
            path = os.path.join(folder, shard)  # noqa: PTH118 - a plain path string
            if os.path.isfile(path):  # noqa: PTH113 - a plain path string
                model.shard_paths[shard] = path
    return model


def _tasks(targets: list[Target], models: list[_Model], *, every: bool) -> list[Task]:
    shards = {
        os.path.normpath(path)
        for model in models
        for path in model.shard_paths.values()
    }
    tasks = []
    seen = set()
    for target in targets:
        if not target.index:
            key = os.path.normpath(target.path)
            seen.add(key)
            tasks.append(Task(target.path, target.shown, every, holdings=key in shards))
    # Shards an index names but the arguments did not: checked all the same.
    for model in models:
        for path in model.shard_paths.values():
            key = os.path.normpath(path)
            if key not in seen:
                seen.add(key)
                tasks.append(Task(path, path, every, holdings=True))
    return tasks


def _outcome(result: FileResult) -> int:
    if result.reason is not None:
        return TROUBLE
    return VALID if result.verdict == "valid" else INVALID


def _check_model(model: _Model, results: dict[str, FileResult]) -> None:
    if model.index is None:
        return
    import json  # noqa: PLC0415 - see _open_model

    from stspec.audit.shards import check_model  # noqa: PLC0415

    holdings: dict[str, Holdings | None] = {}
    summaries = []
    for shard, path in model.shard_paths.items():
        result = results[path]
        holdings[shard] = result.holdings
        if result.summary is None:
            model.invalid_shards.append(shard)
        else:
            summaries.append(result.summary)
    findings, model.omitted = check_model(model.target.shown, model.index, holdings)
    model.findings += findings
    metadata = model.index.metadata
    model.summary = combine(
        summaries,
        None
        if metadata is None
        else {
            key: value if isinstance(value, str) else json.dumps(value)
            for key, value in metadata.items()
        },
    )


# Text --------------------------------------------------------------------


def _print_file(result: FileResult, options: Options) -> None:
    """Print one file's lines (not called for a valid file under --quiet)."""
    if result.reason is not None:
        _complain(result.shown, result.reason)
        return
    if result.summary is not None:
        summary = result.summary
        tensors = count(summary.tensors, "tensor")
        size = count(summary.file_bytes, "byte")
        out(f"{result.shown}: valid ({tensors}, {size})")
        if options.summary:
            out(*summary.lines())
        return
    if result.looks_like is not None:
        error = result.errors[0]
        looks_like = result.looks_like.description
        out(
            f"{result.shown}: {error.rule} at byte {error.offset}: not a safetensors "
            f"file, it looks like {looks_like}"
        )
        return
    out(*(violation_line(result.shown, error) for error in result.errors))
    out(
        *(
            f"{result.shown}: {rule}: {more} more not shown"
            for rule, more in result.omitted.items()
        )
    )


def _print_model(model: _Model, options: Options) -> None:
    shown = model.target.shown
    for finding in model.findings:
        where = "" if finding.offset is None else f" at byte {finding.offset}"
        out(f"{finding.file}: {finding.rule}{where}: {finding.msg}")
    for rule, more in model.omitted.items():
        out(f"{shown}: {rule}: {more} more not shown")
    if model.index is None:
        out(f"{shown}: model invalid: the index cannot be used")
        return
    summary = model.summary
    assert summary is not None  # noqa: S101 - set whenever the index is usable
    shards = count(len(model.index.shards), "shard")
    totals = (
        f"{shards}, {count(summary.tensors, 'tensor')}, "
        f"{summary.parameters:,} parameters"
    )
    errors, warnings = model.count("error"), model.count("warning")
    if model.valid and not warnings:
        line = None if options.quiet else f"{shown}: model valid ({totals})"
    elif model.valid:
        line = f"{shown}: model valid ({totals}; {count(warnings, 'warning')})"
    else:
        reasons = []
        if errors or warnings:
            found = [count(errors, "error")] if errors else []
            found += [count(warnings, "warning")] if warnings else []
            reasons.append(", ".join(found))
        if model.invalid_shards:
            names = ", ".join(model.invalid_shards)
            reasons.append(
                f"{count(len(model.invalid_shards), 'invalid shard')}: {names}"
            )
        line = f"{shown}: model invalid ({'; '.join(reasons)})"
    if line is not None:
        out(line)
        if options.summary:
            out(*summary.lines())


def _complain(file: str, reason: str) -> None:
    complain(f"cannot read {file}: {reason}")


# JSON and SARIF ------------------------------------------------------------


def _document(
    results: list[FileResult],
    models: list[_Model],
    skipped: dict[str, list[str]],
    refused: Iterable[Refused],
) -> dict[str, object]:
    files = [_file_report(result) for result in results]
    files += [
        {"file": item.shown, "valid": False, "error": item.reason} for item in refused
    ]
    return {
        "stspec": __version__,
        "spec": SPEC_VERSION,
        "files": files,
        "models": [_model_report(model) for model in models],
        "skipped": skipped,
    }


def _file_report(result: FileResult) -> dict[str, object]:
    if result.reason is not None:
        return {"file": result.shown, "valid": False, "error": result.reason}
    report: dict[str, object] = {
        "file": result.shown,
        "valid": result.verdict == "valid",
        "verdict": result.verdict,
        "violations": [error.as_dict() for error in result.errors],
        "omitted": result.omitted,
    }
    if result.looks_like is not None:
        report["looks_like"] = {
            "format": result.looks_like.key,
            "description": result.looks_like.description,
        }
    report["summary"] = None if result.summary is None else result.summary.as_dict()
    return report


def _model_report(model: _Model) -> dict[str, object]:
    return {
        "index": model.target.shown,
        "valid": model.valid,
        "errors": model.count("error"),
        "warnings": model.count("warning"),
        "shards": [] if model.index is None else model.index.shards,
        "invalid_shards": model.invalid_shards,
        "findings": [finding.as_dict() for finding in model.findings],
        "omitted": model.omitted,
        "summary": None if model.summary is None else model.summary.as_dict(),
    }


def _write_sarif(
    path: str,
    results: list[FileResult],
    models: list[_Model],
    refused: Iterable[Refused],
) -> int:
    import json  # noqa: PLC0415 - start-up time, as for _sarif

    from stspec.audit.sarif import sarif_log  # noqa: PLC0415 - start-up time

    log = sarif_log(
        results,
        [finding for model in models for finding in model.findings],
        trouble=[(item.shown, item.reason) for item in refused],
    )
    try:
        with open(path, "w", encoding="utf-8") as file:  # noqa: PTH123 - a plain path string
            json.dump(log, file, indent=2)
            file.write("\n")
    except OSError as exc:
        complain(f"cannot write {path}: {exc.strerror or exc}")
        return TROUBLE
    return VALID
