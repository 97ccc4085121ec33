"""One file checked: a small file judged whole gets the result read() gives."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

import pytest
from calls import python_calls, python_work

import stspec
from stspec.audit import small as _small
from stspec.audit.check import FileResult, Task, check_file

if TYPE_CHECKING:
    from pathlib import Path

FILES = {
    "one-tensor": ({"w": ("F32", [2, 3], bytes(24))}, {"format": "pt"}),
    "no-metadata": ({"w": ("BF16", [4], bytes(8))}, None),
    "empty-metadata": ({"w": ("U8", [1], b"x")}, {}),
    "mixed": (
        {
            "f4": ("F4", [6], bytes(3)),
            "mask": ("BOOL", [3], b"\x01\x00\x01"),
            "scalar": ("F32", [], bytes(4)),
            "empty": ("I64", [0, 5], b""),
        },
        {"format": "pt", "note": "x"},
    ),
    "no-tensors": ({}, {"format": "pt"}),
}


def checked(path: Path, *, holdings: bool) -> FileResult:
    return check_file(Task(str(path), "shown", every=False, holdings=holdings))


@pytest.mark.parametrize("holdings", [False, True])
@pytest.mark.parametrize("name", sorted(FILES))
def test_a_file_judged_whole_gets_the_result_of_the_reader(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, name: str, holdings: bool
) -> None:
    tensors, metadata = FILES[name]
    path = tmp_path / f"{name}.safetensors"
    stspec.write(path, tensors, metadata)
    whole = checked(path, holdings=holdings)
    monkeypatch.setattr(_small, "sound_header", lambda _data, _size: None)
    assert checked(path, holdings=holdings) == whole
    assert whole.verdict == "valid"
    assert whole.summary is not None
    assert whole.summary.tensors == len(tensors)
    assert whole.summary.file_bytes == path.stat().st_size


def test_a_broken_small_file_still_gets_the_reader_verdict(tmp_path: Path) -> None:
    path = tmp_path / "broken.safetensors"
    stspec.write(path, {"w": ("F32", [2], bytes(8))}, {"format": "pt"})
    path.write_bytes(path.read_bytes()[:-1])  # one tensor byte short
    result = checked(path, holdings=False)
    assert result.verdict == "rejected"
    assert [error.rule for error in result.errors] == ["LAYOUT-BOUNDS"]


def test_checking_a_one_tensor_file_costs_a_few_python_calls(tmp_path: Path) -> None:
    # A count, not a time (the same on a loaded machine): HF's safe_open +
    # keys + metadata is 5 Python calls; this check was 33 through read().
    path = tmp_path / "one.safetensors"
    stspec.write(path, *FILES["one-tensor"])
    task = Task(str(path), "shown", every=False, holdings=False)
    calls = python_calls(lambda: check_file(task))
    assert calls <= 16


def _shard(path: Path, tensors: int) -> Path:
    """A shard as writers emit it: compact header, BF16 tensors in header order."""
    shapes = ([4096, 4096], [1024, 4096], [14336, 4096], [4096])
    header: dict[str, object] = {"__metadata__": {"format": "pt"}}
    offset = 0
    for number in range(tensors):
        shape = shapes[number % len(shapes)]
        size = 2 * shape[0] * (shape[1] if len(shape) > 1 else 1)
        header[f"model.layers.{number // 9}.weight.{number}"] = {
            "dtype": "BF16",
            "shape": shape,
            "data_offsets": [offset, offset + size],
        }
        offset += size
    raw = json.dumps(header, separators=(",", ":")).encode()
    raw += b" " * (-len(raw) % 8)
    with path.open("wb") as file:
        file.write(len(raw).to_bytes(8, "little") + raw)
        file.truncate(8 + len(raw) + offset)  # sparse: the header is what is read
    return path


def _counted(path: Path) -> tuple[int, int]:
    """The Python calls and bytecode instructions one check of ``path`` runs."""
    task = Task(str(path), "shown", every=False, holdings=False)
    assert check_file(task).verdict == "valid"
    return python_work(lambda: check_file(task))


def test_checking_a_shard_runs_no_python_per_tensor(tmp_path: Path) -> None:
    # Counts, not times: a 144-tensor shard is checked at HF's speed
    # (bench/bench_folder.py) only while its entries are taken in bulk, with
    # no bytecode per tensor, and the file's fixed cost stays small.
    calls, opcodes = _counted(_shard(tmp_path / "shard.safetensors", 144))
    assert calls <= 110  # 100 now
    assert opcodes <= 4_000  # 3,228 now; 28,440 taken one by one
    # Ten times the tensors (a header of 5 chunks for the bulk pattern): a
    # few hundred instructions per chunk, none per tensor (taken one by one,
    # each costs about 180).
    more_calls, more_opcodes = _counted(_shard(tmp_path / "large.safetensors", 1440))
    assert more_calls - calls < 100
    assert more_opcodes - opcodes < 10 * 1296
