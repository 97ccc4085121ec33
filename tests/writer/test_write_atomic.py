"""write(): the serialized bytes or the old file, durably, and nothing left over."""

from __future__ import annotations

import errno
import os
import stat
import sys
from typing import TYPE_CHECKING

import pytest

import stspec
from stspec import SafetensorsError, serialize, write
from stspec.writer import atomic as _atomic
from writer.writes import OLD, TENSORS, names

if TYPE_CHECKING:
    from pathlib import Path

pytestmark = pytest.mark.usefixtures("temporary")


def test_writes_exactly_the_serialized_bytes(tmp_path: Path) -> None:
    path = tmp_path / "new.safetensors"
    write(path, TENSORS, {"format": "np"})
    assert path.read_bytes() == serialize(TENSORS, {"format": "np"})
    assert names(tmp_path) == ["new.safetensors"]


def test_replaces_an_existing_file(destination: Path) -> None:
    write(str(destination), TENSORS)
    assert destination.read_bytes() == serialize(TENSORS)
    assert names(destination.parent) == [destination.name]


def test_writes_to_a_relative_path(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    write("relative.safetensors", {})
    assert (tmp_path / "relative.safetensors").read_bytes() == serialize({})


def test_writes_large_tensors_in_bounded_slices(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(_atomic, "_CHUNK", 5)
    path = tmp_path / "sliced.safetensors"
    tensors = {"w": ("U8", [23], bytes(range(23)))}
    write(path, tensors)
    assert path.read_bytes() == serialize(tensors)


@pytest.mark.parametrize(
    "name",
    [
        "n" * 250 + ".safe",  # 255 bytes, NAME_MAX on common file systems
        "\N{GRINNING FACE}" * 59 + ".safetensors",  # 248 bytes, failed before
    ],
    ids=["ascii-255", "emoji-248"],
)
def test_writes_any_name_open_accepts(tmp_path: Path, name: str) -> None:
    path = tmp_path / name
    path.open("wb").close()  # open() accepts it
    write(path, TENSORS)
    with stspec.read(path) as file:
        assert set(file.tensors) == {"a", "b"}
    assert names(tmp_path) == [name]


def test_creates_nothing_for_a_refused_request(destination: Path) -> None:
    with pytest.raises(SafetensorsError):
        write(destination, {"__metadata__": ("U8", (0,), b"")})
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


def test_leaves_the_destination_when_the_disk_fills_midway(
    destination: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    real_write = os.write
    calls: list[int] = []

    def disk_full(fd: int, data: memoryview) -> int:
        calls.append(len(data))
        if len(calls) == 2:  # the header went through, tensor data does not
            raise OSError(errno.ENOSPC, "No space left on device")
        return real_write(fd, data)

    monkeypatch.setattr(os, "write", disk_full)
    with pytest.raises(OSError, match="No space left"):
        write(destination, TENSORS)
    assert destination.read_bytes() == OLD
    assert names(destination.parent) == [destination.name]


def test_keeps_writing_after_a_short_write(
    destination: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    real_write = os.write

    def one_byte(fd: int, data: memoryview) -> int:
        return real_write(fd, data[:1])

    monkeypatch.setattr(os, "write", one_byte)
    write(destination, TENSORS)
    assert destination.read_bytes() == serialize(TENSORS)


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


# Durability ------------------------------------------------------------------


class SyncLog:
    """os.fsync, recording what each call synced and what had happened before."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder.stat()
        self.events: list[str] = []
        self.fsync = os.fsync
        self.replace = os.replace

    def sync(self, fd: int) -> None:
        info = os.fstat(fd)
        is_folder = (info.st_dev, info.st_ino) == (
            self.folder.st_dev,
            self.folder.st_ino,
        )
        kind = (
            "folder"
            if is_folder
            else "directory"
            if stat.S_ISDIR(info.st_mode)
            else "file"
        )
        self.events.append(f"fsync {kind}")
        self.fsync(fd)

    def rename(self, *args: str) -> None:
        self.events.append("rename")
        self.replace(*args)


def test_syncs_the_file_then_renames_then_syncs_the_directory(
    destination: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    log = SyncLog(destination.parent)
    monkeypatch.setattr(os, "fsync", log.sync)
    monkeypatch.setattr(os, "replace", log.rename)
    write(destination, TENSORS)
    assert log.events == ["fsync file", "rename", "fsync folder"]


@pytest.mark.parametrize("code", [errno.EINVAL, errno.EOPNOTSUPP, errno.EACCES])
def test_a_directory_that_cannot_be_synced_still_gets_the_file(
    destination: Path, monkeypatch: pytest.MonkeyPatch, code: int
) -> None:
    real_fsync = os.fsync

    def refuse_directories(fd: int) -> None:
        if stat.S_ISDIR(os.fstat(fd).st_mode):
            raise OSError(code, os.strerror(code))
        real_fsync(fd)

    monkeypatch.setattr(os, "fsync", refuse_directories)
    write(destination, TENSORS)
    assert destination.read_bytes() == serialize(TENSORS)


def test_a_failing_directory_sync_is_reported(
    destination: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    real_fsync = os.fsync

    def io_error(fd: int) -> None:
        if stat.S_ISDIR(os.fstat(fd).st_mode):
            raise OSError(errno.EIO, "Input/output error")
        real_fsync(fd)

    monkeypatch.setattr(os, "fsync", io_error)
    with pytest.raises(OSError, match="Input/output"):
        write(destination, TENSORS)
    # Renamed already: the error says the new name may not survive a crash.
    assert destination.read_bytes() == serialize(TENSORS)
    assert names(destination.parent) == [destination.name]


# The unnamed temporary file (Linux) and the named fallback --------------------


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="O_TMPFILE")
def test_no_name_exists_while_the_data_is_written(
    destination: Path, monkeypatch: pytest.MonkeyPatch, temporary: str
) -> None:
    real_write = os.write
    seen: list[list[str]] = []

    def looking(fd: int, data: memoryview) -> int:
        seen.append(names(destination.parent))
        return real_write(fd, data)

    monkeypatch.setattr(os, "write", looking)
    write(destination, TENSORS)
    during = {name for listing in seen for name in listing} - {destination.name}
    if temporary == "unnamed":
        assert during == set()
    else:
        (temp,) = during
        assert _atomic._is_temp_name(temp)
    assert len(seen) == 3  # the header and two tensors


def refuse_tmpfile(code: int) -> object:
    real_open = os.open

    def opener(path: str, flags: int, *args: object, **kwargs: object) -> int:
        if _atomic._O_TMPFILE and flags & _atomic._O_TMPFILE == _atomic._O_TMPFILE:
            raise OSError(code, os.strerror(code))
        return real_open(path, flags, *args, **kwargs)  # type: ignore[arg-type]

    return opener


@pytest.mark.parametrize("code", [errno.EOPNOTSUPP, errno.EISDIR, errno.EINVAL])
def test_falls_back_to_a_named_file_where_the_file_system_refuses_tmpfile(
    destination: Path, monkeypatch: pytest.MonkeyPatch, code: int
) -> None:
    monkeypatch.setattr(os, "open", refuse_tmpfile(code))
    write(destination, TENSORS)
    assert destination.read_bytes() == serialize(TENSORS)
    assert names(destination.parent) == [destination.name]


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="O_TMPFILE")
def test_reports_other_errors_of_tmpfile(
    destination: Path, monkeypatch: pytest.MonkeyPatch, temporary: str
) -> None:
    monkeypatch.setattr(os, "open", refuse_tmpfile(errno.EACCES))
    if temporary == "unnamed":
        with pytest.raises(PermissionError):
            write(destination, TENSORS)
        assert destination.read_bytes() == OLD
    else:
        write(destination, TENSORS)
    assert names(destination.parent) == [destination.name]


def test_falls_back_to_a_named_file_without_proc(
    destination: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(_atomic, "_PROC_FD", "/nonexistent/proc/self/fd")
    write(destination, TENSORS)
    assert destination.read_bytes() == serialize(TENSORS)


def test_draws_another_name_when_one_is_taken(
    destination: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    taken = destination.parent / ".stspec-0123456789abcdef.tmp"
    taken.write_bytes(b"someone's")
    real_name = _atomic._temp_name
    drawn: list[str] = []

    def draw() -> str:
        drawn.append(taken.name if not drawn else real_name())
        return drawn[-1]

    monkeypatch.setattr(_atomic, "_temp_name", draw)
    monkeypatch.setattr(_atomic, "_sweep", lambda _folder: None)
    write(destination, TENSORS)
    assert destination.read_bytes() == serialize(TENSORS)
    assert len(drawn) == 2
    assert taken.read_bytes() == b"someone's"


def test_starts_over_when_a_sweep_took_the_name_before_the_lock(
    destination: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(_atomic, "_O_TMPFILE", 0)
    real_lock = _atomic._lock
    locked: list[int] = []

    def swept_first(fd: int, *, wait: bool) -> bool:
        if not locked:
            (temp,) = set(names(destination.parent)) - {destination.name}
            (destination.parent / temp).unlink()  # what another write's sweep does
        locked.append(fd)
        return real_lock(fd, wait=wait)

    monkeypatch.setattr(_atomic, "_lock", swept_first)
    write(destination, TENSORS)
    assert destination.read_bytes() == serialize(TENSORS)
    assert len(locked) == 2
    assert names(destination.parent) == [destination.name]


@pytest.mark.parametrize("step", ["_lock", "_give"])
def test_removes_the_temporary_file_when_preparing_it_fails(
    destination: Path, monkeypatch: pytest.MonkeyPatch, step: str
) -> None:
    monkeypatch.setattr(os, "fchown", fail)
    monkeypatch.setattr(_atomic, step, fail)
    destination.chmod(0o640)
    if step == "_give":
        # _give runs only for a file of another owner or group.
        monkeypatch.setattr(os, "lstat", other_owner(os.lstat, destination))
    with pytest.raises(SimulatedError):
        write(destination, TENSORS)
    assert destination.read_bytes() == OLD
    assert names(destination.parent) == [destination.name]


def other_owner(real_lstat: object, destination: Path) -> object:
    def lstat(path: str) -> os.stat_result:
        info = real_lstat(path)  # type: ignore[operator]
        if path != str(destination):
            return info  # type: ignore[no-any-return]
        fields = list(info)
        fields[4] += 1  # st_uid
        return os.stat_result(fields)

    return lstat


def test_draws_another_link_name_when_one_is_taken(
    destination: Path, monkeypatch: pytest.MonkeyPatch, temporary: str
) -> None:
    real_link = os.link
    tries: list[str] = []

    def taken_once(src: str, dst: str, **kwargs: object) -> None:
        tries.append(dst)
        if len(tries) == 1:
            raise FileExistsError(errno.EEXIST, "File exists", dst)
        real_link(src, dst, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(os, "link", taken_once)
    write(destination, TENSORS)
    assert destination.read_bytes() == serialize(TENSORS)
    # Only the unnamed file needs a link; a named one is renamed as it is.
    assert len(tries) == (2 if temporary == "unnamed" else 0)


def test_a_failing_clean_up_does_not_hide_the_error(
    destination: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def refuse(_path: str) -> None:
        raise PermissionError(errno.EACCES, "Permission denied")

    with monkeypatch.context() as patch:
        patch.setattr(os, "replace", fail)
        patch.setattr(os, "unlink", refuse)
        with pytest.raises(SimulatedError):
            write(destination, TENSORS)
    (left,) = set(names(destination.parent)) - {destination.name}
    assert _atomic._is_temp_name(left)
    write(destination, TENSORS)  # and the next write removes it
    assert names(destination.parent) == [destination.name]


@pytest.mark.parametrize("step", ["open", "link"])
def test_writes_a_named_file_when_the_unnamed_one_cannot_be_linked(
    destination: Path, monkeypatch: pytest.MonkeyPatch, temporary: str, step: str
) -> None:
    real_open = os.open
    refused: list[str] = []

    def refuse_link(*_args: object, **_kwargs: object) -> None:
        refused.append("link")
        raise PermissionError(errno.EPERM, "Operation not permitted")

    def refuse_proc(path: str, flags: int, *args: object, **kwargs: object) -> int:
        if path == _atomic._PROC_FD:
            refused.append("open")
            raise PermissionError(errno.EACCES, "Permission denied")
        return real_open(path, flags, *args, **kwargs)  # type: ignore[arg-type]

    if step == "link":
        monkeypatch.setattr(os, "link", refuse_link)
    else:
        monkeypatch.setattr(os, "open", refuse_proc)
    destination.chmod(0o640)
    write(destination, TENSORS)
    assert destination.read_bytes() == serialize(TENSORS)
    assert stat.S_IMODE(destination.stat().st_mode) == 0o640
    assert names(destination.parent) == [destination.name]
    # Only the unnamed file is ever linked; the named one needs no detour.
    assert refused == ([step] if temporary == "unnamed" else [])
