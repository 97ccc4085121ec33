"""write(): temporaries of killed writers are removed; nobody else's file ever is."""

from __future__ import annotations

import errno
import fcntl
import os
import sys
from typing import TYPE_CHECKING

import pytest

from stspec import serialize, write
from stspec.writer import atomic as _atomic
from writer.writes import TENSORS, names

if TYPE_CHECKING:
    from pathlib import Path

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="flock")
STALE = ".stspec-0123456789abcdef.tmp"
NOBODY = 65534


def test_removes_a_temporary_file_nobody_holds(destination: Path) -> None:
    (destination.parent / STALE).write_bytes(b"half a model")
    write(destination, TENSORS)
    assert names(destination.parent) == [destination.name]


def test_removes_temporaries_of_other_destinations_too(tmp_path: Path) -> None:
    # Any dead writer's temporary in the directory is garbage.
    (tmp_path / STALE).write_bytes(b"")
    (tmp_path / ".stspec-fedcba9876543210.tmp").write_bytes(b"")
    write(tmp_path / "new.safetensors", TENSORS)
    assert names(tmp_path) == ["new.safetensors"]


def test_keeps_a_temporary_file_a_live_writer_holds(destination: Path) -> None:
    live = destination.parent / STALE
    live.write_bytes(b"being written")
    fd = os.open(live, os.O_RDONLY)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        write(destination, TENSORS)
    finally:
        os.close(fd)
    assert live.read_bytes() == b"being written"


@pytest.mark.parametrize(
    "name",
    [
        ".stspec-0123456789ABCDEF.tmp",  # upper-case hex: not a name we draw
        ".stspec-0123456789abcde.tmp",  # too short
        ".stspec-0123456789abcdef0.tmp",  # too long
        ".stspec-0123456789abcdeg.tmp",  # not hex
        "stspec-0123456789abcdef.tmpx",
        ".model.safetensors.0123456789abcdef.tmp",  # an older writer's form
        "notes.tmp",
    ],
)
def test_keeps_files_with_other_names(destination: Path, name: str) -> None:
    (destination.parent / name).write_bytes(b"keep")
    write(destination, TENSORS)
    assert (destination.parent / name).read_bytes() == b"keep"


def test_keeps_things_named_like_temporaries_that_are_not_regular_files(
    tmp_path: Path,
) -> None:
    target = tmp_path / "target"
    target.write_bytes(b"keep")
    (tmp_path / STALE).symlink_to(target)
    os.mkfifo(tmp_path / ".stspec-1111111111111111.tmp")
    (tmp_path / ".stspec-2222222222222222.tmp").mkdir()
    write(tmp_path / "new.safetensors", TENSORS)
    assert len(names(tmp_path)) == 5
    assert target.read_bytes() == b"keep"


@pytest.mark.skipif(
    not hasattr(os, "geteuid") or os.geteuid() != 0, reason="needs root to chown"
)
def test_keeps_temporaries_of_other_users(destination: Path) -> None:
    theirs = destination.parent / STALE
    theirs.write_bytes(b"")
    os.chown(theirs, NOBODY, NOBODY)
    write(destination, TENSORS)
    assert theirs.exists()


def test_keeps_everything_where_locks_do_not_work(
    destination: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def no_locks(_fd: int, _operation: int) -> None:
        raise OSError(errno.ENOLCK, "No locks available")

    (destination.parent / STALE).write_bytes(b"")
    monkeypatch.setattr(fcntl, "flock", no_locks)
    write(destination, TENSORS)  # the writer itself carries on unlocked
    assert destination.read_bytes() == serialize(TENSORS)
    assert (destination.parent / STALE).exists()


def test_a_failed_removal_does_not_fail_the_write(
    destination: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def refuse(_path: str) -> None:
        raise PermissionError(errno.EACCES, "Permission denied")

    (destination.parent / STALE).write_bytes(b"")
    monkeypatch.setattr(os, "unlink", refuse)
    write(destination, TENSORS)
    assert destination.read_bytes() == serialize(TENSORS)
    assert (destination.parent / STALE).exists()


def test_a_name_that_vanished_is_not_the_same_file(tmp_path: Path) -> None:
    assert not _atomic._same_file(str(tmp_path / STALE), tmp_path.stat())


@pytest.mark.skipif(not hasattr(os, "fork"), reason="forks two writers")
@pytest.mark.usefixtures("temporary")
def test_concurrent_writers_never_remove_each_other_s_files(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Small slices keep each write open long enough for the other's sweeps.
    monkeypatch.setattr(_atomic, "_CHUNK", 16)
    destination = tmp_path / "shared.safetensors"
    contents = {
        fill: {"w": ("U8", [4096], bytes([fill]) * 4096)} for fill in (0xAA, 0xBB)
    }
    children = []
    for tensors in contents.values():
        pid = os.fork()
        if not pid:  # pragma: no cover - the child's coverage is not collected
            status = 1
            try:
                for _ in range(25):
                    write(destination, tensors)
                status = 0
            finally:
                os._exit(status)
        children.append(pid)
    statuses = [os.waitpid(pid, 0)[1] for pid in children]
    assert statuses == [0, 0]  # neither failed: no temporary was taken away
    assert destination.read_bytes() in {serialize(t) for t in contents.values()}
    assert names(tmp_path) == [destination.name]
