"""Write files: stspec.write vs HF safetensors.numpy.save_file, same tensors.

Run: python bench/bench_write.py [--repeat 5] [--big-mib 1024] [--tiny 10000]
Two workloads: a few large tensors (256 x 4 MiB F32 = 1 GiB by default), where
the cost is moving bytes and fsync, and many tiny ones, where it is building the
header.  Prints the median and minimum of each writer and the ratio stspec / HF.
Not run in CI: timings belong in a benchmark, not in a test.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np
from safetensors.numpy import save_file

import stspec
from stspec.numpy import from_numpy

if TYPE_CHECKING:
    from collections.abc import Callable

_MIB = 1 << 20
_CHUNK = 4 * _MIB  # bytes per large tensor


def _measure(
    functions: dict[str, Callable[[], None]], repeat: int
) -> dict[str, list[float]]:
    """Time each function ``repeat`` times, alternating so both see the same load."""
    times: dict[str, list[float]] = {name: [] for name in functions}
    for _ in range(repeat):
        for name, function in functions.items():
            start = time.perf_counter()
            function()
            times[name].append(time.perf_counter() - start)
    return times


def _compare(title: str, arrays: dict[str, np.ndarray], repeat: int) -> None:
    tensors = {name: from_numpy(array) for name, array in arrays.items()}
    with tempfile.TemporaryDirectory() as tmp:
        hf_path, our_path = Path(tmp) / "hf.safetensors", Path(tmp) / "ours.safetensors"

        def hf() -> None:
            save_file(arrays, str(hf_path))

        def ours() -> None:
            stspec.write(our_path, tensors)

        times = _measure({"hf": hf, "ours": ours}, repeat)
        same = hf_path.read_bytes() == our_path.read_bytes()
        size = our_path.stat().st_size
    print(f"{title}: {len(arrays):,} tensors, {size:,} bytes, identical: {same}")
    for label, key in (("HF save_file", "hf"), ("stspec.write", "ours")):
        print(
            f"  {label:14} median {statistics.median(times[key]) * 1000:9.1f} ms"
            f"   min {min(times[key]) * 1000:9.1f} ms"
        )
    median_ratio = statistics.median(times["ours"]) / statistics.median(times["hf"])
    min_ratio = min(times["ours"]) / min(times["hf"])
    print(f"  ratio stspec / HF: median {median_ratio:.2f}x   min {min_ratio:.2f}x")


def main() -> int:
    """Build both workloads, time both writers and print the ratios."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--big-mib", type=int, default=1024)
    parser.add_argument("--tiny", type=int, default=10_000)
    args = parser.parse_args()
    rng = np.random.default_rng(0)
    big = {
        f"layers.{index}.weight": rng.random(_CHUNK // 4, dtype=np.float32)
        for index in range(args.big_mib * _MIB // _CHUNK)
    }
    _compare("large", big, args.repeat)
    del big
    tiny = {
        f"model.layers.{index}.bias": np.full(2, index, dtype=np.float32)
        for index in range(args.tiny)
    }
    _compare("tiny", tiny, args.repeat)
    return 0


if __name__ == "__main__":
    sys.exit(main())
