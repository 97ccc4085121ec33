"""``python -m matrix [ACTION] [--only NAME ...]``: set up, run, render, merge.

ACTION is one of setup, run, probe, render, findings, watch, merge, all.

``all`` (the default) sets up every environment, runs the suite against each
implementation in turn (and probes what it loads from each corpus file)
and renders ``results/``.  ``probe`` repeats only the probe, into the
existing ``results/NAME.json``.  ``findings`` writes ``results/findings/``,
reports ready for upstream trackers (``render`` and ``all`` write them too).
``--only`` restricts setup, runs and probes to the named implementations;
``--changed`` keeps of those only the implementations whose pins, wrapper,
build script, corpus or suite changed since their ``results/NAME.json`` was
written (``matrix.inputs``).  ``--jobs N`` (``-j N``) runs N implementations
at a time, longest first (``matrix.schedule``); set-up stays one at a time,
before any run.  ``render`` and ``findings`` always use every JSON file in
``results/``.  ``run`` and ``all`` append each row's run to
``results/history.jsonl`` (``matrix.history``).  ``watch`` sets up and runs
nothing: it asks each row's package registry for the versions it serves and
reports the rows that pin an older release (``matrix.watch``; exit status 1
when one is behind or a registry did not answer).  ``merge --shard DIR ...``
takes the rows that jobs on other machines ran (each ``run --only NAME
--results DIR``) into ``--results``, records them in the history and renders,
as ``all`` does after running them here (``matrix.shards``).
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path
from typing import Final

from matrix import (
    envs,
    findings,
    history,
    inputs,
    render,
    runner,
    schedule,
    shards,
    watch,
)
from matrix.impls import IMPLS, Impl, by_name

ACTIONS = ("setup", "run", "probe", "render", "findings", "watch", "merge", "all")


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m matrix", description=__doc__)
    parser.add_argument("action", nargs="?", default="all", choices=ACTIONS)
    parser.add_argument(
        "--only", action="append", default=[], metavar="NAME", help="repeatable"
    )
    parser.add_argument(
        "--results",
        type=Path,
        default=envs.REPO / "results",
        help="where the JSON, Markdown and HTML go (default: results/)",
    )
    parser.add_argument(
        "--python",
        type=Path,
        help="run the suite with this interpreter instead of setting up the "
        "implementation's own environment (its packages must be installed there)",
    )
    parser.add_argument(
        "-k",
        dest="select",
        metavar="EXPR",
        help="only the suite tests matching this pytest -k expression (a partial run)",
    )
    parser.add_argument(
        "--changed",
        action="store_true",
        help="only the implementations whose inputs changed since their "
        "results/NAME.json was written (pins, wrapper, build script, corpus, suite)",
    )
    parser.add_argument(
        "-j",
        "--jobs",
        type=int,
        default=1,
        metavar="N",
        help="run N implementations at a time, longest first by their last "
        "recorded run (default: 1, in the order given); each row uses about one core",
    )
    parser.add_argument(
        "--keep-going",
        action="store_true",
        help="go on with the next implementation when one cannot be set up",
    )
    parser.add_argument(
        "--registry",
        action="append",
        default=[],
        metavar="NAME=URL",
        help="watch: ask this base URL instead of the registry NAME "
        "(pypi, npm, crates, go, maven); also STSPEC_REGISTRY_NAME",
    )
    parser.add_argument(
        "--shard",
        action="append",
        default=[],
        type=Path,
        metavar="DIR",
        help="merge: a folder of rows' results another job ran (repeatable)",
    )
    parser.add_argument(
        "--json",
        type=Path,
        metavar="FILE",
        help="watch: also write the rows' states to FILE as JSON",
    )
    return parser


def _setup(chosen: list[Impl], results: Path, *, keep_going: bool) -> list[str]:
    failed = []
    for impl in chosen:
        try:
            envs.setup(impl)
        except Exception as exc:  # noqa: BLE001 - reported, then next or stop
            print(f"[matrix] setup of {impl.name} failed: {exc}", file=sys.stderr)
            failed.append(impl.name)
            runner.write_setup_failure(impl, results, f"{type(exc).__name__}: {exc}")
            if not keep_going:
                break
    return failed


def _act(args: argparse.Namespace, ready: list[Impl]) -> list[str]:
    """Do the action on the rows set up; the rows whose run failed."""
    failed: list[str] = []
    if args.action in {"run", "all"}:
        args.results.mkdir(parents=True, exist_ok=True)
        runner.pass_sigint()
        failed = schedule.run_rows(
            ready,
            args.results,
            lambda impl: runner.run(
                impl, args.results, python=args.python, select=args.select
            ),
            args.jobs,
        )
        # every complete run goes into results/history.jsonl (a -k run is partial)
        if args.select is None:
            history.record(args.results, [impl.name for impl in ready])
    elif args.action == "probe":
        for impl in ready:
            runner.reprobe(impl, args.results)
    elif args.action == "merge":
        merged = shards.merge(args.shard, args.results)
        print(f"[matrix] merged {len(merged)} rows", file=sys.stderr)
        # as a run here records: the whole runs only, never a -k run's
        if whole := shards.whole_runs(args.results, merged):
            history.record(args.results, whole)
    if args.action in {"render", "merge", "all"}:
        render.render_dir(args.results)
    if args.action in {"render", "findings", "merge", "all"}:
        findings.write_dir(args.results)
    return failed


def _changed(chosen: list[Impl], results: Path) -> list[Impl]:
    kept = []
    for impl in chosen:
        reasons = inputs.changed(impl, results)
        said = "; ".join(reasons) if reasons else "unchanged, not rerun"
        print(f"[matrix] {impl.name}: {said}", file=sys.stderr)
        if reasons:
            kept.append(impl)
    return kept


def _watch(
    parser: argparse.ArgumentParser, args: argparse.Namespace, chosen: list[Impl]
) -> int:
    try:
        watch.bases_from(args.registry)
    except ValueError as exc:
        parser.error(str(exc))
    return watch.main(chosen, args.registry, args.json, sys.stdout)


def _merge(
    parser: argparse.ArgumentParser, args: argparse.Namespace, _: list[Impl]
) -> int:
    if not args.shard:
        parser.error("merge needs at least one --shard DIR")
    try:
        _act(args, [])
    except ValueError as exc:
        print(f"[matrix] merge refused:\n{exc}", file=sys.stderr)
        return 1
    return 0


# the actions that set up and run nothing themselves
_OWN_ACTIONS: Final = {"watch": _watch, "merge": _merge}


def main(argv: list[str] | None = None) -> int:
    """Parse the command line and do what it says; the exit status."""
    parser = _parser()
    args = parser.parse_args(argv)
    try:
        chosen = [by_name(n) for n in args.only] if args.only else list(IMPLS)
    except ValueError as exc:
        parser.error(str(exc))
    if args.jobs < 1:
        parser.error(f"--jobs must be at least 1, not {args.jobs}")
    if args.action in _OWN_ACTIONS:
        return _OWN_ACTIONS[args.action](parser, args, chosen)
    if args.changed:
        chosen = _changed(chosen, args.results)
    # Installs, builds and runs share the machine with other work.
    if os.nice(0) < 10:
        os.nice(10 - os.nice(0))
    failed: list[str] = []
    if args.action not in {"render", "findings"} and args.python is None:
        failed = _setup(chosen, args.results, keep_going=args.keep_going)
        if failed and not args.keep_going:
            return 1
    run_failed = _act(args, [impl for impl in chosen if impl.name not in failed])
    if failed:
        print(f"[matrix] not set up: {', '.join(failed)}", file=sys.stderr)
    if run_failed:
        print(f"[matrix] run failed: {', '.join(run_failed)}", file=sys.stderr)
    return 1 if failed or run_failed else 0


if __name__ == "__main__":
    raise SystemExit(main())
