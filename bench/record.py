"""Run a benchmark script and keep what it printed, with the machine it ran on.

Run: python bench/record.py OUT.json -- python bench/bench_read.py --repeat 5

Writes OUT.json: the command, its output lines, every line giving a ratio
(``1.23x``), the date, the machine (CPUs, model, Python, platform) and the load
average before and after, so that two runs (before and after a change) can be
compared knowing what the machine was doing.  Not run in CI.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import platform
import re
import subprocess
import sys
from pathlib import Path

# A line that gives a ratio: "... 1.23x ..."
_RATIO = re.compile(r"\d\.\d+x\b")


def _cpu_model() -> str:
    try:
        text = Path("/proc/cpuinfo").read_text(encoding="utf-8")
    except OSError:
        return platform.processor()
    for line in text.splitlines():
        if line.startswith("model name"):
            return line.partition(":")[2].strip()
    return platform.processor()


def main() -> int:
    """Run the command, write the record, echo the output."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("out", type=Path)
    parser.add_argument("command", nargs=argparse.REMAINDER)
    args = parser.parse_args()
    command = [part for part in args.command if part != "--"] or parser.error(
        "no command"
    )
    load_before = os.getloadavg()
    started = dt.datetime.now(dt.UTC)
    done = subprocess.run(command, capture_output=True, text=True, check=False)  # noqa: S603
    load_after = os.getloadavg()
    sys.stdout.write(done.stdout)
    sys.stderr.write(done.stderr)
    lines = done.stdout.splitlines()
    record = {
        "command": command,
        "returncode": done.returncode,
        "date": started.isoformat(timespec="seconds"),
        "seconds": round((dt.datetime.now(dt.UTC) - started).total_seconds(), 1),
        "machine": {
            "cpus": os.cpu_count(),
            "cpu_model": _cpu_model(),
            "python": platform.python_version(),
            "platform": platform.platform(),
        },
        "load_average_before": [round(value, 2) for value in load_before],
        "load_average_after": [round(value, 2) for value in load_after],
        "ratios": [line.strip() for line in lines if _RATIO.search(line)],
        "output": lines,
    }
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(record, indent=2) + "\n", encoding="utf-8")
    return done.returncode


if __name__ == "__main__":
    sys.exit(main())
