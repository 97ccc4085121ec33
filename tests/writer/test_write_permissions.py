"""write(): a replaced file keeps its mode and, where allowed, its owner."""

from __future__ import annotations

import os
import stat
import sys
from typing import TYPE_CHECKING

import pytest

from stspec import serialize, write
from writer.writes import OLD, TENSORS, names

if TYPE_CHECKING:
    from collections.abc import Iterator
    from pathlib import Path

pytestmark = [
    pytest.mark.usefixtures("temporary"),
    pytest.mark.skipif(sys.platform == "win32", reason="POSIX permission bits"),
]
NOBODY = 65534


def mode_of(path: Path) -> int:
    return stat.S_IMODE(path.lstat().st_mode)


@pytest.fixture(params=[0o022, 0o077, 0o002])
def umask(request: pytest.FixtureRequest) -> Iterator[int]:
    previous = os.umask(request.param)
    yield request.param
    os.umask(previous)


def test_gives_a_new_file_the_mode_open_gives(tmp_path: Path, umask: int) -> None:
    # HF 0.8.0's files keep the temporary file's 0600 instead.
    path = tmp_path / "new.safetensors"
    write(path, TENSORS)
    reference = tmp_path / "opened"
    reference.open("wb").close()
    assert mode_of(path) == mode_of(reference) == 0o666 & ~umask


@pytest.mark.parametrize("mode", [0o600, 0o640, 0o644, 0o755, 0o400, 0o666])
def test_keeps_the_mode_of_the_file_it_replaces(
    destination: Path, umask: int, mode: int
) -> None:
    # A private model stays private whatever the umask says.
    destination.chmod(mode)
    write(destination, TENSORS)
    assert mode_of(destination) == mode
    assert destination.read_bytes() == serialize(TENSORS)
    del umask


@pytest.mark.parametrize("mode", [0o4755, 0o2755, 0o1644])
def test_drops_set_id_and_sticky_bits(destination: Path, mode: int) -> None:
    # The new file may belong to someone else; set-id bits must not follow.
    destination.chmod(mode)
    write(destination, TENSORS)
    assert mode_of(destination) == mode & 0o777


def test_the_temporary_file_is_never_more_open_than_the_old_file(
    destination: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    destination.chmod(0o600)
    seen: list[int] = []
    real_write = os.write

    def looking(fd: int, data: memoryview) -> int:
        seen.append(stat.S_IMODE(os.fstat(fd).st_mode))
        return real_write(fd, data)

    monkeypatch.setattr(os, "write", looking)
    write(destination, TENSORS)
    assert set(seen) == {0o600}


@pytest.mark.skipif(
    not hasattr(os, "geteuid") or os.geteuid() != 0, reason="needs root"
)
def test_root_keeps_the_owner_of_the_file_it_replaces(destination: Path) -> None:
    os.chown(destination, NOBODY, NOBODY)
    destination.chmod(0o600)
    write(destination, TENSORS)
    info = destination.stat()
    assert (info.st_uid, info.st_gid) == (NOBODY, NOBODY)
    assert stat.S_IMODE(info.st_mode) == 0o600


def test_a_writer_that_may_not_give_the_file_away_keeps_it(
    destination: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    real_lstat = os.lstat

    def other_owner(path: str) -> os.stat_result:
        info = list(real_lstat(path))
        if path == str(destination):
            info[4] += 1  # st_uid: someone else's file
        return os.stat_result(info)

    def refuse(*_args: object) -> None:
        raise PermissionError(1, "Operation not permitted")

    monkeypatch.setattr(os, "lstat", other_owner)
    monkeypatch.setattr(os, "fchown", refuse)
    destination.chmod(0o640)
    write(destination, TENSORS)
    monkeypatch.undo()
    info = destination.stat()
    assert info.st_uid == os.geteuid()
    assert stat.S_IMODE(info.st_mode) == 0o640


def test_other_hard_links_keep_the_old_bytes(destination: Path) -> None:
    # As after any rename: the name gets a new file, the old one lives on.
    other = destination.parent / "other-name"
    os.link(destination, other)
    write(destination, TENSORS)
    assert destination.read_bytes() == serialize(TENSORS)
    assert other.read_bytes() == OLD


def test_replaces_a_symlink_and_leaves_its_target(tmp_path: Path, umask: int) -> None:
    target = tmp_path / "target"
    target.write_bytes(OLD)
    target.chmod(0o600)
    link = tmp_path / "link.safetensors"
    link.symlink_to(target)
    write(link, TENSORS)
    assert not link.is_symlink()
    assert link.read_bytes() == serialize(TENSORS)
    assert target.read_bytes() == OLD
    # A new file, so open()'s mode, not the target's.
    assert mode_of(link) == 0o666 & ~umask
    assert names(tmp_path) == ["link.safetensors", "target"]
