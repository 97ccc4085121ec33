"""Kill stspec.write at random moments: what is left on disk.

Run: python bench/bench_write_kills.py [--runs 24] [--mib 64]
Each run starts a fresh interpreter that replaces an existing file with a
new one of MIB MiB and is killed (SIGKILL, then SIGTERM) at a random moment
within the time an undisturbed write takes, once with the unnamed temporary
file (O_TMPFILE, Linux) and once with the named fallback.  Counts the old
file intact, the new one complete, anything else (corrupt), and leftover
files beside it.  tests/writer/test_write_kills.py checks every step
deterministically; this is the field report's experiment, repeatable.
"""

from __future__ import annotations

import argparse
import os
import random
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import stspec

CHILD = """
import sys
import stspec
from stspec.writer import atomic as _atomic
if sys.argv[3] == "named":
    _atomic._O_TMPFILE = 0
data = bytes(int(sys.argv[2]) << 20)
print("ready", flush=True)
stspec.write(sys.argv[1], {"w": ("U8", [len(data)], data)})
"""


def _start(path: Path, mib: int, how: str) -> subprocess.Popen[str]:
    child = subprocess.Popen(  # noqa: S603 - our own interpreter and script
        [sys.executable, "-c", CHILD, str(path), str(mib), how],
        stdout=subprocess.PIPE,
        text=True,
    )
    assert child.stdout is not None
    assert child.stdout.readline() == "ready\n"
    return child


def _duration(folder: Path, mib: int, how: str) -> float:
    path = folder / "timing.safetensors"
    child = _start(path, mib, how)
    start = time.perf_counter()
    child.wait()
    elapsed = time.perf_counter() - start
    path.unlink()
    return elapsed


def _trial(
    path: Path, write: tuple[int, str], signum: int, delay: float, old: bytes
) -> tuple[bytes, int]:
    """Kill one write; return the destination's bytes and how many files it left."""
    path.write_bytes(old)
    before = set(path.parent.iterdir())
    child = _start(path, *write)
    time.sleep(delay)
    child.send_signal(signum)
    child.wait()
    return path.read_bytes(), len(set(path.parent.iterdir()) - before)


def main() -> int:
    """Run the trials and print one line per temporary-file kind and signal."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--runs", type=int, default=24)
    parser.add_argument("--mib", type=int, default=64)
    args = parser.parse_args()
    old = b"the previous content"
    data = bytes(args.mib << 20)
    new = stspec.serialize({"w": ("U8", [len(data)], data)})
    rng = random.Random(1)  # noqa: S311 - when to kill, not a secret
    with tempfile.TemporaryDirectory(dir=os.environ.get("BENCH_DIR")) as tmp:
        folder = Path(tmp)
        for how in ("unnamed", "named"):
            took = _duration(folder, args.mib, how)
            for signum in (signal.SIGKILL, signal.SIGTERM):
                path = folder / "model.safetensors"
                counts = {"old": 0, "new": 0, "corrupt": 0}
                leaving = 0
                for _ in range(args.runs):
                    delay = rng.uniform(0, 0.9 * took)
                    content, left = _trial(path, (args.mib, how), signum, delay, old)
                    outcome = {old: "old", new: "new"}.get(content, "corrupt")
                    counts[outcome] += 1
                    leaving += left > 0
                # What the kills left stays until one undisturbed write ends.
                stale = len(list(folder.iterdir())) - 1
                _start(path, args.mib, how).wait()
                remain = len(list(folder.iterdir())) - 1
                print(
                    f"{how:<8} {signal.Signals(signum).name:<8} x{args.runs}: "
                    f"old {counts['old']}, new {counts['new']}, corrupt "
                    f"{counts['corrupt']}; kills that left a file: {leaving}; "
                    f"files left {stale}, after the next write {remain}"
                )
            print(f"  (an undisturbed {how} write took {took * 1000:.0f} ms)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
