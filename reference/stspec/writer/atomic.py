"""Replace a file with new bytes: all of them or none, and no temporary left over.

How (spec WRITE-ATOMIC), in the destination's directory so that the final
rename never crosses file systems:

1. Where Linux offers it, the bytes go to an unnamed file (``O_TMPFILE``):
   a writer killed by any signal, even SIGKILL, leaves nothing, since the
   kernel frees an unnamed file with its last descriptor.  Once complete and
   fsync()ed it gets a name through ``/proc/self/fd`` and is renamed over the
   destination.  Elsewhere, or where that link is refused, a named
   temporary file takes its place.
2. Temporary names have a fixed, short form (``.stspec-<16 hex>.tmp``), so
   any destination name the file system accepts works.  A writer holds an
   exclusive ``flock`` on its temporary file for its whole life; a later
   write to the same directory removes the temporaries whose writer died
   (SIGKILL between link and rename, or mid-write without ``O_TMPFILE``):
   only names of that form, regular files of the same owner, that nobody
   holds locked.
3. SIGINT and SIGTERM, while their handlers are Python's defaults and the
   write runs in the main thread, are held back until the next safe point
   (at most 64 MiB of writing, or the end of an fsync): the temporary file
   is removed, the previous handler restored and the signal delivered again,
   so Ctrl-C still raises KeyboardInterrupt and SIGTERM still ends the
   process.  A program's own handlers are left alone, as are writes from
   other threads, where Python allows no handler to be installed.
4. A replaced regular file passes on its permission bits (not set-id or
   sticky bits) and, where the writer may set them, its owner and group; a
   new file gets what ``open(path, "wb")`` gives.  Other hard links to the
   replaced file keep the old bytes, as after any rename.
5. After the rename the directory is fsync()ed too, so that the new name
   survives a power loss.
"""

# ruff: noqa: PTH105, PTH108, PTH109, PTH112, PTH118, PTH119, PTH120 - os.path, not
# pathlib: importing it (with fnmatch and urllib.parse) is a start-up cost the
# package avoids, and this module works on file descriptors anyway.

from __future__ import annotations

import errno
import os
import signal
import stat
import sys

if sys.platform != "win32":  # pragma: no branch - Windows has no fcntl (no sweep)
    import fcntl

# typing is not imported at run time (start-up cost); mypy reads this as True.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Sequence
    from types import FrameType, TracebackType
    from typing import Any, Final, Self

__all__ = ["replace_file"]

_PREFIX: Final = ".stspec-"
_SUFFIX: Final = ".tmp"
_HEX: Final = frozenset("0123456789abcdef")
_RANDOM_BYTES: Final = 8
_NAME_LENGTH: Final = len(_PREFIX) + 2 * _RANDOM_BYTES + len(_SUFFIX)
# Linux only; 0 elsewhere (and in tests that exercise the named fallback).
_O_TMPFILE: Final = getattr(os, "O_TMPFILE", 0)
_PROC_FD: Final = "/proc/self/fd"
# O_TMPFILE refused by the file system (EOPNOTSUPP) or an old kernel
# (EISDIR, EINVAL): a named temporary file still works there.
_NO_TMPFILE: Final = frozenset({errno.EOPNOTSUPP, errno.EISDIR, errno.EINVAL})
# A directory that cannot be opened or fsync()ed (some FUSE and network file
# systems): the rename has happened, and durability is all that is lost.
_NO_DIRECTORY_SYNC: Final = frozenset(
    {errno.EACCES, errno.EPERM, errno.EINVAL, errno.EOPNOTSUPP, errno.ENOTSUP}
)
_O_CLOEXEC: Final = getattr(os, "O_CLOEXEC", 0)
_O_BINARY: Final = getattr(os, "O_BINARY", 0)  # Windows: no newline translation
_CHUNK: Final = 1 << 26  # bytes per write() call between checks for a signal
_MODE_BITS: Final = 0o777  # set-id bits must not pass to a file of a new owner
# The signals held back, with Python's default handlers for them; SIGTERM
# first, since it is delivered again first: a Ctrl-C must not swallow it.
_DEFAULT_HANDLERS: Final = (
    (signal.SIGTERM, signal.SIG_DFL),
    (signal.SIGINT, signal.default_int_handler),
)


def replace_file(
    path: str | os.PathLike[str], chunks: Sequence[bytes | memoryview]
) -> None:
    """Replace ``path`` with a file holding ``chunks``, atomically and durably.

    Raises:
        OSError: the file cannot be created, written, renamed or synced.
        KeyboardInterrupt: SIGINT arrived during the write (SIGTERM ends the
            process); the destination is then either untouched or complete.

    """
    destination = _destination(os.fspath(path))
    folder = os.path.dirname(destination)
    with _Deferred() as deferred:
        _sweep(folder)
        old = _regular_file(destination)
        try:
            _replace(destination, chunks, deferred, old, unnamed=True)
        except _Unlinkable:
            # The unnamed file could not be given a name (a sandbox whose
            # /proc refuses linkat, say): the same bytes again, named.
            _replace(destination, chunks, deferred, old, unnamed=False)
        _sync_directory(folder)


class _Unlinkable(Exception):  # noqa: N818 - not an error to report: a detour
    """linkat() refused to name the unnamed temporary file."""


def _replace(
    destination: str,
    chunks: Sequence[bytes | memoryview],
    deferred: _Deferred,
    old: os.stat_result | None,
    *,
    unnamed: bool,
) -> None:
    folder = os.path.dirname(destination)
    fd, temp = _create(folder, old, unnamed=unnamed)
    try:
        _write_all(fd, chunks, deferred)
        os.fsync(fd)
        deferred.check()
        # From here on the write is finished rather than abandoned.
        if temp is None:
            temp = _link(fd, folder)
        os.replace(temp, destination)
    except BaseException:
        if temp is not None:
            _unlink_quietly(temp)
        raise
    finally:
        os.close(fd)  # releases the lock only after the name is gone


class _Interrupted(BaseException):
    """A held-back signal: abandon the write at this safe point."""


class _Deferred:
    """SIGINT and SIGTERM held back until the writer reaches a safe point."""

    def __init__(self) -> None:
        self.pending: set[int] = set()
        self._previous: dict[int, Any] = {}

    def __enter__(self) -> Self:
        for signum, default in _DEFAULT_HANDLERS:
            # Only Python's defaults are replaced: a program's own handler or
            # SIG_IGN says what it wants, and the write must not change that.
            if signal.getsignal(signum) != default:
                continue
            try:
                signal.signal(signum, self._hold)
            except ValueError:  # not the main thread: only it may set handlers
                break
            self._previous[signum] = default
        return self

    def _hold(self, signum: int, _frame: FrameType | None) -> None:
        self.pending.add(signum)

    def check(self) -> None:
        if self.pending:
            raise _Interrupted

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        for signum, handler in self._previous.items():
            signal.signal(signum, handler)
        # With the default handlers back: SIGTERM ends the process as it
        # would have, SIGINT raises KeyboardInterrupt.
        for signum, _ in _DEFAULT_HANDLERS:
            if signum in self.pending:
                signal.raise_signal(signum)
        if exc_type is _Interrupted:
            # The signal did neither (it was blocked meanwhile): the write
            # was still abandoned, which must not look like success.
            raise KeyboardInterrupt from None


# Files a write must not replace, by file type.
_SPECIAL: Final = {
    stat.S_IFIFO: "a FIFO",
    stat.S_IFSOCK: "a socket",
    stat.S_IFCHR: "a character device",
    stat.S_IFBLK: "a block device",
}


def _destination(path: str) -> str:
    """Make ``path`` absolute as open() would resolve it, or refuse it as open() does.

    Joined to the working directory, not normalised: ``link/../x`` is the
    ``x`` beside the folder ``link`` points to, as the kernel resolves it,
    which os.path.abspath's lexical ``..`` would take for ``./x``.
    """
    name = os.path.basename(path)
    if name in {"", ".", ".."}:
        # open("x.safetensors/", "wb") fails so: a name ending in a separator
        # (or . or ..) names a folder, never a file to write.
        raise IsADirectoryError(errno.EISDIR, os.strerror(errno.EISDIR), path)
    return os.path.join(os.getcwd(), path)


def _regular_file(path: str) -> os.stat_result | None:
    try:
        info = os.lstat(path)
    except FileNotFoundError:
        return None
    kind = _SPECIAL.get(stat.S_IFMT(info.st_mode))
    if kind is None:
        # A symlink is replaced by the new file (its target is not touched),
        # so only a regular file passes on its mode and owner.
        return info if stat.S_ISREG(info.st_mode) else None
    # Something a program reads or a device: open(path, "wb") would write
    # into it, a rename would replace it (as root, /dev/null itself).
    # Neither is what writing a model file means.
    raise OSError(
        errno.EEXIST,
        f"the destination is {kind}, not a regular file: write() replaces only "
        "regular files",
        path,
    )


def _create(
    folder: str, old: os.stat_result | None, *, unnamed: bool
) -> tuple[int, str | None]:
    """Open a locked temporary file; its name, or None if it has none yet."""
    # 0o666 is what open(path, "wb") asks for (the umask and default ACLs
    # then apply); a replacement starts private and gets the old mode below.
    mode = 0o666 if old is None else 0o600
    while True:
        fd, temp = _open_temporary(folder, mode, unnamed=unnamed)
        try:
            _lock(fd, wait=True)
            if temp is None or _same_file(temp, os.fstat(fd)):
                if old is not None:
                    _adopt(fd, old)
                return fd, temp
        except BaseException:
            os.close(fd)
            if temp is not None:
                _unlink_quietly(temp)
            raise
        # Another write's sweep removed the name before it was locked.
        os.close(fd)


def _open_temporary(folder: str, mode: int, *, unnamed: bool) -> tuple[int, str | None]:
    if unnamed and _O_TMPFILE and os.path.isdir(_PROC_FD):
        try:
            return os.open(folder, _O_TMPFILE | os.O_WRONLY | _O_CLOEXEC, mode), None
        except OSError as exc:
            if exc.errno not in _NO_TMPFILE:
                raise
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | _O_CLOEXEC | _O_BINARY
    while True:
        temp = os.path.join(folder, _temp_name())
        try:
            return os.open(temp, flags, mode), temp
        except FileExistsError:
            continue


def _adopt(fd: int, old: os.stat_result) -> None:
    """Give the new file the replaced file's owner and permission bits."""
    if sys.platform == "win32":  # pragma: no cover - no POSIX owner or mode bits
        return
    new = os.fstat(fd)
    if (new.st_uid, new.st_gid) != (old.st_uid, old.st_gid):
        _give(fd, old)
    os.fchmod(fd, stat.S_IMODE(old.st_mode) & _MODE_BITS)


def _give(fd: int, old: os.stat_result) -> None:
    # Root may keep the owner, a member of the old group the group; anyone
    # else's file becomes the writer's, as any newly created file does.
    try:
        os.fchown(fd, old.st_uid, old.st_gid)
    except PermissionError:
        return


def _temp_name() -> str:
    return f"{_PREFIX}{os.urandom(_RANDOM_BYTES).hex()}{_SUFFIX}"


def _is_temp_name(name: str) -> bool:
    return (
        len(name) == _NAME_LENGTH
        and name.startswith(_PREFIX)
        and name.endswith(_SUFFIX)
        and set(name[len(_PREFIX) : -len(_SUFFIX)]) <= _HEX
    )


def _write_all(
    fd: int, chunks: Sequence[bytes | memoryview], deferred: _Deferred
) -> None:
    for chunk in chunks:
        view = memoryview(chunk)
        done = 0
        while done < len(view):
            deferred.check()
            # write() may write less than asked (a full disk fails on the
            # next call); a bounded slice keeps signal checks frequent.
            done += os.write(fd, view[done : done + _CHUNK])


def _link(fd: int, folder: str) -> str:
    """Give the unnamed file a temporary name (the rename needs one)."""
    # linkat(AT_SYMLINK_FOLLOW) follows /proc's link to the open file; a
    # src_dir_fd is what makes os.link call linkat rather than link().
    try:
        proc = os.open(_PROC_FD, os.O_RDONLY | os.O_DIRECTORY | _O_CLOEXEC)
    except OSError as exc:
        raise _Unlinkable from exc
    try:
        while True:
            temp = os.path.join(folder, _temp_name())
            try:
                os.link(str(fd), temp, src_dir_fd=proc)
            except FileExistsError:
                continue
            except OSError as exc:
                raise _Unlinkable from exc
            return temp
    finally:
        os.close(proc)


def _sync_directory(folder: str) -> None:
    if sys.platform == "win32":  # pragma: no cover - no directory handles to sync
        return
    try:
        fd = os.open(folder, os.O_RDONLY | os.O_DIRECTORY | _O_CLOEXEC)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)
    except OSError as exc:
        if exc.errno not in _NO_DIRECTORY_SYNC:
            raise


def _lock(fd: int, *, wait: bool) -> bool:
    """Take the lock that marks a temporary file as alive; False if taken."""
    if sys.platform == "win32":  # pragma: no cover - no flock: Windows never sweeps
        return False
    try:
        fcntl.flock(fd, fcntl.LOCK_EX if wait else fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        # Held by a live writer, or a file system without locks: both mean
        # "do not sweep"; a writer that cannot lock writes on regardless.
        return False
    return True


def _sweep(folder: str) -> None:
    """Remove temporary files whose writers died before they could."""
    if sys.platform == "win32":  # pragma: no cover - no flock: liveness unknown
        return
    try:
        with os.scandir(folder) as entries:
            names = [entry.path for entry in entries if _is_temp_name(entry.name)]
    except OSError:
        return  # creating the temporary file reports the problem
    for path in names:
        _remove_if_abandoned(path)


def _remove_if_abandoned(path: str) -> None:
    try:
        # O_NOFOLLOW and O_NONBLOCK: a symlink or FIFO named like ours is
        # refused at once, never followed or waited on.
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | _O_CLOEXEC)
    except OSError:
        return
    try:
        info = os.fstat(fd)
        if (
            stat.S_ISREG(info.st_mode)
            and info.st_uid == os.geteuid()
            and _lock(fd, wait=False)
            and _same_file(path, info)
        ):
            os.unlink(path)
    except OSError:
        return
    finally:
        os.close(fd)


def _same_file(path: str, info: os.stat_result) -> bool:
    try:
        now = os.lstat(path)
    except FileNotFoundError:
        return False
    return (now.st_dev, now.st_ino) == (info.st_dev, info.st_ino)


def _unlink_quietly(path: str) -> None:
    try:
        os.unlink(path)
    except OSError:
        return
