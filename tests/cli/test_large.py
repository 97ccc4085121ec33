"""A 1 GiB single-file model: checked from its header, in little memory."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from typing import TYPE_CHECKING

import pytest

if TYPE_CHECKING:
    from collections.abc import Iterator
    from pathlib import Path

GIB = 1 << 30
TENSORS = 4  # U8 tensors of 256 MiB each


@pytest.fixture
def big(tmp_path: Path) -> Iterator[Path]:
    """A valid 1 GiB file whose blocks are allocated, not a sparse hole.

    posix_fallocate reserves real blocks without writing them, so the file
    costs the disk what a downloaded model costs and the test no time.
    """
    size = GIB // TENSORS
    header = {
        "__metadata__": {"format": "pt"},
        **{
            f"layers.{n}.weight": {
                "dtype": "U8",
                "shape": [size],
                "data_offsets": [n * size, (n + 1) * size],
            }
            for n in range(TENSORS)
        },
    }
    raw = json.dumps(header, separators=(",", ":")).encode()
    raw += b" " * (-len(raw) % 8)
    path = tmp_path / "model.safetensors"
    with path.open("wb") as file:
        file.write(len(raw).to_bytes(8, "little") + raw)
        file.flush()
        total = 8 + len(raw) + GIB
        try:
            os.posix_fallocate(file.fileno(), 0, total)
        except OSError:  # a file system without fallocate: write the zeros
            file.truncate(total)
            file.seek(8 + len(raw))
            for _ in range(GIB // (1 << 24)):
                file.write(bytes(1 << 24))
    assert path.stat().st_blocks * 512 >= GIB  # not sparse
    yield path
    path.unlink()  # 1 GiB is too much to leave to pytest's cleanup


def test_a_1_gib_model_is_checked_in_little_memory_and_time(big: Path) -> None:
    # A fresh parent, so that the children's peak RSS is this command's alone.
    probe = (
        "import resource, subprocess, sys\n"
        "result = subprocess.run(sys.argv[1:], capture_output=True, text=True)\n"
        "usage = resource.getrusage(resource.RUSAGE_CHILDREN)\n"
        "print(result.returncode, usage.ru_maxrss, usage.ru_utime + usage.ru_stime)\n"
        "print(result.stdout, end='')\n"
    )
    result = subprocess.run(
        [
            sys.executable,
            "-c",
            probe,
            sys.executable,
            "-m",
            "stspec",
            "check",
            "-s",
            str(big),
        ],
        capture_output=True,
        text=True,
        timeout=300,
        check=True,
    )
    first, *lines = result.stdout.splitlines()
    status, max_rss_kib, cpu_seconds = first.split()
    assert int(status) == 0
    assert lines[0] == f"{big}: valid (4 tensors, {big.stat().st_size} bytes)"
    assert lines[1] == f"  tensors     4 holding {GIB:,} parameters"
    assert lines[2] == "  dtypes      U8 1.1 GB (100.00%)"
    # Nothing of the gigabyte is read into memory (an interpreter is ~20 MB)...
    assert int(max_rss_kib) < 100 * 1024
    # ...and the check costs CPU for the header only (generous: loaded CI).
    assert float(cpu_seconds) < 10
