"""The ``stspec`` command: check files and folders, or show one file's layout."""

from __future__ import annotations

import argparse
import gc
import io
import os
import sys

from stspec._version import __version__
from stspec.audit import VALID

# No typing at run time (start-up cost, see stspec/record.py); mypy reads this as True.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Sequence
    from typing import Final


__all__ = ["main", "parser", "run"]

INTERRUPTED: Final = 130  # 128 + SIGINT, as shells report it


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
    # Only argparse is imported before the arguments are parsed: --version,
    # --help and a usage error cost the interpreter and argparse alone.
    if args.command == "check":
        from stspec.audit.terminal import complain  # noqa: PLC0415

        try:
            return _check(args)
        except KeyboardInterrupt:
            # Ctrl-C in a long run over a folder: no traceback, the shell's code.
            complain("interrupted")
            return INTERRUPTED
    from stspec.audit.inspect import inspect  # noqa: PLC0415

    return inspect(args.file, as_json=args.json, wait=args.wait)


def _check(args: argparse.Namespace) -> int:
    # One small file named alone, the commonest check, needs none of the
    # modules that gather inputs, run processes, check sharded models and
    # write reports: they are most of the command's start-up (see small.py).
    if _alone(args):
        from stspec.audit.small import check_small  # noqa: PLC0415

        if check_small(args.paths[0], quiet=args.quiet):
            return VALID
    from stspec.audit.command import Options, audit  # noqa: PLC0415

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
    return audit(args.paths, options)


def _alone(args: argparse.Namespace) -> bool:
    """Whether the check names one path and asks for its verdict line only.

    The other options (--all, --jobs, --wait, --deadline, --max-transfer,
    --fail-unchecked-weights) change nothing for one valid file on disk.
    """
    return len(args.paths) == 1 and not (
        args.json
        or args.summary
        or args.sarif is not None
        or args.whole_models
        or args.sha256
        or args.manifest
        or args.hash
    )


def run() -> int:
    """Run the command as a program (the ``stspec`` script, ``python -m stspec``)."""
    status = main()
    # The process ends now.  The interpreter's last collection would walk
    # every object the imported modules made (8 M instructions, as much as
    # the check's own work costs several times over) only to free memory
    # that exiting frees anyway; frozen objects are left out of it.  Not in
    # main(): a program that runs the command in-process keeps its collector.
    gc.freeze()
    return status


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
        "or more, else one; remote files' headers in this process while they "
        "hold under 8 MiB in all); for remote files, also how many are read at "
        "once (default 8)",
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
    # (try/except, not contextlib.suppress: --version and --help would
    # import contextlib for it)
    try:
        columns = int(os.environ.get("COLUMNS", "0"))
    except ValueError:
        columns = 0
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
