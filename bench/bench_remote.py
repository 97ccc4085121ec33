"""Audit a 100-shard model over HTTP: `stspec check hf://` vs huggingface_hub.

Run: python bench/bench_remote.py [--shards 100] [--shard-mb 64] [--repeat 5]
         [--hf-python /path/to/python-with-huggingface_hub]

A loopback Hub (tests/cli/hub_server.py) serves one sharded model: --shards
sparse shards of --shard-mb MiB, each with a Llama layer's header (9 BF16
tensors), and the index.  Two clients read every shard's header, each a fresh
process, interleaved, in the same run:

* ``stspec check -q hf://bench/model`` (HF_ENDPOINT = the loopback Hub);
* huggingface_hub's ``get_safetensors_metadata("bench/model")``, as its users
  call it (a HEAD per candidate file, the index downloaded, then one Range
  request of 100,000 bytes per shard, in threads).

Printed: the bytes each sent over the wire against the model's size, the median
wall time of each, and the ratio stspec / huggingface_hub (below 1.00x: stspec
is faster), for the whole process and for huggingface_hub's call alone (its
import left out).  huggingface_hub is not a dependency of the project: give a
Python that has it (the matrix's environment for row hf-hub-py-http has it).
Not run in CI: timings belong in a benchmark, not in a test.
"""

from __future__ import annotations

import argparse
import json
import os
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
t0 = time.perf_counter()
from huggingface_hub import get_safetensors_metadata
t1 = time.perf_counter()
found = get_safetensors_metadata(sys.argv[1])
t2 = time.perf_counter()
assert len(found.files_metadata) == int(sys.argv[2]), len(found.files_metadata)
print(t2 - t1)
"""


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


def _stspec(env: dict[str, str]) -> float:
    start = time.perf_counter()
    subprocess.run(
        [sys.executable, "-m", "stspec", "check", "-q", "hf://bench/model"],
        check=True,
        env=env,
        stdout=subprocess.DEVNULL,
    )
    return time.perf_counter() - start


def _hf(python: str, env: dict[str, str], shards: int) -> tuple[float, float]:
    with tempfile.TemporaryDirectory() as home:
        start = time.perf_counter()
        done = subprocess.run(  # noqa: S603 - the Python the user named
            [python, "-c", _HF_SCRIPT, "bench/model", str(shards)],
            check=False,
            env={**env, "HF_HOME": home},
            capture_output=True,
            text=True,
        )
        whole = time.perf_counter() - start
    if done.returncode:
        raise SystemExit(f"huggingface_hub failed:\n{done.stderr}")
    return whole, float(done.stdout.strip())


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
            ours, theirs, calls = [], [], []
            sent_ours, sent_theirs = 0, 0
            for _ in range(args.repeat):
                before = hub.sent
                ours.append(_stspec(env))
                sent_ours = hub.sent - before
                before = hub.sent
                whole, call = _hf(args.hf_python, env, args.shards)
                theirs.append(whole)
                calls.append(call)
                sent_theirs = hub.sent - before
    mine, hers, call = (statistics.median(x) for x in (ours, theirs, calls))
    share_ours, share_theirs = sent_ours / size, sent_theirs / size
    print(f"model: {args.shards} shards, {size:,} bytes")
    print(f"stspec check hf://: {sent_ours:,} bytes sent, {share_ours:.4%} of it")
    print(f"huggingface_hub: {sent_theirs:,} bytes sent, {share_theirs:.4%} of it")
    print(f"stspec check -q hf:// (process): {mine:.3f} s, median of {args.repeat}")
    print(f"get_safetensors_metadata (process): {hers:.3f} s; the call {call:.3f} s")
    print(f"stspec / huggingface_hub, processes: {mine / hers:.2f}x")
    print(f"stspec process / huggingface_hub call alone: {mine / call:.2f}x")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
