"""What an implementation is given: a private copy of the bytes it must judge.

Never the committed corpus file (a reader that truncates, deletes or appends
to its input would damage the corpus and make the next implementation fail),
and never a name or a place that tells the verdict: the copy is
``input.safetensors`` alone in a fresh directory only this user can enter, no
``n_``/``y_`` name, no manifest beside it.  The directory is removed after the
call, whatever the implementation did to it, without following a symlink it
put there or in its place.  Holes of a sparse file stay
holes, so the 4 GiB cases cost no disk.

A copy the suite cannot make (its own temporary folder is full) is the
suite's failure, reported as such: it never reaches the implementation, so it
is never counted as a rejection.
"""

from __future__ import annotations

import contextlib
import errno
import hashlib
import os
import shutil
import stat
import tempfile
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final

import pytest

if TYPE_CHECKING:
    from collections.abc import Iterator, Mapping

    from stspec_conformance._model import Outcome
    from stspec_conformance.adapters import Adapter
    from stspec_conformance.adapters._base import MemoryMode

__all__ = [
    "NEUTRAL_NAME",
    "StagingError",
    "attempt_load",
    "damage",
    "private_copy",
]

NEUTRAL_NAME: Final = "input.safetensors"
_CHUNK: Final = 1 << 20


class StagingError(Exception):
    """The suite could not give the implementation its copy (not its fault)."""


def damage(path: Path, case: Mapping[str, Any]) -> str:
    """How ``path`` differs from the manifest's ``size`` and ``sha256`` ("" if not)."""
    try:
        size = path.stat().st_size
    except OSError as exc:
        return f"cannot be read ({exc.strerror or exc})"
    want = case.get("size")
    if isinstance(want, int) and size != want:
        return f"is {size} bytes long, the manifest says {want}"
    digest = case.get("sha256")
    if isinstance(digest, str):
        got = hashlib.sha256()
        try:
            with path.open("rb") as file:
                while chunk := file.read(_CHUNK):
                    got.update(chunk)
        except OSError as exc:
            return f"cannot be read ({exc.strerror or exc})"
        if got.hexdigest() != digest:
            return f"has sha256 {got.hexdigest()}, the manifest says {digest}"
    return ""


def _extents(fd: int, size: int) -> Iterator[tuple[int, int]]:
    """The (start, end) of each data extent; all of it without SEEK_DATA."""
    position = 0
    while position < size:
        try:
            start = os.lseek(fd, position, os.SEEK_DATA)
        except OSError as exc:
            if exc.errno == errno.ENXIO:  # only a hole after position
                return
            yield position, size  # the filesystem cannot tell: copy it all
            return
        end = os.lseek(fd, start, os.SEEK_HOLE)
        yield start, end
        position = end


def _copy_sparse(source: Path, target: Path) -> None:
    """Copy the data extents of ``source``; its holes stay holes."""
    with source.open("rb") as src, target.open("xb") as dst:
        size = os.fstat(src.fileno()).st_size
        for start, end in _extents(src.fileno(), size):
            src.seek(start)
            dst.seek(start)
            remaining = end - start
            while remaining > 0 and (chunk := src.read(min(_CHUNK, remaining))):
                dst.write(chunk)
                remaining -= len(chunk)
        dst.truncate(size)


@contextlib.contextmanager
def private_copy(source: str | Path | bytes) -> Iterator[str]:
    """Yield the path of a private copy of ``source`` (a file, or bytes)."""
    directory = ""
    handle = -1
    try:
        directory = tempfile.mkdtemp(prefix="stspec-")
        # Held for the clean-up: it finds the folder wherever the
        # implementation renamed it, and never a symlink put in its place.
        handle = os.open(directory, _DIRECTORY_FLAGS)
        target = Path(directory, NEUTRAL_NAME)
        if isinstance(source, bytes):
            target.write_bytes(source)
        else:
            _copy_sparse(Path(source), target)
    except OSError as exc:
        _remove(directory, handle)
        what = f"{len(source)} bytes" if isinstance(source, bytes) else str(source)
        msg = (
            f"the suite could not copy {what} into its temporary folder "
            f"({tempfile.gettempdir()}): {exc}; free space there or set TMPDIR"
        )
        raise StagingError(msg) from None
    try:
        yield str(target)
    finally:
        _remove(directory, handle)


def attempt_load(
    adapter: Adapter,
    source: str | Path | bytes,
    *,
    timeout: float,
    measure_memory: MemoryMode = None,
) -> Outcome:
    """``adapter.attempt_load`` on a private copy of ``source``.

    A copy the suite cannot make ends the run (exit status 3): no outcome is
    recorded for the implementation.
    """
    try:
        with private_copy(source) as path:
            return adapter.attempt_load(
                path, timeout=timeout, measure_memory=measure_memory
            )
    except StagingError as exc:
        pytest.exit(str(exc), returncode=pytest.ExitCode.INTERNAL_ERROR)


_DIRECTORY_FLAGS: Final = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW


def _remove(directory: str, handle: int) -> None:
    """Remove the staging folder and only it, whatever was done to it.

    The implementation may have left it unwritable or full of read-only
    subfolders, put symlinks in it, renamed it, or put a symlink or another
    folder at its name.  Nothing here follows a symlink: folders are made
    removable through descriptors opened without following one, the folder
    is emptied through ``handle`` (it follows a rename), and what stands at
    ``directory`` is removed as an entry, never through a link.
    """
    if handle >= 0:
        try:
            _unlock(handle)
            for name in os.listdir(handle):
                _remove_entry(name, handle)
            moved = _current_name(handle)
        finally:
            os.close(handle)
        if moved and moved != directory:
            with contextlib.suppress(OSError):
                os.rmdir(moved)
    if directory:
        _remove_entry(directory, None)


def _remove_entry(name: str, dir_fd: int | None) -> None:
    """Remove one entry: a file or a symlink is unlinked, a folder emptied first."""
    try:
        mode = os.stat(name, dir_fd=dir_fd, follow_symlinks=False).st_mode
    except OSError:
        return
    if not stat.S_ISDIR(mode):
        with contextlib.suppress(OSError):
            os.unlink(name, dir_fd=dir_fd)
        return
    try:
        sub = os.open(name, _DIRECTORY_FLAGS, dir_fd=dir_fd)
    except OSError:
        # unreadable: make it removable without following a link, then retry
        _chmod_folder(name, dir_fd)
        try:
            sub = os.open(name, _DIRECTORY_FLAGS, dir_fd=dir_fd)
        except OSError:
            return
    try:
        _unlock(sub)
    finally:
        os.close(sub)
    shutil.rmtree(name, ignore_errors=True, dir_fd=dir_fd)


def _unlock(handle: int) -> None:
    """Make the folder open as ``handle`` and every folder below it removable.

    ``os.fwalk`` without ``follow_symlinks`` lists a symlink to a folder
    among the folders but never enters it; each listed name is changed
    only when it is a folder itself (:func:`_chmod_folder`).
    """
    with contextlib.suppress(OSError):
        os.fchmod(handle, 0o700)
    with contextlib.suppress(OSError, RecursionError):
        for _, dirs, _, root in os.fwalk(".", dir_fd=handle, follow_symlinks=False):
            for name in dirs:
                _chmod_folder(name, root)


def _chmod_folder(name: str, dir_fd: int | None) -> None:
    """``chmod 700`` the folder ``name``, never what a symlink there points to."""
    flags = getattr(os, "O_PATH", os.O_RDONLY) | os.O_DIRECTORY | os.O_NOFOLLOW
    try:
        fd = os.open(name, flags, dir_fd=dir_fd)
    except OSError:
        return  # a symlink (ELOOP, ENOTDIR), gone, or unreadable without O_PATH
    try:
        if hasattr(os, "O_PATH"):
            # Linux: an O_PATH descriptor cannot be fchmod-ed, its /proc link can
            os.chmod(f"/proc/self/fd/{fd}", 0o700)
        else:  # pragma: no cover - POSIX without O_PATH
            os.fchmod(fd, 0o700)
    except OSError:
        pass
    finally:
        os.close(fd)


def _current_name(handle: int) -> str:
    """Where the folder open as ``handle`` is now ("" when unknown)."""
    try:
        name = os.readlink(f"/proc/self/fd/{handle}")
    except OSError:
        return ""
    # A renamed folder is removed only where the suite's staging lives.
    if os.path.dirname(name) != os.path.realpath(tempfile.gettempdir()):
        return ""
    return name
