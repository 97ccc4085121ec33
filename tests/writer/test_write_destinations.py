"""write(path): the file open(path, "wb") would mean, or a refusal.

The path is resolved by the kernel as open() resolves it (a symlinked folder
before its ``..``), a path that names a folder is refused as open() refuses
it, and a device, FIFO or socket in the way is refused, never replaced.
"""

from __future__ import annotations

import os
import socket
import stat
from typing import TYPE_CHECKING

import pytest

from stspec import serialize, write
from writer.writes import OLD, TENSORS, names

if TYPE_CHECKING:
    from collections.abc import Callable
    from pathlib import Path

pytestmark = pytest.mark.usefixtures("temporary")


def test_dot_dot_after_a_symlink_is_resolved_as_open_resolves_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "real" / "sub").mkdir(parents=True)
    (tmp_path / "link").symlink_to(tmp_path / "real" / "sub")
    beside = tmp_path / "x.safetensors"  # what a lexical "link/.." would name
    beside.write_bytes(OLD)
    monkeypatch.chdir(tmp_path)
    with open("link/../y.safetensors", "wb"):  # noqa: PTH123 - what open() means
        pass
    assert (tmp_path / "real" / "y.safetensors").exists()
    write("link/../x.safetensors", TENSORS)
    assert (tmp_path / "real" / "x.safetensors").read_bytes() == serialize(TENSORS)
    assert beside.read_bytes() == OLD
    write(str(tmp_path / "link" / ".." / "z.safetensors"), TENSORS)
    assert (tmp_path / "real" / "z.safetensors").exists()
    assert not (tmp_path / "z.safetensors").exists()


@pytest.mark.parametrize("suffix", ["/", "/.", "//"])
def test_a_path_that_names_a_folder_is_refused_as_open_refuses_it(
    suffix: str, tmp_path: Path
) -> None:
    path = f"{tmp_path / 'x.safetensors'}{suffix}"
    with pytest.raises(OSError):  # noqa: PT011 - what open() raises, below
        open(path, "wb")  # noqa: PTH123, SIM115 - what open() does with it
    with pytest.raises(IsADirectoryError):
        write(path, TENSORS)
    assert names(tmp_path) == []


def _fifo(path: Path) -> None:
    os.mkfifo(path)


def _socket(path: Path) -> None:
    with socket.socket(socket.AF_UNIX) as listener:
        listener.bind(str(path))


def _null_device(path: Path) -> None:
    if os.geteuid() != 0:  # pragma: no cover - CI runs as root
        pytest.skip("only root may make a device node")
    os.mknod(path, stat.S_IFCHR | 0o600, os.makedev(1, 3))


@pytest.mark.parametrize(
    ("make", "kind"),
    [(_fifo, "a FIFO"), (_socket, "a socket"), (_null_device, "a character device")],
)
def test_a_device_fifo_or_socket_in_the_way_is_refused_not_replaced(
    make: Callable[[Path], None], kind: str, tmp_path: Path
) -> None:
    path = tmp_path / "x.safetensors"
    make(path)
    before = os.lstat(path)
    with pytest.raises(OSError, match=f"is {kind}, not a regular file") as caught:
        write(path, TENSORS)
    assert caught.value.filename == str(path)
    after = os.lstat(path)
    assert (after.st_ino, stat.S_IFMT(after.st_mode)) == (
        before.st_ino,
        stat.S_IFMT(before.st_mode),
    )
    assert names(tmp_path) == ["x.safetensors"]
