"""The ``check`` command: gather inputs, check files, check models, report."""

from __future__ import annotations

import contextlib
import os
import sys

from stspec import SPEC_VERSION, __version__
from stspec.audit import INVALID, TROUBLE, VALID
from stspec.audit.check import FileResult, Progress, Task, check_files
from stspec.audit.inputs import Target, entry, gather
from stspec.audit.opening import NotRegularFileError, regular_file
from stspec.audit.shard_checks import SHARD_CHECKS_BY_ID
from stspec.audit.summary import Summary, combine
from stspec.audit.terminal import (
    complain,
    count,
    file_name,
    out,
    out_json,
    violation_line,
)
from stspec.rules import MAX_HEADER_SIZE

# No typing at run time (start-up cost, see stspec/record.py); mypy reads this as True.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable, Iterable
    from typing import Final, NamedTuple

    from stspec.audit.inputs import Inputs, Refused
    from stspec.audit.integrity import Digest
    from stspec.audit.remote import Fetched, Session
    from stspec.audit.shards import Finding, Holdings, Index
    from stspec.audit.sniff import Format

else:
    from stspec.record import NamedTuple

__all__ = ["Options", "audit"]

_TOLERATED: Final = (
    "tolerated (only MAY rules are broken: a lenient reader may accept it, the "
    "strict reference rejects it)"
)
# Bytes of an existing --sarif file looked at to tell a SARIF log.
_SARIF_HEAD: Final = 4096


class Options(NamedTuple):
    """What the command line asked for."""

    every: bool = False
    as_json: bool = False
    quiet: bool = False
    summary: bool = False
    sarif: str | None = None
    jobs: int | None = None  # None: chosen by the number of files
    wait: float = 60.0
    whole_models: bool = False  # a file brings the indexes in its folder
    fail_unchecked_weights: bool = False
    deadline: float = 600.0  # seconds for everything read over the network
    max_transfer: int = 1 << 30  # bytes read over the network, per run
    sha256: tuple[str, ...] = ()  # FILE=HEX: the digest a file must have
    manifests: tuple[str, ...] = ()  # sha256sum files of digests
    hash: bool = False  # report every file's digest


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
        self.shard_paths: dict[str, Target] = {}  # name -> the file
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
        session = _session(paths, options, scratch)
        inputs = gather(
            paths,
            wait=options.wait,
            scratch=scratch,
            whole_models=options.whole_models,
            remote=None if session is None else _remote(session, scratch),
        )
        # shown name (the URL) -> what was read of it
        remote = {t.shown: t.remote for t in inputs.targets if t.remote is not None}
        # Judged before any file is checked: a log that cannot be written, or
        # would destroy a model, must not cost a whole run first.
        if not _sarif_writable(options.sarif, paths, inputs.targets):
            return TROUBLE
        expected = _expected(options)
        if expected is None:
            return TROUBLE
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
            if not options.as_json:
                _show_file(result, options, remote.get(result.shown), meter)
        for model in models:
            _check_model(model, results)
            status = max(status, VALID if model.valid else INVALID)
            if not options.as_json:
                _print_model(model, options)
        ordered = [results[task.path] for task in tasks]
        inputs.skipped = _unchecked(inputs.skipped, tasks)
        extra = _Extra(remote, {})
        status = max(status, _integrity(inputs.targets, expected, extra, options))
        if session is not None:
            extra.document["transferred"] = session.transferred
            if not options.as_json and not options.quiet:
                out(_transfer_line(remote, session.transferred))
        return max(status, _finish(ordered, models, inputs, options, extra))


class _Extra(NamedTuple):
    """What remote files and integrity add to the report."""

    remote: dict[str, Fetched]  # shown name (the URL) -> what was read of it
    document: dict[str, object]  # keys added to the JSON document


def _integrity(
    targets: list[Target], expected: dict[str, str], extra: _Extra, options: Options
) -> int:
    """Compare and report digests (--sha256, --manifest, --hash)."""
    digests = _digests(targets, expected, extra.remote, every=options.hash)
    status = VALID
    for found in digests:
        if not options.as_json:
            _print_digest(found)
        status = max(status, _digest_outcome(found))
    if digests:
        extra.document["integrity"] = [found.as_dict() for found in digests]
    return status


def _session(
    paths: list[str], options: Options, scratch: contextlib.ExitStack
) -> Session | None:
    """Make what reads URLs and hf:// arguments, if any is given (else None)."""
    if not any(
        path.lower().startswith(("https://", "http://", "hf://")) for path in paths
    ):
        return None
    from stspec.audit.remote import Session  # noqa: PLC0415 - remote runs only

    return scratch.enter_context(
        Session(
            wait=options.wait,
            deadline=options.deadline,
            max_bytes=options.max_transfer,
            jobs=options.jobs or 8,
        )
    )


def _remote(
    session: Session, scratch: contextlib.ExitStack
) -> Callable[[str], tuple[list[Target], list[str]]]:
    from stspec.audit.standins import remote_targets  # noqa: PLC0415 - remote only

    def resolve(argument: str) -> tuple[list[Target], list[str]]:
        return remote_targets(argument, session=session, scratch=scratch)

    return resolve


def _expected(options: Options) -> dict[str, str] | None:
    """File -> the SHA-256 it must have; None after saying why one is unusable."""
    if not options.sha256 and not options.manifests:
        return {}
    from stspec.audit.integrity import (  # noqa: PLC0415 - integrity runs only
        IntegrityError,
        pinned,
        read_manifest,
    )

    expected: dict[str, str] = {}
    try:
        for manifest in options.manifests:
            expected.update(read_manifest(manifest))
        for argument in options.sha256:
            file, hexdigest = pinned(argument)
            expected[file] = hexdigest
    except IntegrityError as exc:
        complain(str(exc))
        return None
    return expected


def _digests(
    targets: list[Target],
    expected: dict[str, str],
    remote: dict[str, Fetched],
    *,
    every: bool,
) -> list[Digest]:
    """Each file's SHA-256 against the one expected; every file's under --hash."""
    if not expected and not every:
        return []
    from stspec.audit.integrity import Digest, digest  # noqa: PLC0415

    found: list[Digest] = []
    done = set()
    for file, hexdigest in expected.items():
        if file in remote or file.lower().startswith(("https://", "http://", "hf://")):
            found.append(_remote_digest(file, remote.get(file), hexdigest))
        else:
            found.append(digest(file, file, hexdigest))
        done.add(os.path.normpath(file))
    for target in targets if every else ():
        if target.refused is not None or os.path.normpath(target.shown) in done:
            continue
        if target.remote is not None:
            found.append(_remote_digest(target.shown, target.remote, None))
        elif target.path != target.shown and not target.index:
            # A pipe, stdin, or a remote file's stand-in: only its header is
            # here (a remote index is copied whole, and hashed below).
            found.append(
                Digest(target.shown, None, error="a stream: its bytes were not kept")
            )
        else:
            found.append(digest(target.path, target.shown))
    return found


def _remote_digest(file: str, fetched: Fetched | None, wanted: str | None) -> Digest:
    from stspec.audit.integrity import Digest  # noqa: PLC0415

    if fetched is None:
        return Digest(file, None, wanted, error="not among the remote files checked")
    if fetched.sha256 is None:
        return Digest(
            file,
            None,
            wanted,
            error="the server records no SHA-256 for it (the Hub does for LFS "
            "files), and its bytes are not downloaded",
        )
    return Digest(file, fetched.sha256, wanted, source="hub")


def _print_digest(found: Digest) -> None:
    shown = file_name(found.file)
    claim = (
        " (the Hub's LFS record, not computed here)" if found.source == "hub" else ""
    )
    if found.sha256 is None:
        out(f"{shown}: integrity not checked: {found.error}")
    elif found.matches is None:
        out(f"{shown}: sha256 {found.sha256}{claim}")
    elif found.matches:
        out(f"{shown}: integrity: sha256 matches{claim}")
    else:
        out(
            f"{shown}: integrity: sha256 mismatch: expected {found.expected}, "
            f"got {found.sha256}{claim}"
        )


def _digest_outcome(found: Digest) -> int:
    if found.sha256 is None:
        return TROUBLE
    return INVALID if found.matches is False else VALID


def _remote_line(fetched: Fetched) -> str:
    shown = file_name(fetched.url)
    line = (
        f"{shown}: header only, tensor bytes not read ({fetched.transferred} of "
        f"{fetched.length} bytes transferred)"
    )
    if fetched.sha256 is not None:
        line += f"; sha256 {fetched.sha256} (the Hub's LFS record)"
    return line


def _transfer_line(remote: dict[str, Fetched], transferred: int) -> str:
    line = f"transferred: {transferred:,} bytes (file lists and indexes included)"
    total = sum(fetched.length for fetched in remote.values())
    if total:
        files = count(len(remote), "remote file")
        line += f", {transferred / total:.3%} of the {total:,} bytes of {files}"
    return line


def _remote_report(fetched: Fetched) -> dict[str, object]:
    return {
        "url": fetched.url,
        "length": fetched.length,
        "transferred": fetched.transferred,
        "tensor_bytes_read": False,
        "lfs_sha256": fetched.sha256,
    }


def _unchecked(
    skipped: dict[str, list[str]], tasks: list[Task]
) -> dict[str, list[str]]:
    """Drop from what folders held besides the files checked after all.

    An index may name a shard without the .safetensors suffix (``evil.bin``):
    it is checked as a shard, and is no "other file not checked".
    """
    checked = {os.path.normpath(task.path) for task in tasks}
    kept = {}
    for folder, names in skipped.items():
        left = [
            name
            for name in names
            if os.path.normpath(os.path.join(folder, name)) not in checked  # noqa: PTH118
        ]
        if left:
            kept[folder] = left
    return kept


def _finish(
    results: list[FileResult],
    models: list[_Model],
    inputs: Inputs,
    options: Options,
    extra: _Extra,
) -> int:
    """Report what folders held besides, then the JSON and SARIF forms."""
    status = VALID
    weights = _weights(inputs.skipped)
    if weights and options.fail_unchecked_weights:
        status = INVALID
    if options.as_json:
        document = _document(results, models, inputs.skipped, inputs.refused)
        files = document["files"]
        assert isinstance(files, list)  # noqa: S101 - _document makes a list
        for result, report in zip(results, files, strict=False):
            if result.shown in extra.remote:
                report["remote"] = _remote_report(extra.remote[result.shown])
        document.update(extra.document)
        document["unchecked_weights"] = {
            folder: [{"file": name, "format": found.key} for name, found in files]
            for folder, files in weights.items()
        }
        out_json(document)
    else:
        if not options.quiet:
            _print_skipped(inputs.skipped)
        _print_weights(weights)
    if options.sarif is not None:
        status = max(
            status,
            _write_sarif(options.sarif, results, models, inputs.refused, weights),
        )
    return status


def _weights(skipped: dict[str, list[str]]) -> dict[str, list[tuple[str, Format]]]:
    """Find the files not checked that look like model weights, per folder.

    Each is judged from its first bytes, opened as every input is (never
    blocking); a file that cannot be read is left out: it was not checked
    and is not claimed to be anything.
    """
    if not skipped:
        return {}
    from stspec.audit.sniff import (  # noqa: PLC0415 - see _open_model
        SNIFF_SIZE,
        WEIGHT_FORMATS,
        sniff,
    )

    weights: dict[str, list[tuple[str, Format]]] = {}
    for folder, names in skipped.items():
        if folder.lower().startswith(("https://", "http://", "hf://")):
            continue  # a repository's files: only their names are known
        for name in names:
            path = os.path.join(folder, name)  # noqa: PTH118 - a plain path string
            try:
                with regular_file(path) as fd:
                    found = sniff(os.pread(fd, SNIFF_SIZE, 0))
            except OSError:
                continue
            if found is not None and found.key in WEIGHT_FORMATS:
                weights.setdefault(folder, []).append((name, found))
    return weights


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
        with regular_file(target.path) as fd:
            # An index of a million tensors is about 100 MB; a file beyond the
            # header limit is not read into memory at all.
            raw = _read_head(fd, MAX_HEADER_SIZE + 1)
    except OSError as exc:
        return unusable(f"cannot read the index: {exc.strerror or exc}")
    if len(raw) > MAX_HEADER_SIZE:
        return unusable(
            f"the index is longer than {MAX_HEADER_SIZE:,} bytes, the most "
            "this checker reads"
        )
    index, findings, omitted = parse_index(raw, target.shown)
    model = _Model(target, index, findings)
    model.omitted = omitted
    if index is not None:
        folder = os.path.dirname(target.path)  # noqa: PTH120 - a plain path string
        for shard in index.openable:
            path = os.path.join(folder, shard)  # noqa: PTH118 - a plain path string
            if os.path.exists(path):  # noqa: PTH110 - a plain path string
                # Judged as a folder's files are: a FIFO or a device named
                # by the index is refused, never opened.
                model.shard_paths[shard] = entry(path)
    return model


def _read_head(fd: int, size: int) -> bytes:
    """Read up to ``size`` bytes from the start of ``fd`` (fewer at its end)."""
    parts = []
    got = 0
    # One read returns at most about 2 GiB, and less if a signal interrupts it.
    while got < size and (part := os.pread(fd, size - got, got)):
        parts.append(part)
        got += len(part)
    return b"".join(parts)


def _tasks(targets: list[Target], models: list[_Model], *, every: bool) -> list[Task]:
    shards = {
        os.path.normpath(shard.path)
        for model in models
        for shard in model.shard_paths.values()
    }
    tasks = []
    seen = set()
    for target in targets:
        if not target.index:
            key = os.path.normpath(target.path)
            seen.add(key)
            tasks.append(
                Task(
                    target.path,
                    target.shown,
                    every,
                    holdings=key in shards,
                    refused=target.refused,
                )
            )
    # Shards an index names but the arguments did not: checked all the same.
    for model in models:
        for shard in model.shard_paths.values():
            key = os.path.normpath(shard.path)
            if key not in seen:
                seen.add(key)
                tasks.append(
                    Task(shard.path, shard.path, every, True, refused=shard.refused)
                )
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
    for shard, target in model.shard_paths.items():
        result = results[target.path]
        holdings[shard] = result.holdings
        if result.summary is None:
            model.invalid_shards.append(shard)
        else:
            summaries.append(result.summary)
    findings, omitted = check_model(model.target.shown, model.index, holdings)
    model.findings += findings
    model.omitted = omitted
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


def _show_file(
    result: FileResult, options: Options, fetched: Fetched | None, meter: Progress
) -> None:
    """Print a file's lines, unless it is valid and --quiet is given."""
    if options.quiet and result.verdict == "valid":
        return
    meter.clear()  # the progress line stays unless a result replaces it
    _print_file(result, options)
    if fetched is not None:
        out(_remote_line(fetched))


def _print_file(result: FileResult, options: Options) -> None:
    """Print one file's lines (not called for a valid file under --quiet)."""
    if result.reason is not None:
        _complain(result.shown, result.reason)
        return
    shown = file_name(result.shown)
    if result.summary is not None:
        summary = result.summary
        tensors = count(summary.tensors, "tensor")
        size = count(summary.file_bytes, "byte")
        out(f"{shown}: valid ({tensors}, {size})")
        if options.summary:
            out(*summary.lines())
        return
    if result.looks_like is not None:
        error = result.errors[0]
        looks_like = result.looks_like.description
        out(
            f"{shown}: {error.rule} at byte {error.offset}: not a safetensors "
            f"file, it looks like {looks_like}"
        )
        return
    out(*(violation_line(result.shown, error) for error in result.errors))
    out(
        *(
            f"{shown}: {rule}: {more} more not shown"
            for rule, more in result.omitted.items()
        )
    )
    if result.verdict == "tolerated":
        out(f"{shown}: {_TOLERATED}")


def _print_model(model: _Model, options: Options) -> None:
    shown = file_name(model.target.shown)
    for finding in model.findings:
        where = "" if finding.offset is None else f" at byte {finding.offset}"
        out(f"{file_name(finding.file)}: {finding.rule}{where}: {finding.msg}")
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


def _print_skipped(skipped: dict[str, list[str]]) -> None:
    for folder, names in skipped.items():
        shown = ", ".join(names[:5]) + (", ..." if len(names) > 5 else "")
        files = count(len(names), "other file")
        out(f"{file_name(folder)}: {files} not checked ({shown})")


def _print_weights(weights: dict[str, list[tuple[str, Format]]]) -> None:
    # Printed also under --quiet: an exit 0 must not hide a pickle beside
    # the model (it runs code when loaded, and nothing here checked it).
    for folder, files in weights.items():
        shown = ", ".join(
            f"{file_name(name)} ({found.key})" for name, found in files[:5]
        ) + (", ..." if len(files) > 5 else "")
        what = count(len(files), "file")
        verb = "looks" if len(files) == 1 else "look"
        out(
            f"{file_name(folder)}: not checked, {what} that {verb} like model "
            f"weights: {shown}"
        )


def _complain(file: str, reason: str) -> None:
    complain(f"cannot read {file_name(file)}: {reason}")


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
    weights: dict[str, list[tuple[str, Format]]],
) -> int:
    import json  # noqa: PLC0415 - start-up time, as for _sarif

    from stspec.audit.sarif import sarif_log  # noqa: PLC0415 - start-up time

    log = sarif_log(
        results,
        [finding for model in models for finding in model.findings],
        trouble=[(item.shown, item.reason) for item in refused],
        unchecked=[
            (os.path.join(folder, name), found.description)  # noqa: PTH118
            for folder, files in weights.items()
            for name, found in files
        ],
    )
    from stspec.writer.atomic import replace_file  # noqa: PLC0415 - start-up time

    text = json.dumps(log, indent=2) + "\n"
    try:
        # All of it or none: a run killed while writing leaves the previous log.
        replace_file(path, [text.encode("utf-8")])
    except OSError as exc:
        complain(f"cannot write {path}: {exc.strerror or exc}")
        return TROUBLE
    return VALID


def _sarif_writable(
    path: str | None, arguments: list[str], targets: list[Target]
) -> bool:
    """Whether the SARIF log may go to ``path`` (None: no log); say why not."""
    refusal = None if path is None else _sarif_refusal(path, arguments, targets)
    if refusal is not None:
        complain(f"cannot write {file_name(str(path))}: {refusal}")
    return refusal is None


def _sarif_refusal(
    path: str, arguments: list[str], targets: list[Target]
) -> str | None:
    """Say why the SARIF log must not be written to ``path`` (None: it may)."""
    folder = os.path.dirname(path) or "."  # noqa: PTH120 - a plain path string
    try:
        status = os.stat(path)  # noqa: PTH116 - a plain path string
    except FileNotFoundError:
        if not os.path.isdir(folder):  # noqa: PTH112 - a plain path string
            return f"the folder {folder} does not exist"
    except OSError as exc:
        return exc.strerror or str(exc)
    else:
        why = _not_a_log(path, status, arguments, targets)
        if why is not None:
            return why
    if not os.access(folder, os.W_OK):
        return f"the folder {folder} is not writable"
    return None


def _not_a_log(
    path: str, status: os.stat_result, arguments: list[str], targets: list[Target]
) -> str | None:
    """Say why an existing ``path`` must not be replaced by a SARIF log."""
    import stat  # noqa: PLC0415 - --sarif only

    same = (status.st_dev, status.st_ino)
    for item in [*arguments, *(target.path for target in targets)]:
        with contextlib.suppress(OSError):
            other = os.stat(item)  # noqa: PTH116 - a plain path string
            if (other.st_dev, other.st_ino) == same:
                return "it is one of the inputs"
    if stat.S_ISDIR(status.st_mode):
        return "it is a folder"
    try:
        # Opened without blocking, and judged as opened: a FIFO or a device
        # is refused, also one that replaced the name since stat().
        with regular_file(path) as fd:
            head = os.pread(fd, _SARIF_HEAD, 0)
    except NotRegularFileError:
        return "it exists and is not a regular file"
    except OSError as exc:  # pragma: no cover - root (CI) reads every file
        return exc.strerror or str(exc)
    # Empty (made by `touch` or a previous run's redirection), or a log that
    # says it is SARIF: both may be replaced.
    if head.strip() and not (
        head.lstrip().startswith(b"{") and b"sarif" in head.lower()
    ):
        return "it exists and is not a SARIF log"
    return None
