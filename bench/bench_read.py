"""Open + fully validate a header of many tensors: stspec.read vs HF safe_open.

Run: python bench/bench_read.py [--tensors 100000] [--repeat 7]
Prints the median of each and the ratio stspec / HF.  Not run in CI: timings
belong in a benchmark, not in a test.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
from safetensors import safe_open
from safetensors.numpy import save_file

import stspec


def _measure(
    functions: dict[str, object], repeat: int
) -> dict[str, tuple[list[float], list[float]]]:
    """Time each function ``repeat`` times, alternating so both see the same load.

    Gives wall and CPU (this process, all threads) seconds per call: on a
    loaded machine the CPU time is the steadier measure of the work done.
    """
    times: dict[str, tuple[list[float], list[float]]] = {
        name: ([], []) for name in functions
    }
    for _ in range(repeat):
        for name, function in functions.items():
            cpu = time.process_time()
            start = time.perf_counter()
            function()  # type: ignore[operator]
            times[name][0].append(time.perf_counter() - start)
            times[name][1].append(time.process_time() - cpu)
    return times


def main() -> int:
    """Build the file, time both readers and print the ratio."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--tensors", type=int, default=100_000)
    parser.add_argument("--repeat", type=int, default=15)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "many.safetensors"
        tensors = {
            f"model.layers.{i}.weight": np.zeros((2,), dtype=np.float32)
            for i in range(args.tensors)
        }
        save_file(tensors, str(path))
        print(f"file: {args.tensors} tensors, {path.stat().st_size:,} bytes")

        def hf() -> None:
            with safe_open(str(path), framework="numpy") as handle:
                handle.keys()

        def ours() -> None:
            with stspec.read(path) as handle:
                list(handle.tensors)

        times = _measure({"hf": hf, "ours": ours}, args.repeat)
    for label, key in (
        ("HF safetensors safe_open + keys()", "hf"),
        ("stspec.read", "ours"),
    ):
        wall, cpu = times[key]
        print(
            f"{label:36} median {statistics.median(wall) * 1000:7.1f} ms"
            f"   min {min(wall) * 1000:7.1f} ms"
            f"   CPU median {statistics.median(cpu) * 1000:7.1f} ms"
        )
    (ours_wall, ours_cpu), (hf_wall, hf_cpu) = times["ours"], times["hf"]
    median_ratio = statistics.median(ours_wall) / statistics.median(hf_wall)
    min_ratio = min(ours_wall) / min(hf_wall)
    cpu_ratio = statistics.median(ours_cpu) / statistics.median(hf_cpu)
    print(f"ratio stspec / HF: median {median_ratio:.2f}x   min {min_ratio:.2f}x")
    print(f"ratio stspec / HF, CPU time: median {cpu_ratio:.2f}x")
    return 0


if __name__ == "__main__":
    sys.exit(main())
