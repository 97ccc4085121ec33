"""Check a folder of model shards: `stspec check` vs reading the headers with HF.

Run: python bench/bench_folder.py [--files 50] [--tensors 144] [--repeat 15]

Two measurements, both in one run so that they see the same machine load:

1. Per file, in one process: what `stspec check` does for each file
   (stspec.audit.check.check_file: open, validate the header, summarise) against HF
   safetensors `safe_open` + `keys()` + `metadata()`, interleaved; CPU time
   per file and the ratio stspec / HF.  `stspec.read(path, mapped=False)`
   alone is shown too, to separate the reader from the command's own work.
2. Whole commands, each a fresh process: `stspec check -q -j 1` and `-j N`
   (N = the CPUs available) on the folder, and a Python script doing HF's
   header read for every file; wall time and the speed-up with processes.
   The same is repeated on a folder whose headers are --big-tensors long, where
   validation rather than start-up dominates.

The shards are sparse (headers only on disk): like a real Llama layer set,
144 BF16 tensors of realistic names and shapes per file by default.  Not run
in CI: timings belong in a benchmark, not in a test.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import TYPE_CHECKING

from safetensors import safe_open

import stspec
from stspec.audit.check import Task, check_file, default_jobs

if TYPE_CHECKING:
    from collections.abc import Callable

# One decoder layer of a Llama-style 8B model: (tensor, shape); the remote
# benchmark builds its shards from the same table.
LAYER = (
    ("self_attn.q_proj.weight", [4096, 4096]),
    ("self_attn.k_proj.weight", [1024, 4096]),
    ("self_attn.v_proj.weight", [1024, 4096]),
    ("self_attn.o_proj.weight", [4096, 4096]),
    ("mlp.gate_proj.weight", [14336, 4096]),
    ("mlp.up_proj.weight", [14336, 4096]),
    ("mlp.down_proj.weight", [4096, 14336]),
    ("input_layernorm.weight", [4096]),
    ("post_attention_layernorm.weight", [4096]),
)
_HF_SCRIPT = """
import sys
from safetensors import safe_open
for path in sys.argv[1:]:
    with safe_open(path, framework="numpy") as handle:
        handle.keys()
        handle.metadata()
"""


def _write_folder(folder: Path, files: int, tensors: int) -> int:
    """Write ``files`` sparse shards of ``tensors`` BF16 tensors; return N."""
    folder.mkdir()
    entries: dict[str, object] = {"__metadata__": {"format": "pt"}}
    offset = 0
    for number in range(tensors):
        part, shape = LAYER[number % len(LAYER)]
        size = 2
        for dim in shape:
            size *= dim
        entries[f"model.layers.{number // len(LAYER)}.{part}"] = {
            "dtype": "BF16",
            "shape": shape,
            "data_offsets": [offset, offset + size],
        }
        offset += size
    raw = json.dumps(entries, separators=(",", ":")).encode()
    raw += b" " * (-len(raw) % 8)
    for number in range(files):
        path = folder / f"model-{number + 1:05d}-of-{files:05d}.safetensors"
        with path.open("wb") as file:
            file.write(len(raw).to_bytes(8, "little") + raw)
            file.truncate(8 + len(raw) + offset)
    stspec.validate(path)  # the reference accepts it (raises on an I/O error)
    with safe_open(str(path), framework="numpy") as handle:
        assert len(handle.keys()) == tensors
    return len(raw)


def _ways(paths: list[str]) -> dict[str, Callable[[], None]]:
    def hf() -> None:
        for path in paths:
            with safe_open(path, framework="numpy") as handle:
                handle.keys()
                handle.metadata()

    def check() -> None:
        for path in paths:
            check_file(Task(path, path, every=False, holdings=False))

    def reader() -> None:
        for path in paths:
            with stspec.read(path, mapped=False):
                pass

    return {"hf": hf, "check": check, "read": reader}


def _per_file(paths: list[str], repeat: int) -> dict[str, list[float]]:
    """CPU seconds per file of each way to read the folder, interleaved rounds."""
    ways = _ways(paths)
    times: dict[str, list[float]] = {name: [] for name in ways}
    for way in ways.values():
        way()  # warm: page cache, imports, first-call costs
    for round_ in range(repeat):
        order = list(ways.items())
        if round_ % 2:
            order.reverse()
        for name, way in order:
            # Each timed pass follows an untimed pass of itself.  In the
            # alternating order alone, check_file (in the middle) never
            # followed itself and half the time followed HF's read, and
            # measured 5 to 10 microseconds per file more than after a pass
            # of itself; read() and HF, which followed themselves half the
            # time, measured about the same either way.
            way()
            start = time.process_time()
            way()
            times[name].append((time.process_time() - start) / len(paths))
    return times


def _command(argv: list[str], repeat: int) -> tuple[list[float], list[float]]:
    """Wall and CPU seconds (children's user + system) of a command, per run."""
    walls, cpus = [], []
    for _ in range(repeat):
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        start = time.perf_counter()
        subprocess.run(argv, check=True, stdout=subprocess.DEVNULL)  # noqa: S603
        walls.append(time.perf_counter() - start)
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpus.append(after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime)
    return walls, cpus


def _commands(folder: Path, repeat: int, jobs: int) -> None:
    paths = sorted(str(path) for path in folder.iterdir())
    stspec_cmd = [sys.executable, "-m", "stspec", "check", "-q"]
    argvs = {
        "stspec check -j 1": [*stspec_cmd, "-j", "1", str(folder)],
        f"stspec check -j {jobs}": [*stspec_cmd, "-j", str(jobs), str(folder)],
        "HF script (safe_open)": [sys.executable, "-c", _HF_SCRIPT, *paths],
    }
    results: dict[str, tuple[list[float], list[float]]] = {
        name: ([], []) for name in argvs
    }
    for round_ in range(repeat):
        order = list(argvs.items())
        if round_ % 2:
            order.reverse()
        for name, argv in order:
            walls, cpus = _command(argv, 1)
            results[name][0].extend(walls)
            results[name][1].extend(cpus)
    for name, (walls, cpus) in results.items():
        wall, fastest, cpu = (
            statistics.median(walls),
            min(walls),
            statistics.median(cpus),
        )
        print(
            f"  {name:24} wall median {wall * 1000:8.1f} ms   min "
            f"{fastest * 1000:8.1f} ms   cpu {cpu * 1000:8.1f} ms"
        )
    one = results["stspec check -j 1"][0]
    many = results[f"stspec check -j {jobs}"][0]
    hf = results["HF script (safe_open)"][0]
    speed_up = statistics.median(one) / statistics.median(many)
    print(
        f"  speed-up -j {jobs} over -j 1: median {speed_up:.2f}x"
        f"   min {min(one) / min(many):.2f}x   (ideal {jobs}x)"
    )
    cpu_ratio = _cpu(results, "stspec check -j 1") / _cpu(
        results, "HF script (safe_open)"
    )
    print(
        f"  stspec check -j 1 / HF script: median "
        f"{statistics.median(one) / statistics.median(hf):.2f}x wall, "
        f"{cpu_ratio:.2f}x CPU"
    )
    # The pool's own cost: what -j N spends beyond -j 1 in all its processes.
    # With as many free cores, the wall time would be the CPU time over N.
    extra = _cpu(results, f"stspec check -j {jobs}") / _cpu(
        results, "stspec check -j 1"
    )
    print(
        f"  CPU of all processes, -j {jobs} / -j 1: {extra:.2f}x"
        f"   (speed-up on {jobs} free cores at most {jobs / extra:.2f}x)"
    )


def _cpu(results: dict[str, tuple[list[float], list[float]]], name: str) -> float:
    return statistics.median(results[name][1])


def main() -> int:
    """Build the folders, run both measurements, print ratios."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--files", type=int, default=50)
    parser.add_argument("--tensors", type=int, default=144)
    parser.add_argument("--big-tensors", type=int, default=20_000)
    parser.add_argument("--repeat", type=int, default=15)
    parser.add_argument("--command-repeat", type=int, default=7)
    parser.add_argument("--jobs", type=int, default=default_jobs())
    args = parser.parse_args()
    print(f"{os.cpu_count()} CPUs, load average {os.getloadavg()[0]:.1f}")
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp) / "small"
        header = _write_folder(folder, args.files, args.tensors)
        paths = sorted(str(path) for path in folder.iterdir())
        print(
            f"\n1. per file, one process: {args.files} files of {args.tensors} "
            f"tensors ({header:,}-byte headers), {args.repeat} interleaved rounds"
        )
        times = _per_file(paths, args.repeat)
        hf = statistics.median(times["hf"])
        for name, label in (
            ("hf", "HF safe_open + keys + metadata"),
            ("check", "stspec check (check_file)"),
            ("read", "stspec.read(mapped=False)"),
        ):
            median = statistics.median(times[name])
            print(
                f"  {label:32} {median * 1000:6.3f} ms CPU per file"
                f"   ratio to HF {median / hf:.2f}x"
            )
        print(f"\n2. whole commands on that folder, {args.command_repeat} rounds")
        _commands(folder, args.command_repeat, args.jobs)
        big = Path(tmp) / "big"
        header = _write_folder(big, args.files, args.big_tensors)
        print(
            f"\n3. whole commands, {args.files} files of {args.big_tensors} tensors "
            f"({header:,}-byte headers)"
        )
        _commands(big, args.command_repeat, args.jobs)
    return 0


if __name__ == "__main__":
    sys.exit(main())
