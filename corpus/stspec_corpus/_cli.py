"""The command line: ``python -m stspec_corpus COMMAND``."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from stspec_corpus._generate import check, expected_of, generate, materialise
from stspec_corpus._lint import (
    committed_size,
    coverage,
    coverage_gaps,
    coverage_table,
    lint,
)
from stspec_corpus._paths import default_dir
from stspec_corpus._registry import all_cases
from stspec_corpus._speclinks import CASES_PAGE, cases_page, render

_DEFAULT_HELP = "corpus (default: the checkout's corpus/, else the installed copy)"


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m stspec_corpus",
        description="Generate, check and lint the safetensors-spec corpus.",
    )
    sub = parser.add_subparsers(dest="command", required=True)
    gen = sub.add_parser(
        "generate", help="write files/, manifest.json, manifest.schema.json"
    )
    gen.add_argument(
        "--out",
        type=Path,
        default=None,
        help="target (default: the checkout's corpus/; required outside a checkout)",
    )
    chk = sub.add_parser("check", help="compare the corpus with a fresh generation")
    chk.add_argument("--dir", type=Path, default=None, help=_DEFAULT_HELP)
    sub.add_parser("coverage", help="print the rule-coverage table; exit 1 on a gap")
    lnt = sub.add_parser("lint", help="every corpus check, without pytest")
    lnt.add_argument("--dir", type=Path, default=None, help=_DEFAULT_HELP)
    lnt.add_argument(
        "--no-recipes", action="store_true", help="skip materialising recipes"
    )
    mat = sub.add_parser("materialise", help="write one case (recipes too) into DIR")
    mat.add_argument("case_id", metavar="ID")
    mat.add_argument("directory", metavar="DIR", type=Path)
    exp = sub.add_parser(
        "expected", help="print a case's full expected content as JSON"
    )
    exp.add_argument("case_id", metavar="ID")
    spec = sub.add_parser(
        "spec",
        help="rewrite SPEC.md's contents and rule index, and the corpus-cases page",
    )
    spec.add_argument(
        "path",
        nargs="?",
        type=Path,
        default=Path("spec/SPEC.md"),
        help="the spec (default: spec/SPEC.md); the page is docs/spec/"
        "corpus-cases.md beside the spec's folder",
    )
    spec.add_argument(
        "--check", action="store_true", help="exit 1 if a file is not up to date"
    )
    return parser


def _spec(path: Path, *, check_only: bool) -> int:
    cases = all_cases()
    page = path.resolve().parents[1] / CASES_PAGE
    stale = 0
    for target, fresh in (
        (path, render(path.read_text(encoding="utf-8"), cases)),
        (page, cases_page(cases)),
    ):
        text = target.read_text(encoding="utf-8") if target.exists() else None
        if fresh == text:
            print(f"{target} is up to date")  # noqa: T201
        elif check_only:
            print(f"{target} is out of date: run python -m stspec_corpus spec")  # noqa: T201
            stale = 1
        else:
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(fresh, encoding="utf-8")
            print(f"rewrote {target}")  # noqa: T201
    return stale


def _lint(args: argparse.Namespace) -> int:
    root = args.dir if args.dir is not None else default_dir()
    try:
        problems = lint(root, recipes=not args.no_recipes)
    except ImportError as exc:
        print(  # noqa: T201
            f"python -m stspec_corpus lint validates the manifest with jsonschema "
            f"({exc}): pip install 'safetensors-spec[lint]'",
            file=sys.stderr,
        )
        return 2
    return _report(problems, "lint: no problems")


def _report(problems: list[str], ok: str) -> int:
    for problem in problems:
        print(problem)  # noqa: T201
    if problems:
        print(f"{len(problems)} problem(s)", file=sys.stderr)  # noqa: T201
        return 1
    print(ok)  # noqa: T201
    return 0


def main(argv: list[str] | None = None) -> int:  # noqa: PLR0911 - one per command
    """Run one command; return the exit status."""
    args = _parser().parse_args(argv)
    if args.command == "generate":
        try:
            root = generate(args.out)
        except ValueError as exc:
            print(f"python -m stspec_corpus generate: {exc}", file=sys.stderr)  # noqa: T201
            return 2
        cases = all_cases()
        print(  # noqa: T201
            f"wrote {sum(c.data is not None for c in cases)} files and "
            f"{len(cases)} manifest entries to {root} ({committed_size(root):,} bytes)"
        )
        return 0
    if args.command == "check":
        return _report(check(args.dir), "the corpus equals a fresh generation")
    if args.command == "coverage":
        rows = coverage()
        print(coverage_table(rows))  # noqa: T201
        return 1 if coverage_gaps(rows) else 0
    if args.command == "lint":
        return _lint(args)
    if args.command == "spec":
        return _spec(args.path, check_only=args.check)
    if args.command == "materialise":
        try:
            print(materialise(args.case_id, args.directory))  # noqa: T201
        except KeyError as exc:
            print(exc.args[0], file=sys.stderr)  # noqa: T201
            return 2
        return 0
    try:
        print(json.dumps(expected_of(args.case_id), indent=1, sort_keys=True))  # noqa: T201
    except KeyError as exc:
        print(exc.args[0], file=sys.stderr)  # noqa: T201
        return 2
    return 0
