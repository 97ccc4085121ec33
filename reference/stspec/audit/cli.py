"""The ``stspec`` command: check files and folders, or show one file's layout."""

from __future__ import annotations

import argparse
import contextlib
import errno
import io
import os
import sys

from stspec import SafetensorsError, read, validate, verdict_of
from stspec._version import __version__
from stspec.audit.command import Options, audit
from stspec.audit.inputs import gather
from stspec.audit.opening import NotRegularFileError, regular_file
from stspec.audit.terminal import (
    complain,
    count,
    file_name,
    out,
    out_json,
    violation_line,
)

# No typing at run time (start-up cost, see stspec/record.py); mypy reads this as True.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Sequence
    from typing import Final

    from stspec import SafetensorsFile, Violations

__all__ = ["main", "parser"]

VALID: Final = 0
INVALID: Final = 1  # invalid or tolerated: the strict reference rejects both
TROUBLE: Final = 2  # usage or I/O error
INTERRUPTED: Final = 130  # 128 + SIGINT, as shells report it
_SHOWN_CHARS: Final = 120  # longer metadata values are cut in the text table


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line and return the exit status (0, 1 or 2)."""
    for stream in (sys.stdout, sys.stderr):
        # A stdout that is not UTF-8 (cp1252 on Windows, ASCII under LANG=C)
        # gets \u540d for what it cannot encode, never a UnicodeEncodeError.
        if isinstance(stream, io.TextIOWrapper):
            stream.reconfigure(errors="backslashreplace")
    try:
        args = parser().parse_args(argv)
    except SystemExit as exc:  # --help, --version, or a usage error
        return int(exc.code or 0)
    if args.command == "check":
        options = Options(
            every=args.all,
            as_json=args.json,
            quiet=args.quiet,
            summary=args.summary,
            sarif=args.sarif,
            jobs=args.jobs,
            wait=args.wait,
            whole_models=args.whole_models,
            fail_unchecked_weights=args.fail_unchecked_weights,
            deadline=args.deadline,
            max_transfer=args.max_transfer,
            sha256=tuple(args.sha256),
            manifests=tuple(args.manifest),
            hash=args.hash,
        )
        try:
            return audit(args.paths, options)
        except KeyboardInterrupt:
            # Ctrl-C in a long run over a folder: no traceback, the shell's code.
            complain("interrupted")
            return INTERRUPTED
    return _inspect(args.file, as_json=args.json, wait=args.wait)


def parser() -> argparse.ArgumentParser:
    """Return the parser of the ``stspec`` command (the docs list its options)."""
    # argparse makes a formatter for every add_argument() and, unless given a
    # width, asks shutil for the terminal's each time: importing shutil (and
    # with it bz2, lzma and zlib) would cost the command a tenth of its
    # start-up.  The width is found once, as shutil finds it.
    width = _columns() - 2  # argparse's own margin

    def formatter(prog: str) -> argparse.HelpFormatter:
        return argparse.HelpFormatter(prog, width=width)

    parser = argparse.ArgumentParser(
        prog="stspec",
        formatter_class=formatter,
        description="Check safetensors files against the spec, strictly.",
        epilog="exit status: 0 everything valid, 1 a file or model is invalid or "
        "tolerated, 2 a usage error or an input that cannot be read",
    )
    parser.add_argument("--version", action="version", version=__version__)
    commands = parser.add_subparsers(dest="command", required=True)
    check = commands.add_parser(
        "check",
        formatter_class=formatter,
        help="validate files, folders and sharded models",
        description="Validate safetensors files. A folder is searched for "
        "*.safetensors files and sharded-checkpoint indexes "
        "(*.safetensors.index.json), each checked with its shards as one model. "
        "'-' reads stdin. A valid file prints 'PATH: valid (N tensors, M bytes)'; "
        "a violation prints 'PATH: RULE-ID at byte N: message'.",
        epilog="exit status: 0 everything valid (warnings allowed), 1 a file or "
        "model is invalid or tolerated, 2 a usage error or an input that cannot be "
        "checked",
    )
    check.add_argument(
        "paths",
        nargs="+",
        metavar="PATH",
        help="a file, a folder, an index (*.safetensors.index.json), - for "
        "stdin, an https:// URL of a file or an index, or "
        "hf://ORG/REPO[@REVISION][/PATH] (a Hugging Face Hub repository, "
        "HF_ENDPOINT if set); remote files are checked from their headers, "
        "read with Range requests, without downloading tensor bytes",
    )
    check.add_argument(
        "--all", action="store_true", help="list every violation, not the first"
    )
    check.add_argument(
        "--json",
        action="store_true",
        help="print one JSON document, the form for scripts (implies --all)",
    )
    check.add_argument(
        "-q", "--quiet", action="store_true", help="print nothing for valid files"
    )
    check.add_argument(
        "-s",
        "--summary",
        action="store_true",
        help="show tensors, parameters, bytes per dtype, metadata and the "
        "header's share for each valid file and model",
    )
    check.add_argument(
        "--sarif", metavar="FILE", help="also write a SARIF 2.1.0 log to FILE"
    )
    check.add_argument(
        "-j",
        "--jobs",
        type=_positive_int,
        help="processes to check files with (default: one per CPU for 64 files "
        "or more, else one)",
    )
    _wait_option(
        check,
        "give up on a pipe, a FIFO or a server that sends nothing for this long "
        "(also the time to connect)",
    )
    check.add_argument(
        "--deadline",
        type=_seconds,
        default=600.0,
        metavar="SECONDS",
        help="give up on remote files after this long in all (default 600)",
    )
    check.add_argument(
        "--max-transfer",
        type=_positive_int,
        default=1 << 30,
        metavar="BYTES",
        help="give up on remote files after reading this many bytes in all "
        "(default 1073741824, 1 GiB)",
    )
    check.add_argument(
        "--whole-models",
        action="store_true",
        help="for each file given, also check the sharded models that the "
        "indexes in its folder describe, all their shards with them (what the "
        "pre-commit hook does: a commit that changes one shard is checked as "
        "the whole model)",
    )
    check.add_argument(
        "--fail-unchecked-weights",
        action="store_true",
        help="exit 1 when a folder holds files that are not checked but look "
        "like model weights in another format (a pickle, a ZIP archive such as "
        "a PyTorch .bin, a GGUF file); they are always named, also under -q",
    )
    check.add_argument(
        "--sha256",
        action="append",
        default=[],
        metavar="FILE=HEX",
        help="integrity, not validity: FILE must have this SHA-256 (exit 1 if "
        "not); for a remote file, the Hub's LFS record is compared",
    )
    check.add_argument(
        "--manifest",
        action="append",
        default=[],
        metavar="FILE",
        help="integrity: the SHA-256 of each file listed in FILE, in the format "
        "sha256sum writes ('HEX  NAME', names relative to FILE's folder)",
    )
    check.add_argument(
        "--hash",
        action="store_true",
        help="print the SHA-256 of every file checked (a local file is read once, "
        "whole; a remote one shows the Hub's LFS record)",
    )
    inspect = commands.add_parser(
        "inspect",
        formatter_class=formatter,
        help="show the header, metadata and byte layout of a valid file",
        description="Show the tensors, metadata and byte layout of a valid file. "
        "FILE must be a regular file; a FIFO or a device is refused at once. "
        "'-' reads the file from stdin (a pipe or a redirected file).",
    )
    inspect.add_argument(
        "file",
        metavar="FILE",
        help="a safetensors file, or - to read one from stdin",
    )
    inspect.add_argument("--json", action="store_true", help="print JSON")
    _wait_option(inspect, "with -, give up when stdin sends nothing for this long")
    return parser


def _wait_option(command: argparse.ArgumentParser, what: str) -> None:
    command.add_argument(
        "--wait",
        type=_seconds,
        default=60.0,
        metavar="SECONDS",
        help=f"{what} (default 60)",
    )


def _columns() -> int:
    """COLUMNS if set, else the terminal's width, else 80 (as shutil finds it)."""
    with contextlib.suppress(ValueError):
        columns = int(os.environ.get("COLUMNS", "0"))
        if columns > 0:
            return columns
    try:
        return os.get_terminal_size().columns or 80  # stdout's, as for shutil
    except OSError:  # not a terminal
        return 80


def _seconds(text: str) -> float:
    seconds = float(text)
    if not 0 < seconds < 1e6:  # also refuses nan and inf, which select() cannot wait
        raise argparse.ArgumentTypeError(f"expected 0 < seconds < 1e6, got {text}")
    return seconds


def _positive_int(text: str) -> int:
    number = int(text)
    if number < 1:
        raise argparse.ArgumentTypeError(f"expected at least 1, got {number}")
    return number


def _report(file: str, errors: Violations) -> dict[str, object]:
    return {
        "file": file,
        "valid": not errors,
        "verdict": verdict_of({error.rule for error in errors}),
        "violations": [error.as_dict() for error in errors],
        "omitted": errors.omitted,
    }


def _inspect(file: str, *, as_json: bool, wait: float) -> int:
    if file.lower().startswith(("https://", "http://", "hf://")):
        complain(
            f"cannot inspect {file_name(file)}: inspect reads local files; "
            "`stspec check` reads remote ones from their headers"
        )
        return TROUBLE
    if file != "-":
        return _inspect_path(file, file, as_json=as_json)
    # stdin is read as `check -` reads it: a pipe to its end, each wait for
    # data bounded by --wait; a terminal or a device is refused.
    with contextlib.ExitStack() as scratch:
        inputs = gather([file], wait=wait, scratch=scratch)
        if inputs.refused:
            complain(f"cannot read {file_name(file)}: {inputs.refused[0].reason}")
            return TROUBLE
        return _inspect_path(inputs.targets[0].path, file, as_json=as_json)


def _inspect_path(path: str, file: str, *, as_json: bool) -> int:
    try:
        # Opened without blocking and judged as opened: a FIFO, a socket or a
        # device is refused at once, never waited on.
        with regular_file(path) as fd:
            return _inspect_file(fd, file, as_json=as_json)
    except NotRegularFileError as exc:
        if exc.errno == errno.EISDIR:
            complain(
                f"cannot inspect {file_name(file)}: it is a folder, inspect "
                "takes one file"
            )
        elif exc.stream:
            complain(
                f"cannot read {file_name(file)}: {exc.strerror}; to inspect what "
                "it sends, pipe it to `stspec inspect -`"
            )
        else:
            _complain(file, exc)
    except OSError as exc:
        _complain(file, exc)
    return TROUBLE


def _inspect_file(fd: int, file: str, *, as_json: bool) -> int:
    try:
        opened = read(fd, mapped=False)
    except SafetensorsError as exc:
        if as_json:
            out_json(_report(file, validate(fd, mapped=False)))
        else:
            out(violation_line(file, exc))
        return INVALID
    with opened:
        header = os.pread(fd, opened.header_length, 8)
    layout = _layout(opened, header)
    if as_json:
        out_json(_description(file, opened, layout))
    else:
        out(*_table(file, opened, layout))
    return VALID


def _layout(opened: SafetensorsFile, header: bytes) -> dict[str, int]:
    # A valid file has no leading whitespace and pads with 0x20 only, so the
    # JSON object is the header minus its trailing spaces.
    json_length = len(header.rstrip(b" "))
    return {
        "file_length": opened.file_length,
        "header_length": opened.header_length,
        "json_length": json_length,
        "padding": opened.header_length - json_length,
        "data_start": opened.data_start,
        "data_start_mod_8": opened.data_start % 8,
        "buffer_length": opened.file_length - opened.data_start,
    }


def _description(
    file: str, opened: SafetensorsFile, layout: dict[str, int]
) -> dict[str, object]:
    return {
        "file": file,
        "valid": True,
        "metadata": opened.metadata,
        "tensors": [
            {
                "name": info.name,
                "dtype": info.dtype,
                "shape": list(info.shape),
                "data_offsets": [info.begin, info.end],
                "bytes": info.nbytes,
            }
            for info in opened.tensors.values()
        ],
        "layout": layout,
    }


def _table(file: str, opened: SafetensorsFile, layout: dict[str, int]) -> list[str]:
    lines = [f"{file_name(file)}: {count(len(opened.tensors), 'tensor')}", ""]
    if opened.metadata is None:
        lines.append("metadata: none")
    else:
        lines.append(f"metadata: {count(len(opened.metadata), 'key')}")
        lines += [
            f"  {_show(key)} = {_show(value, cut=True)}"
            for key, value in opened.metadata.items()
        ]
    rows = [("name", "dtype", "shape", "data_offsets", "bytes")] + [
        (
            _show(info.name),
            info.dtype,
            str(list(info.shape)),
            f"[{info.begin}, {info.end}]",
            str(info.nbytes),
        )
        for info in opened.tensors.values()
    ]
    widths = [max(len(row[column]) for row in rows) for column in range(5)]
    lines.append("")
    for row in rows:
        cells = [cell.ljust(width) for cell, width in zip(row, widths, strict=True)]
        cells[-1] = row[-1].rjust(widths[-1])  # numbers align right
        lines.append("  " + "  ".join(cells).rstrip())
    mod8 = layout["data_start_mod_8"]
    return [
        *lines,
        "",
        "layout:",
        f"  file length          {layout['file_length']}",
        f"  header length N      {layout['header_length']}",
        f"  JSON object          {layout['json_length']} bytes",
        f"  padding (0x20)       {layout['padding']} bytes",
        f"  data start 8+N       {layout['data_start']} (mod 8 = {mod8})",
        f"  buffer length        {layout['buffer_length']}",
    ]


def _show(text: str, *, cut: bool = False) -> str:
    """Quote names that would garble a terminal; shorten long values."""
    import json  # noqa: PLC0415 - `check` starts faster without it

    shown = text if text and text.isprintable() else json.dumps(text)
    if cut and len(shown) > _SHOWN_CHARS:
        return f"{shown[:_SHOWN_CHARS]}... ({len(text)} characters)"
    return shown


def _complain(file: str, exc: OSError) -> None:
    complain(f"cannot read {file_name(file)}: {exc.strerror or exc}")
