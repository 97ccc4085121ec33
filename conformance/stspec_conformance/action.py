"""Run the suite as a CI job does: reports in one folder, the summary appended.

This is what the repository's GitHub Action (``action.yml``) and its reusable
workflow run after installing a pinned ``safetensors-spec[conformance]``, and
what any other CI system can run the same way::

    python -m stspec_conformance.action --impl=mylib --baseline=known.txt

It runs ``pytest --pyargs stspec_conformance`` with the JSON and Markdown
reports written into ``--report-dir``, appends the Markdown report to the file
named by ``--summary`` (default: ``$GITHUB_STEP_SUMMARY``, where GitHub shows a
job's summary) and exits with pytest's status, so a job fails exactly when the
suite does.  ``--options`` (one string, split as a shell would) and the
arguments after ``--`` go to pytest unchanged.
"""

from __future__ import annotations

import argparse
import os
import shlex
import subprocess
import sys
from pathlib import Path
from typing import Final

__all__ = ["build_command", "main", "summary_text"]

# pytest's exit status 5: no test was collected (a -k that matches nothing)
_NO_TESTS: Final = 5


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m stspec_conformance.action",
        description="Run the safetensors conformance suite as a CI step: reports "
        "in one folder, the Markdown report appended to the job summary, pytest's "
        "exit status.",
    )
    parser.add_argument(
        "--impl",
        required=True,
        help="the implementation under test, as pytest's --impl takes it",
    )
    parser.add_argument(
        "--baseline",
        default="",
        help="known-failures file kept in your repository (strict xfails)",
    )
    parser.add_argument(
        "--report-dir",
        default="stspec-report",
        type=Path,
        help="folder for report.json, report.md and junit.xml (default: %(default)s)",
    )
    parser.add_argument(
        "--summary",
        default=os.environ.get("GITHUB_STEP_SUMMARY", ""),
        help="file the Markdown report is appended to (default: $GITHUB_STEP_SUMMARY)",
    )
    parser.add_argument(
        "--workers",
        default="auto",
        help="pytest-xdist workers, or 0 to run in one process (default: %(default)s)",
    )
    parser.add_argument(
        "--options",
        default="",
        help="further pytest options in one string, split as a shell would",
    )
    parser.add_argument(
        "pytest_args",
        nargs="*",
        metavar="-- PYTEST_ARGS",
        help="further pytest options, after --",
    )
    return parser


def build_command(options: argparse.Namespace) -> list[str]:
    """The pytest command line the options stand for."""
    reports: Path = options.report_dir
    command = [
        sys.executable,
        "-m",
        "pytest",
        "--pyargs",
        "stspec_conformance",
        f"--impl={options.impl}",
        "-p",
        "no:cacheprovider",
        f"--report-json={reports / 'report.json'}",
        f"--report-md={reports / 'report.md'}",
        f"--junitxml={reports / 'junit.xml'}",
    ]
    if options.baseline:
        command.append(f"--baseline={options.baseline}")
    if options.workers != "0":
        command += ["-n", str(options.workers)]
    return command + shlex.split(options.options) + list(options.pytest_args)


def summary_text(report: Path, status: int, impl: str) -> str:
    """What the job summary gets: the suite's report, and why it may say little."""
    try:
        text = report.read_text("utf-8", errors="backslashreplace").rstrip("\n")
    except OSError:
        text = ""
    if not text.strip():
        text = (
            f"## safetensors conformance: {impl}\n\n"
            f"No report: pytest stopped before the suite wrote one (exit status "
            f"{status}); the job log shows pytest's output."
        )
    if status == _NO_TESTS:
        text += "\n\nNo test matched the selection (pytest exit status 5)."
    return text + "\n"


def main(argv: list[str] | None = None) -> int:
    """Run the suite; return pytest's exit status."""
    options = _parser().parse_args(argv)
    options.report_dir.mkdir(parents=True, exist_ok=True)
    report = options.report_dir / "report.md"
    report.unlink(missing_ok=True)  # never summarise an earlier run's report
    command = build_command(options)
    print("+", " ".join(command), flush=True)  # noqa: T201
    status = subprocess.call(command)  # noqa: S603
    if options.summary:
        with Path(options.summary).open("a", encoding="utf-8") as summary:
            summary.write(summary_text(report, status, options.impl))
    return status


if __name__ == "__main__":
    sys.exit(main())
