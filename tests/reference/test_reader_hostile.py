"""Hostile input costs little: sizes are checked before anything is allocated."""

from __future__ import annotations

import tracemalloc
from typing import TYPE_CHECKING

import pytest
from stfiles import entry, file_from, file_of

import stspec

if TYPE_CHECKING:
    from pathlib import Path

ONE_MB = 1 << 20

HOSTILE = [
    pytest.param(b"\xff" * 8 + b"\0" * 8, id="16-byte-file-claiming-2^64-1"),
    pytest.param(
        file_from({"a": entry("U8", [2**50, 2**50, 2**50, 2**50], 0, 0)}),
        id="shape-product-2^200",
    ),
    pytest.param(
        file_from({"a": entry("U8", [2**64 - 1] * 5000, 0, 0)}), id="5000-huge-dims"
    ),
    pytest.param(
        file_of(
            b'{"a":{"dtype":"U8","shape":' + b"[" * 100_000 + b"]" * 100_000 + b"}}"
        ),
        id="nesting-bomb",
    ),
    pytest.param(
        file_of(
            b'{"a":{"dtype":"U8","shape":['
            + b"7" * 10_000
            + b'],"data_offsets":[0,0]}}'
        ),
        id="10000-digit-integer",
    ),
    pytest.param(
        file_from({"a": entry("U8", [1], 0, 2**64 - 1)}, b"x"), id="offset-2^64-1"
    ),
]


@pytest.mark.parametrize("data", HOSTILE)
def test_hostile_file_is_rejected_with_little_memory(data: bytes) -> None:
    tracemalloc.start()
    try:
        errors = stspec.validate(data)
        with pytest.raises(stspec.SafetensorsError):
            stspec.read(data)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert errors
    # Memory follows the bytes actually present, never the sizes they claim.
    assert peak < len(data) * 16 + ONE_MB // 4


@pytest.mark.parametrize("data", HOSTILE[:2])
def test_tiny_file_claiming_huge_sizes_allocates_well_under_a_megabyte(
    data: bytes,
) -> None:
    tracemalloc.start()
    try:
        with pytest.raises(stspec.SafetensorsError):
            stspec.read(data)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < ONE_MB // 16


def test_deep_nesting_never_raises_recursion_error() -> None:
    data = file_of(b'{"a":' + b"[" * 1_000_000 + b"]" * 1_000_000 + b"}")
    assert [error.rule for error in stspec.validate(data)] == ["JSON-DEPTH"]


def test_nesting_of_exactly_127_levels_parses() -> None:
    # 127 levels: the header object, the unknown member's object, 125 arrays.
    deep = "[" * 125 + "]" * 125
    data = file_of(
        '{"a":{"dtype":"U8","shape":[1],"data_offsets":[0,1],"x":' + deep + "}}", b"x"
    )
    assert [error.rule for error in stspec.validate(data)] == ["ENTRY-UNKNOWN"]
    deeper = "[" * 126 + "]" * 126
    data = file_of(
        '{"a":{"dtype":"U8","shape":[1],"data_offsets":[0,1],"x":' + deeper + "}}", b"x"
    )
    assert [error.rule for error in stspec.validate(data)] == ["JSON-DEPTH"]


def test_header_at_the_limit_is_read(tmp_path: Path) -> None:
    path = tmp_path / "limit.safetensors"
    with path.open("wb") as file:
        file.write((100_000_000).to_bytes(8, "little") + b"{}")
        file.write(b" " * (100_000_000 - 2))
    with stspec.read(path) as handle:
        assert handle.header_length == 100_000_000
        assert len(handle.tensors) == 0
