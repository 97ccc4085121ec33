"""The ``check`` command's machine-readable forms: the JSON document and SARIF log."""

from __future__ import annotations

import contextlib
import os

from stspec import SPEC_VERSION, __version__
from stspec.audit.opening import NotRegularFileError, regular_file
from stspec.audit.terminal import complain, file_name

# No typing at run time (start-up cost, see stspec/record.py); mypy reads this as True.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterable
    from typing import Final

    from stspec.audit.check import FileResult
    from stspec.audit.inputs import Refused, Target
    from stspec.audit.remote import Fetched
    from stspec.audit.shards import Finding
    from stspec.audit.sniff import Format

__all__ = ["json_document", "sarif_writable", "write_sarif"]

# Bytes of an existing --sarif file looked at to tell a SARIF log.
_SARIF_HEAD: Final = 4096


def json_document(  # noqa: PLR0913 - the parts of one report
    results: list[FileResult],
    models: list[dict[str, object]],
    refused: Iterable[Refused],
    skipped: dict[str, list[str]],
    weights: dict[str, list[tuple[str, Format]]],
    *,
    remote: dict[str, Fetched],
    extra: dict[str, object],
) -> dict[str, object]:
    """Return the --json document.

    ``models`` are the models' reports; ``remote`` maps a remote file's shown
    name to what was read of it; ``extra`` holds keys that remote files and
    integrity add.
    """
    files = []
    for result in results:
        report = _file_report(result)
        if result.shown in remote:
            report["remote"] = _remote_report(remote[result.shown])
        files.append(report)
    files += [
        {"file": item.shown, "valid": False, "error": item.reason} for item in refused
    ]
    return {
        "stspec": __version__,
        "spec": SPEC_VERSION,
        "files": files,
        "models": models,
        "skipped": skipped,
        **extra,
        "unchecked_weights": {
            folder: [{"file": name, "format": found.key} for name, found in listed]
            for folder, listed in weights.items()
        },
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


def _remote_report(fetched: Fetched) -> dict[str, object]:
    return {
        "url": fetched.url,
        "length": fetched.length,
        "transferred": fetched.transferred,
        "tensor_bytes_read": False,
        "lfs_sha256": fetched.sha256,
    }


def write_sarif(
    path: str,
    results: list[FileResult],
    findings: list[Finding],
    refused: Iterable[Refused],
    weights: dict[str, list[tuple[str, Format]]],
) -> bool:
    """Write the SARIF log to ``path``; False after saying why it could not be."""
    import json  # noqa: PLC0415 - start-up time, as for sarif

    from stspec.audit.sarif import sarif_log  # noqa: PLC0415 - start-up time

    log = sarif_log(
        results,
        findings,
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
        return False
    return True


def sarif_writable(path: str, arguments: list[str], targets: list[Target]) -> bool:
    """Whether the SARIF log may go to ``path``; say why not."""
    refusal = _sarif_refusal(path, arguments, targets)
    if refusal is not None:
        complain(f"cannot write {file_name(path)}: {refusal}")
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
