"""Resource allowances come from the file's length, never from its disk blocks."""

from __future__ import annotations

import struct
from typing import TYPE_CHECKING

from stspec_conformance._limits import (
    CPU_BYTES_PER_SECOND,
    DATA_FACTOR,
    HEADER_CPU_BYTES_PER_SECOND,
    HEADER_FACTOR,
    Limits,
)

if TYPE_CHECKING:
    from pathlib import Path

MIB = 1024 * 1024


def _file(path: Path, header: bytes, size: int, *, sparse: bool) -> Path:
    prefix = struct.pack("<Q", len(header)) + header
    with path.open("wb") as file:
        file.write(prefix)
        if sparse:
            file.truncate(size)
        else:
            file.write(b"\x01" * (size - len(prefix)))
    return path


def test_sparse_and_dense_storage_get_the_same_allowance(tmp_path: Path) -> None:
    header = b'{"t":{"dtype":"U8","shape":[8000000],"data_offsets":[0,8000000]}}'
    size = 8 + len(header) + 8_000_000
    sparse = _file(tmp_path / "sparse", header, size, sparse=True)
    dense = _file(tmp_path / "dense", header, size, sparse=False)
    if hasattr(sparse.stat(), "st_blocks"):
        assert sparse.stat().st_blocks < dense.stat().st_blocks
    limits = Limits()
    assert limits.for_file(sparse) == limits.for_file(dense)
    allowance = limits.for_file(dense)
    assert allowance.memory == (
        64 * MIB + HEADER_FACTOR * len(header) + DATA_FACTOR * (size - len(header))
    )
    assert allowance.cpu_seconds == (
        10 + size / CPU_BYTES_PER_SECOND + len(header) / HEADER_CPU_BYTES_PER_SECOND
    )


def test_claims_beyond_the_file_earn_nothing(tmp_path: Path) -> None:
    # 16 bytes claiming a 2^64-byte header: the allowance is the budget plus
    # what 16 bytes may cost, not what they claim
    path = tmp_path / "claims"
    path.write_bytes(struct.pack("<Q", 2**64 - 1) + b"{}      ")
    allowance = Limits(memory_budget=0).for_file(path)
    assert allowance.memory == (HEADER_FACTOR + DATA_FACTOR) * 8  # 16 bytes
    assert allowance.cpu_seconds < 10.001


def test_the_wall_clock_backstop_scales_with_the_cpu_limit(tmp_path: Path) -> None:
    path = _file(tmp_path / "big", b"{}", 640 * MIB, sparse=True)
    allowance = Limits(cpu_seconds=10, wall_seconds=60).for_file(path)
    header = 2 / HEADER_CPU_BYTES_PER_SECOND  # the header "{}"
    assert allowance.cpu_seconds == 20 + header
    assert allowance.wall_seconds == 60 + 3 * (10 + header)
    assert allowance.cpu_rlimit() == 21  # whole seconds, rounded up
