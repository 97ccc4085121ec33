"""Run the conformance suite in a subprocess and read its JSON report."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
SUITE = ROOT / "conformance"
BROKEN = Path(__file__).resolve().parent / "broken"
NODE_EXAMPLE = SUITE / "stspec_conformance" / "examples" / "reader.mjs"


@dataclass
class Run:
    returncode: int
    output: str
    report: dict[str, Any]

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
) -> Run:
    """Run the suite on ``impl``; ``target`` is what pytest is pointed at."""
    report = tmp_path / "report.json"
    env = {k: v for k, v in os.environ.items() if not k.startswith("STSPEC_")}
    process = subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            *target,
            f"--impl={impl}",
            f"--report-json={report}",
            "-q",
            "-p",
            "no:cacheprovider",
            *args,
        ],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=timeout,
        env=env,
        check=False,
    )
    data = json.loads(report.read_text()) if report.exists() else {}
    return Run(process.returncode, process.stdout + process.stderr, data)
