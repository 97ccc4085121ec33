"""Open what the command reads without ever blocking on it.

A name looked at with ``stat()`` can be swapped for a FIFO before it is
opened, and a blocking open of a FIFO waits for a writer for ever.  So every
file the command reads (a file to check, an index, an existing SARIF log, a
file to inspect) is opened here: without blocking (a FIFO or a device opens
at once), then judged by ``fstat`` on the descriptor, which describes the
file actually opened, not the one the name pointed at a moment earlier.
Only a regular file is handed on; anything else is refused with its kind.

Symlinks are followed (no O_NOFOLLOW): a Hugging Face cache snapshot is a
folder of symlinks to blobs, and what a link points at is judged like any
file.  Streams (``-``, pipes, FIFOs named as arguments) are read elsewhere
(inputs.py), on purpose and with a time limit.
"""

from __future__ import annotations

import errno
import os
import stat

# No typing at run time (start-up cost, see stspec/record.py); mypy reads this as True.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Final

__all__ = ["NotRegularFileError", "kind", "open_regular", "regular_file"]

# os.O_NONBLOCK is missing on Windows, which has no FIFOs to open by name.
_NONBLOCK: Final = getattr(os, "O_NONBLOCK", 0)
_FLAGS: Final = os.O_RDONLY | _NONBLOCK | getattr(os, "O_CLOEXEC", 0)


class NotRegularFileError(OSError):
    """A name that, once opened, is a FIFO, a socket, a device or a folder.

    Also a /proc or /sys file, which is regular but reports size 0 whatever
    it holds.  An OSError, so that it is reported wherever I/O errors are:
    its ``strerror`` is the reason shown, ``not a regular file (a FIFO)``.
    """

    def __init__(
        self, path: str, reason: str, code: int = errno.EINVAL, *, stream: bool = False
    ) -> None:
        super().__init__(code, reason, path)
        self.stream = stream  # a FIFO or a socket: something that sends data


_KINDS: Final = {
    stat.S_IFIFO: "a FIFO",
    stat.S_IFSOCK: "a socket",
    stat.S_IFDIR: "a folder",
    stat.S_IFCHR: "a character device",
    stat.S_IFBLK: "a block device",
    stat.S_IFREG: "a regular file",
}


def kind(mode: int) -> str:
    """Name the kind of file ``mode`` describes, for a message."""
    # Doors and event ports (other systems) have no name here.
    return _KINDS.get(stat.S_IFMT(mode), "not a file")


def open_regular(path: str) -> int:
    """Open ``path`` for reading if it is a regular file; return the descriptor.

    The open never blocks.  Read the file with ``os.pread``: its position
    may have moved.

    Raises:
        NotRegularFileError: the opened file is not a regular file.
        OSError: it cannot be opened.

    """
    fd = os.open(path, _FLAGS)
    try:
        _judge(fd, path)
    except BaseException:
        os.close(fd)
        raise
    return fd


def _judge(fd: int, path: str) -> None:
    status = os.fstat(fd)
    if not stat.S_ISREG(status.st_mode):
        code = errno.EISDIR if stat.S_ISDIR(status.st_mode) else errno.EINVAL
        reason = f"not a regular file ({kind(status.st_mode)})"
        stream = stat.S_ISFIFO(status.st_mode) or stat.S_ISSOCK(status.st_mode)
        raise NotRegularFileError(path, reason, code, stream=stream)
    if status.st_size == 0:
        # An empty file, or a /proc or /sys file, which reports size 0
        # whatever it holds: reading one byte tells them apart.
        try:
            empty = not os.read(fd, 1)
        except OSError as exc:
            why = exc.strerror or str(exc)
            reason = f"not a regular file: its size is 0 and reading it fails ({why})"
            raise NotRegularFileError(path, reason) from None
        if not empty:
            raise NotRegularFileError(
                path,
                "not a regular file: its size is 0 but it has content "
                "(a /proc or /sys file?)",
            )


class regular_file:  # noqa: N801 - used as a function, like open()
    """:func:`open_regular` as a context manager that closes the descriptor."""

    # A class, not contextlib.contextmanager: importing contextlib costs the
    # `stspec` command 3 M instructions of start-up.
    __slots__ = ("_fd", "_path")

    def __init__(self, path: str) -> None:
        self._path = path
        self._fd = -1

    def __enter__(self) -> int:
        self._fd = open_regular(self._path)
        return self._fd

    def __exit__(self, *_exc: object) -> None:
        os.close(self._fd)
