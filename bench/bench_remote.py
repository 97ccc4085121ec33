"""Audit a 100-shard model over HTTP: `stspec check hf://` vs huggingface_hub.

Run: python bench/bench_remote.py [--shards 100] [--shard-mb 64] [--repeat 5]
         [--hf-python /path/to/python-with-huggingface_hub]

A loopback Hub (tests/cli/hub_server.py) serves one sharded model: --shards
sparse shards of --shard-mb MiB, each with a Llama layer's header (9 BF16
tensors), and the index.  Two clients read every shard's header, interleaved,
in the same run:

* stspec: ``stspec check -q hf://bench/model`` (HF_ENDPOINT = the loopback
  Hub), and its public function ``stspec.audit.cli.main`` on the same
  arguments;
* huggingface_hub's ``get_safetensors_metadata("bench/model")``, as its users
  call it (a HEAD per candidate file, the index downloaded, then one Range
  request of 100,000 bytes per shard, in threads).

Each is timed twice: as a whole process (start-up and imports included), and
as the call alone in a process of its own, with its HTTP client loaded before
the clock starts (huggingface_hub loads httpx when the function is imported;
stspec loads http.client when a remote check starts, so the bench imports it
first).  Printed: the bytes, requests, connections and CPU time each cost
the server (it runs in the bench's process), the median wall and CPU time of
each client (a process's CPU time includes the processes it waited for), and
the ratios stspec / huggingface_hub (below 1.00x: stspec is faster).

stspec makes three requests per shard: the Hub's redirect from ``/resolve``,
the 8-byte prefix, then exactly the N bytes of header the prefix announces (a
remote check never reads more than 8 + N bytes of a file; a first request
cannot ask for more than 8 without risking tensor bytes).  huggingface_hub
makes two: the redirect, then 100,000 bytes, whatever the header's length.

huggingface_hub is not a dependency of the project: give a Python that has it
(the matrix's environment for row hf-hub-py-http has it).  Not run in CI:
timings belong in a benchmark, not in a test.
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

sys.path.insert(0, str(Path(__file__).parents[1] / "tests"))

from bench_folder import LAYER
from cli.hub_server import HubServer

import stspec

_HF_SCRIPT = """
import sys, time
from huggingface_hub import get_safetensors_metadata
wall, cpu = time.perf_counter(), time.process_time()
found = get_safetensors_metadata(sys.argv[1])
wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
assert len(found.files_metadata) == int(sys.argv[2]), len(found.files_metadata)
print(wall, cpu)
"""
# The same for stspec's public function: a pool of processes it started and
# waited for counts in its CPU time (RUSAGE_CHILDREN).
_STSPEC_SCRIPT = """
import resource, sys, time
from stspec.audit.cli import main
import stspec.audit.standins  # http.client, as huggingface_hub's import loads httpx
wall, cpu = time.perf_counter(), time.process_time()
status = main(["check", "-q", sys.argv[1]])
wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
children = resource.getrusage(resource.RUSAGE_CHILDREN)
assert status == 0, status
print(wall, cpu + children.ru_utime + children.ru_stime)
"""


class _Timing:
    """One client's times: whole processes, and its call alone."""

    def __init__(self) -> None:
        self.process: list[tuple[float, float]] = []  # (wall, CPU)
        self.call: list[tuple[float, float]] = []

    def median(self, kind: str) -> tuple[float, float]:
        pairs = self.process if kind == "process" else self.call
        return (
            statistics.median(wall for wall, _ in pairs),
            statistics.median(cpu for _, cpu in pairs),
        )


def _model(folder: Path, shards: int, shard_bytes: int) -> int:
    """Write the sparse shards and the index; return the model's size."""
    weight_map = {}
    total = 0
    tensor_bytes = 0
    for number in range(shards):
        name = f"model-{number + 1:05d}-of-{shards:05d}.safetensors"
        header: dict[str, object] = {"__metadata__": {"format": "pt"}}
        offset = 0
        for position, (tensor, shape) in enumerate(LAYER):
            size = 2 * _product(shape) // 64  # a sixty-fourth: shards stay small
            if position == len(LAYER) - 1:  # the last fills the shard
                size = max(size, shard_bytes - offset)
            key = f"model.layers.{number}.{tensor}"
            header[key] = {
                "dtype": "BF16",
                "shape": [size // 2],
                "data_offsets": [offset, offset + size],
            }
            weight_map[key] = name
            offset += size
        text = json.dumps(header, separators=(",", ":")).encode()
        text += b" " * (-len(text) % 8)
        path = folder / name
        with path.open("wb") as file:
            file.write(len(text).to_bytes(8, "little") + text)
            file.truncate(8 + len(text) + offset)
        with path.open("rb") as file:
            stspec.validate(file.fileno(), mapped=False)
        total += path.stat().st_size
        tensor_bytes += offset
    index = {"metadata": {"total_size": tensor_bytes}, "weight_map": weight_map}
    (folder / "model.safetensors.index.json").write_text(json.dumps(index))
    return total


def _product(shape: list[int]) -> int:
    result = 1
    for dim in shape:
        result *= dim
    return result


def _child_cpu() -> float:
    used = resource.getrusage(resource.RUSAGE_CHILDREN)
    return used.ru_utime + used.ru_stime


def _run(command: list[str], env: dict[str, str]) -> tuple[tuple[float, float], str]:
    """Run a process; return its wall and CPU time, and what it printed."""
    wall, cpu = time.perf_counter(), _child_cpu()
    done = subprocess.run(  # noqa: S603 - this Python, or the one the user named
        command, check=False, env=env, capture_output=True, text=True
    )
    times = (time.perf_counter() - wall, _child_cpu() - cpu)
    if done.returncode:
        raise SystemExit(f"{command[:3]} failed:\n{done.stdout}{done.stderr}")
    return times, done.stdout


def _call(stdout: str) -> tuple[float, float]:
    wall, cpu = stdout.split()
    return float(wall), float(cpu)


def _hf(command: list[str], env: dict[str, str]) -> tuple[tuple[float, float], str]:
    with tempfile.TemporaryDirectory() as home:  # nothing cached between runs
        return _run(command, {**env, "HF_HOME": home})


class _Traffic:
    """What one client's run cost the server (which runs in this process)."""

    def __init__(self, hub: HubServer) -> None:
        self._hub = hub
        self._start = self._now()
        self.counts = (0, 0, 0, 0.0)  # bytes of files, requests, connections, CPU

    def _now(self) -> tuple[int, int, int, float]:
        hub = self._hub
        return (hub.sent, hub.requests, hub.connections, time.process_time())

    def __enter__(self) -> None:
        self._start = self._now()

    def __exit__(self, *_: object) -> None:
        now, start = self._now(), self._start
        self.counts = (
            now[0] - start[0],
            now[1] - start[1],
            now[2] - start[2],
            now[3] - start[3],
        )

    def line(self, name: str, size: int, shards: int) -> str:
        sent, requests, connections, cpu = self.counts
        return (
            f"{name}: {sent:,} bytes sent, {sent / size:.4%} of it; {requests} "
            f"requests ({requests / shards:.2f} per shard) on {connections} "
            f"connections, {cpu:.3f} s of the server's CPU"
        )


def main() -> int:
    """Build the model, serve it, time both clients, print the ratios."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--shards", type=int, default=100)
    parser.add_argument("--shard-mb", type=int, default=64)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument(
        "--hf-python",
        default=os.environ.get("HF_PYTHON", "/work/mx/hf-hub-py-http/venv/bin/python"),
        help="a Python with huggingface_hub (default: HF_PYTHON, else the "
        "matrix's environment)",
    )
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as scratch:
        folder = Path(scratch) / "model"
        folder.mkdir()
        size = _model(folder, args.shards, args.shard_mb << 20)
        with HubServer({"bench/model": folder}, hashed=False) as hub:
            env = {
                **os.environ,
                "HF_ENDPOINT": hub.url,
                "HF_HUB_DISABLE_TELEMETRY": "1",
                "HF_HUB_OFFLINE": "0",
            }
            env.pop("HF_TOKEN", None)
            # An installed package has its bytecode compiled (pip does it, as
            # it did huggingface_hub's): let stspec's be cached as well.
            env.pop("PYTHONDONTWRITEBYTECODE", None)
            ours, theirs = _Timing(), _Timing()
            sent_ours, sent_theirs = _Traffic(hub), _Traffic(hub)
            stspec = [sys.executable, "-m", "stspec", "check", "-q", "hf://bench/model"]
            stspec_call = [sys.executable, "-c", _STSPEC_SCRIPT, "hf://bench/model"]
            hf = [args.hf_python, "-c", _HF_SCRIPT, "bench/model", str(args.shards)]
            for _ in range(args.repeat):
                with sent_ours:  # the call's traffic is the same
                    ours.process.append(_run(stspec, env)[0])
                ours.call.append(_call(_run(stspec_call, env)[1]))
                with sent_theirs:
                    theirs.process.append(_hf(hf, env)[0])
                theirs.call.append(_call(_hf(hf, env)[1]))
    print(f"model: {args.shards} shards, {size:,} bytes")
    print(sent_ours.line("stspec check hf://", size, args.shards))
    print(sent_theirs.line("huggingface_hub", size, args.shards))
    for kind, what in (
        ("process", "processes"),
        ("call", "calls, each in a process of its own, imports done"),
    ):
        (wall, cpu), (hf_wall, hf_cpu) = ours.median(kind), theirs.median(kind)
        print(
            f"{what}, median of {args.repeat}: stspec {wall:.3f} s wall, "
            f"{cpu:.3f} s CPU; huggingface_hub {hf_wall:.3f} s wall, {hf_cpu:.3f} s CPU"
        )
        print(
            f"stspec / huggingface_hub, {kind}: {wall / hf_wall:.2f}x wall, "
            f"{cpu / hf_cpu:.2f}x CPU"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
