"""Measure the checkout commands README shows, and write docs/data/timings.json.

Run from the root of a checkout (``bash .ci/setup`` runs as the first step):

    python docs/measure_timings.py            # every command
    python docs/measure_timings.py --only 2   # the second; the others are kept

Each step runs in ``bash -c`` from the checkout's root, as a user types it.
Recorded per step: the wall time, the CPU time (user + system of the step and
of every process it waited for, from ``getrusage(RUSAGE_CHILDREN)`` around
it), the load average before and after, and the tests pytest's summary line
counts.  CPU time is the figure to compare: on a shared machine other work
stretches the wall time and leaves the CPU time about the same.  README's
checkout-commands block is generated from the file (docs/generate_pages.py).
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import re
import resource
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "docs" / "data" / "timings.json"
# README's commands, each as the steps it is measured in
COMMANDS: list[tuple[str, list[str]]] = [
    (
        "bash .ci/setup && .venv/bin/pytest conformance --impl=reference -n 2",
        ["bash .ci/setup", ".venv/bin/pytest conformance --impl=reference -n 2"],
    ),
    (".venv/bin/pytest -n 2", [".venv/bin/pytest -n 2"]),
    (".venv/bin/pytest -n 2 -m slow", [".venv/bin/pytest -n 2 -m slow"]),
]
SOURCE = (
    "docs/measure_timings.py: each step in bash -c from the checkout's root, "
    "PYTHONDONTWRITEBYTECODE unset; cpu_seconds is user + system of the step and "
    "every process it waited for; load_average before and after the step"
)
_COUNTED = re.compile(r"(\d+) (passed|failed|skipped|xfailed|xpassed|errors?)\b")


def _children_cpu() -> float:
    used = resource.getrusage(resource.RUSAGE_CHILDREN)
    return used.ru_utime + used.ru_stime


def _tests(output: str) -> int | None:
    """The tests pytest's last summary line counts, or None (no summary)."""
    for line in reversed(output.splitlines()):
        counted = _COUNTED.findall(line)
        if counted and " in " in line:
            return sum(int(number) for number, _ in counted)
    return None


def measure(step: str) -> dict[str, Any]:
    """Run ``step``; fail when it fails (a failing run measures nothing useful)."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    load_before = os.getloadavg()[0]
    cpu_before = _children_cpu()
    began = time.monotonic()
    done = subprocess.run(  # noqa: S603 - the fixed commands above
        ["bash", "-c", step],  # noqa: S607 - bash from PATH
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    wall = time.monotonic() - began
    cpu = _children_cpu() - cpu_before
    if done.returncode != 0:
        sys.stderr.write(done.stdout[-3000:] + done.stderr[-3000:])
        msg = f"{step!r} exited {done.returncode}: nothing recorded"
        raise SystemExit(msg)
    entry: dict[str, Any] = {
        "command": step,
        "wall_seconds": round(wall, 1),
        "cpu_seconds": round(cpu, 1),
        "load_average": [round(load_before, 2), round(os.getloadavg()[0], 2)],
    }
    tests = _tests(done.stdout)
    if tests is not None:
        entry["tests"] = tests
    return entry


def _machine() -> dict[str, Any]:
    model = "unknown"
    cpuinfo = Path("/proc/cpuinfo")
    if cpuinfo.exists():
        for line in cpuinfo.read_text(encoding="utf-8").splitlines():
            if line.startswith("model name"):
                model = line.split(":", 1)[1].strip()
                break
    return {
        "cpus": os.cpu_count(),
        "cpu_model": model,
        "python": platform.python_version(),
    }


def main() -> int:
    """Measure the chosen commands and write the file."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--only",
        type=int,
        action="append",
        choices=range(1, len(COMMANDS) + 1),
        help="measure this command (1-based, as README lists them); repeatable",
    )
    args = parser.parse_args()
    chosen = set(args.only or range(1, len(COMMANDS) + 1))
    kept: dict[str, Any] = {}
    if OUT.exists():
        old = json.loads(OUT.read_text(encoding="utf-8"))
        kept = {entry["command"]: entry for entry in old["commands"]}
    commands = []
    for number, (command, steps) in enumerate(COMMANDS, start=1):
        if number in chosen:
            entry = {"command": command, "steps": [measure(step) for step in steps]}
        elif command in kept:
            entry = kept[command]
        else:
            msg = f"no measurement of {command!r} yet: run with --only {number}"
            raise SystemExit(msg)
        commands.append(entry)
    data = {"source": SOURCE, "machine": _machine(), "commands": commands}
    OUT.write_text(json.dumps(data, indent=1) + "\n", encoding="utf-8")
    sys.stdout.write(f"wrote {OUT.relative_to(ROOT)}\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
