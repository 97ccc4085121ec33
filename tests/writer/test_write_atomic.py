"""write(): the same bytes as serialize(), and no partial file on failure."""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any, Self

import pytest

import stspec
from stspec import SafetensorsError, Tensor, serialize, write

if TYPE_CHECKING:
    from collections.abc import Iterable

TENSORS = {
    "a": Tensor("F32", (2,), b"\x00\x00\x80\x3f\x00\x00\x00\x40"),
    "b": Tensor("U8", (3,), b"xyz"),
}
OLD = b"the previous content, which must survive"


def names(folder: Path) -> list[str]:
    return sorted(path.name for path in folder.iterdir())


@pytest.fixture
def destination(tmp_path: Path) -> Path:
    path = tmp_path / "model.safetensors"
    path.write_bytes(OLD)
    return path


def test_writes_exactly_the_serialized_bytes(tmp_path: Path) -> None:
    path = tmp_path / "new.safetensors"
    write(path, TENSORS, {"format": "np"})
    assert path.read_bytes() == serialize(TENSORS, {"format": "np"})
    assert names(tmp_path) == ["new.safetensors"]


def test_replaces_an_existing_file(destination: Path) -> None:
    write(str(destination), TENSORS)
    assert destination.read_bytes() == serialize(TENSORS)


def test_writes_to_a_relative_path(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    write("relative.safetensors", {})
    assert (tmp_path / "relative.safetensors").read_bytes() == serialize({})


def test_writes_a_file_whose_name_is_as_long_as_allowed(tmp_path: Path) -> None:
    path = tmp_path / ("n" * 250 + ".safe")
    write(path, TENSORS)
    with stspec.read(path) as file:
        assert set(file.tensors) == {"a", "b"}


@pytest.mark.skipif(sys.platform == "win32", reason="POSIX permission bits")
def test_gives_the_new_file_the_permissions_open_would(tmp_path: Path) -> None:
    # HF 0.8.0's files keep the temporary file's 0600.
    path = tmp_path / "perm.safetensors"
    write(path, TENSORS)
    reference = tmp_path / "opened"
    reference.open("wb").close()
    assert path.stat().st_mode == reference.stat().st_mode


def test_creates_nothing_for_a_refused_request(destination: Path) -> None:
    with pytest.raises(SafetensorsError):
        write(destination, {"__metadata__": Tensor("U8", (0,), b"")})
    assert destination.read_bytes() == OLD
    assert names(destination.parent) == [destination.name]


class SimulatedError(Exception):
    """The simulated fault."""


def fail(*_args: object, **_kwargs: object) -> None:
    raise SimulatedError


def test_leaves_the_destination_when_the_rename_fails(
    destination: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(os, "replace", fail)
    with pytest.raises(SimulatedError):
        write(destination, TENSORS)
    assert destination.read_bytes() == OLD
    assert names(destination.parent) == [destination.name]


def test_leaves_the_destination_when_fsync_is_interrupted(
    destination: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def interrupt(_fd: int) -> None:
        raise KeyboardInterrupt

    monkeypatch.setattr(os, "fsync", interrupt)
    with pytest.raises(KeyboardInterrupt):
        write(destination, TENSORS)
    assert destination.read_bytes() == OLD
    assert names(destination.parent) == [destination.name]


class DiskFull:
    """A file object that accepts the header, then fails on the tensor data."""

    def __init__(self, real: Any) -> None:
        self.real = real

    def __enter__(self) -> Self:
        self.real.__enter__()
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.real.__exit__(*exc_info)

    def write(self, data: bytes) -> int:
        return int(self.real.write(data))

    def writelines(self, _views: Iterable[memoryview]) -> None:
        self.real.flush()
        raise OSError(28, "No space left on device")


def test_leaves_the_destination_when_writing_data_fails_midway(
    destination: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    real_open = Path.open
    seen: list[Path] = []

    def open_failing(self: Path, *args: Any, **kwargs: Any) -> DiskFull:
        seen.append(self)
        return DiskFull(real_open(self, *args, **kwargs))

    monkeypatch.setattr(Path, "open", open_failing)
    with pytest.raises(OSError, match="No space left"):
        write(destination, TENSORS)
    monkeypatch.undo()
    assert destination.read_bytes() == OLD
    assert names(destination.parent) == [destination.name]
    # The temporary file was real, beside the destination, and hidden.
    (temp,) = seen
    assert temp.parent == destination.parent
    assert temp.name.startswith(".model.safetensors.")


def test_fails_cleanly_when_the_directory_does_not_exist(tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError):
        write(tmp_path / "missing" / "x.safetensors", TENSORS)
    assert names(tmp_path) == []


def test_leaves_a_directory_in_the_way_untouched(tmp_path: Path) -> None:
    folder = tmp_path / "taken.safetensors"
    folder.mkdir()
    (folder / "inside").write_bytes(b"keep")
    with pytest.raises(OSError):  # noqa: PT011 - IsADirectoryError or PermissionError
        write(folder, TENSORS)
    assert names(tmp_path) == ["taken.safetensors"]
    assert (folder / "inside").read_bytes() == b"keep"
