"""Run the conformance suite in a subprocess and read its JSON report.

``run_suite`` makes a run for one test; ``shared_run`` makes a run once per
session for every test that reads it (tests that only read a run's verdicts and
reports, and pass the same implementation and options).
"""

from __future__ import annotations

import fcntl
import hashlib
import json
import os
import secrets
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from _forked_pytest import run_pytest

if TYPE_CHECKING:
    import pytest

ROOT = Path(__file__).resolve().parents[2]
SUITE = ROOT / "conformance"
BROKEN = Path(__file__).resolve().parent / "broken"
NODE_EXAMPLE = SUITE / "stspec_conformance" / "examples" / "reader.mjs"
CASES_SEED = "CASES_SEED"


@dataclass
class Run:
    returncode: int
    output: str
    report: dict[str, Any]
    # the run's own folder: report.json, and report.md and junit.xml of a shared run
    folder: Path

    @property
    def results(self) -> dict[str, str]:
        """test name (``test_x[param]``) -> passed/failed/xfailed/..."""
        return {t["test"]: t["result"] for t in self.report.get("tests", [])}

    def test(self, name: str) -> dict[str, Any]:
        for entry in self.report["tests"]:
            if entry["test"] == name:
                return dict(entry)
        raise KeyError(f"{name} did not run; ran {sorted(self.results)[:30]}")


def run_suite(
    impl: str,
    *args: str,
    tmp_path: Path,
    timeout: float = 300,
    target: tuple[str, ...] = (str(SUITE),),
    cwd: Path = ROOT,
    corpus_seed: bool = True,
) -> Run:
    """Run the suite on ``impl``; ``target`` is what pytest is pointed at.

    With ``corpus_seed``, unless ``args`` give one, the run gets a fresh
    corpus seed on its command line, which the test implementations also get
    (as CASES_SEED, see ``impls/_cases.py``) so that they can tell the cases
    they misbehave on; the suite itself never hands its seed to an
    implementation.
    """
    report = tmp_path / "report.json"
    env = {k: v for k, v in os.environ.items() if not k.startswith("STSPEC_")}
    if corpus_seed and not any(a.startswith("--corpus-seed") for a in args):
        env[CASES_SEED] = secrets.token_hex(8)
        args = (*args, f"--corpus-seed={env[CASES_SEED]}")
    # `python -m pytest ...` in a fresh process, forked from one that has
    # imported pytest already (_forked_pytest: the same run, less start-up)
    process = run_pytest(
        [
            *target,
            f"--impl={impl}",
            f"--report-json={report}",
            "-q",
            "-p",
            "no:cacheprovider",
            *args,
        ],
        cwd=cwd,
        env=env,
        timeout=timeout,
    )
    data = json.loads(report.read_text()) if report.exists() else {}
    return Run(process.returncode, process.stdout + process.stderr, data, tmp_path)


def shared_run(impl: str, *args: str, tmp_path_factory: pytest.TempPathFactory) -> Run:
    """The run of the suite on ``impl`` with ``args``, made once per session.

    The first test to ask makes it; the others, on any xdist worker, wait for it
    and read the same run.  Besides report.json the run writes report.md and
    junit.xml into ``Run.folder``.  A test that changes files the run reads, or
    asserts what its own options do, uses ``run_suite``.
    """
    base = tmp_path_factory.getbasetemp()
    # each xdist worker has its own base folder inside the session's
    session = base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base
    key = hashlib.sha256(json.dumps([impl, *args]).encode()).hexdigest()[:16]
    folder = session / "suite-runs" / key
    folder.mkdir(parents=True, exist_ok=True)
    with (folder / "lock").open("w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # released when the file closes
        saved = folder / "run.json"
        if saved.exists():
            made = json.loads(saved.read_text(encoding="utf-8"))
            return Run(made["returncode"], made["output"], made["report"], folder)
        run = run_suite(
            impl,
            f"--report-md={folder / 'report.md'}",
            f"--junitxml={folder / 'junit.xml'}",
            *args,
            tmp_path=folder,
        )
        made = {
            "returncode": run.returncode,
            "output": run.output,
            "report": run.report,
        }
        saved.write_text(json.dumps(made), encoding="utf-8")
        return run
