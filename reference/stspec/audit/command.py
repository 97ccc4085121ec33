"""The ``check`` command: gather inputs, check files, check models, report."""

from __future__ import annotations

import os
import sys

from stspec.audit import INVALID, TROUBLE, VALID
from stspec.audit.check import (
    WORKER_DIED,
    FileResult,
    Progress,
    Task,
    check_files,
)
from stspec.audit.inputs import Scratch, Target, entry, gather
from stspec.audit.opening import regular_file
from stspec.audit.small import valid_line
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
    from collections.abc import Callable
    from typing import Final, NamedTuple

    from stspec.audit.inputs import Inputs
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
# Remote stand-ins hold headers only: below this many header bytes in all,
# checking them here (about 15 MB/s) is quicker than starting a pool of
# processes (0.1 to 0.3 s on a busy machine, measured with 100 shards).
_REMOTE_POOL_BYTES: Final = 8 << 20


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
        if not self.omitted:
            return listed
        # Loaded here: a check of files without an index never needs the table.
        from stspec.audit.shard_checks import SHARD_CHECKS_BY_ID  # noqa: PLC0415

        return listed + sum(
            more
            for rule, more in self.omitted.items()
            if SHARD_CHECKS_BY_ID[rule].severity == severity
        )

    @property
    def valid(self) -> bool:
        """No error finding and no invalid shard (warnings do not count)."""
        return not self.count("error") and not self.invalid_shards

    def as_dict(self) -> dict[str, object]:
        """Return the model's entry in the --json document."""
        return {
            "index": self.target.shown,
            "valid": self.valid,
            "errors": self.count("error"),
            "warnings": self.count("warning"),
            "shards": [] if self.index is None else self.index.shards,
            "invalid_shards": self.invalid_shards,
            "findings": [finding.as_dict() for finding in self.findings],
            "omitted": self.omitted,
            "summary": None if self.summary is None else self.summary.as_dict(),
        }


def audit(paths: list[str], options: Options) -> int:
    """Run ``stspec check`` on ``paths`` and return the exit status."""
    with Scratch() as scratch:
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
        if options.sarif is not None and not _sarif_writable(
            options.sarif, paths, inputs.targets
        ):
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
        results, checked = _check_all(
            tasks, options, remote, _jobs(options, inputs, session)
        )
        status = max(status, checked)
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


def _check_all(
    tasks: list[Task], options: Options, remote: dict[str, Fetched], jobs: int | None
) -> tuple[dict[str, FileResult], int]:
    """Check every file and print its lines; give the results by path, the status."""
    meter = Progress(sys.stderr, len(tasks))
    results: dict[str, FileResult] = {}
    status = VALID
    orphans: list[str] = []  # left without a result by a killed worker
    for task, result in zip(
        tasks, check_files(tasks, jobs=jobs, meter=meter), strict=True
    ):
        results[task.path] = result
        status = max(status, _outcome(result))
        if result.reason == WORKER_DIED:
            orphans.append(result.shown)
        elif not options.as_json:
            _show_file(result, options, remote.get(result.shown), meter)
    if orphans and not options.as_json:
        _print_orphans(orphans)
    return results, status


def _jobs(options: Options, inputs: Inputs, session: Session | None) -> int | None:
    """Choose the processes to check with: one for remote headers alone.

    ``None`` lets check_files choose by the number of files, which suits
    files on disk; a remote file's stand-in holds only its header, which
    ``session.transferred`` counts.
    """
    if options.jobs is not None or session is None:
        return options.jobs
    only_remote = all(
        target.remote is not None or target.index for target in inputs.targets
    )
    return 1 if only_remote and session.transferred < _REMOTE_POOL_BYTES else None


class _Extra(NamedTuple):
    """What remote files and integrity add to the report."""

    remote: dict[str, Fetched]  # shown name (the URL) -> what was read of it
    document: dict[str, object]  # keys added to the JSON document


def _integrity(
    targets: list[Target], expected: dict[str, str], extra: _Extra, options: Options
) -> int:
    """Compare and report digests (--sha256, --manifest, --hash)."""
    if not expected and not options.hash:
        return VALID
    from stspec.audit.integrity import digests  # noqa: PLC0415 - integrity runs only

    checked = digests(targets, expected, extra.remote, every=options.hash)
    status = VALID
    for found in checked:
        if not options.as_json:
            _print_digest(found)
        status = max(status, _digest_outcome(found))
    if checked:
        extra.document["integrity"] = [found.as_dict() for found in checked]
    return status


def _session(paths: list[str], options: Options, scratch: Scratch) -> Session | None:
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
    session: Session, scratch: Scratch
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
        expected_digests,
    )

    try:
        return expected_digests(options.sha256, options.manifests)
    except IntegrityError as exc:
        complain(str(exc))
        return None


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
        from stspec.audit.documents import json_document  # noqa: PLC0415 - --json only

        out_json(
            json_document(
                results,
                [model.as_dict() for model in models],
                inputs.refused,
                inputs.skipped,
                weights,
                remote=extra.remote,
                extra=extra.document,
            )
        )
    else:
        if not options.quiet:
            _print_skipped(inputs.skipped)
        _print_weights(weights)
    if options.sarif is not None:
        from stspec.audit.documents import write_sarif  # noqa: PLC0415 - --sarif only

        findings = [finding for model in models for finding in model.findings]
        if not write_sarif(options.sarif, results, findings, inputs.refused, weights):
            status = TROUBLE
    return status


def _sarif_writable(path: str, arguments: list[str], targets: list[Target]) -> bool:
    from stspec.audit.documents import sarif_writable  # noqa: PLC0415 - --sarif only

    return sarif_writable(path, arguments, targets)


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
        out(valid_line(result.shown, summary.tensors, summary.file_bytes))
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


def _print_orphans(orphans: list[str]) -> None:
    """Say in one line which files a killed worker left unchecked.

    A pool that loses a worker leaves every file after it without a result:
    thousands of lines, one each, would bury the rest. The JSON and SARIF
    forms still name every one.
    """
    shown = ", ".join(file_name(name) for name in orphans[:5])
    if len(orphans) > 5:
        shown += ", ... (--json and --sarif name every one)"
    complain(f"{count(len(orphans), 'file')} {WORKER_DIED}: {shown}")


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
