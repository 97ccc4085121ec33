"""A file read with ordinary reads instead of a mapping, so it cannot fault.

A mapped file that another process truncates kills the reader with SIGBUS
the moment it touches a page past the new end; no exception handler can
catch that.  ``read(path, mapped=False)`` gives the reader this object
instead of the mapping's memoryview: the header is copied once when the file
is opened, tensor bytes are copied when asked for, and a file that shrank in
between is a ``SafetensorsError`` rather than a dead process.
"""

from __future__ import annotations

import errno
import os
import stat

from stspec.errors import SafetensorsError
from stspec.rules import MAX_HEADER_SIZE

# typing is not imported at run time (start-up cost of `stspec check`); mypy
# reads this as True.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Final

__all__ = ["FileBuffer"]

_PREFIX_SIZE: Final = 8
# The first read of a file: its prefix and, in most small files, the header.
_FIRST_READ: Final = 4096


class FileBuffer:
    """The bytes of a file, served by reads; stands in for a mapping's memoryview.

    It offers what the reader uses of that memoryview: ``len()``, slicing
    (each slice a fresh, read-only memoryview) and ``release()``, which
    closes the file.  The length is the file's size when it was opened, or
    less if the header could not be read in full because the file shrank.
    ``head`` holds the file's first bytes: the prefix and, when the prefix
    makes it plausible, the header.
    """

    __slots__ = ("_fd", "_length", "head")

    def __init__(self, path: str | os.PathLike[str] | int) -> None:
        # A bare descriptor read at explicit positions (pread): no buffer to
        # serve bytes read before the file changed, no shared file position
        # for threads to guard, and a third of the cost of a file object
        # (checking a folder opens thousands).  A descriptor passed in is
        # duplicated: release() closes the copy, the caller keeps its own.
        self._fd = os.dup(path) if isinstance(path, int) else os.open(path, os.O_RDONLY)
        try:
            self.head, self._length = self._read_head(path)
        except BaseException:
            self.release()
            raise

    def _read_head(
        self, path: str | os.PathLike[str] | int
    ) -> tuple[bytes | bytearray, int]:
        status = os.fstat(self._fd)
        if stat.S_ISDIR(status.st_mode):
            # Opening a directory for reading succeeds; reading it does not
            # (and an empty one may report size 0): say so as open() would.
            raise IsADirectoryError(
                errno.EISDIR,
                os.strerror(errno.EISDIR),
                path if isinstance(path, int) else os.fspath(path),
            )
        length = status.st_size
        # One read takes the prefix and a small header together (a folder
        # of small files is read at a call per file).
        head: bytes | bytearray = os.pread(self._fd, min(length, _FIRST_READ), 0)
        expected = min(length, _PREFIX_SIZE)
        if len(head) >= _PREFIX_SIZE:
            # Keep the header only when the prefix makes it plausible; the
            # reader rejects the file from the prefix alone otherwise.
            header_length = int.from_bytes(head[:_PREFIX_SIZE], "little")
            if header_length <= MAX_HEADER_SIZE and (
                _PREFIX_SIZE + header_length <= length
            ):
                expected += header_length
                if len(head) < expected:
                    # Read in place after what was read: the header is held
                    # once, never copied (a check peaks at one copy of it).
                    head = self._read(len(head), expected - len(head), head)
        if len(head) < expected:
            # The file shrank since fstat: judge it as it is now, ending here.
            length = len(head)
        elif len(head) > expected:
            # Tensor bytes are read when asked for, never served from here.
            head = head[:expected]
        return head, length

    def _read(
        self, position: int, size: int, before: bytes | bytearray = b""
    ) -> bytearray:
        """Read ``size`` bytes at ``position`` (fewer if the file ends first).

        They follow the bytes ``before`` in the buffer returned.
        """
        if self._fd < 0:
            raise ValueError("I/O operation on closed file")
        skip = len(before)
        data = bytearray(skip + size)
        data[:skip] = before
        view = memoryview(data)
        got = 0
        # One read returns at most about 2 GiB on Linux, and less if a
        # signal interrupts it: loop until the bytes are there or EOF.
        while got < size:
            count = os.preadv(self._fd, [view[skip + got :]], position + got)
            if not count:
                break
            got += count
        view.release()
        del data[skip + got :]
        return data

    def __len__(self) -> int:
        return self._length

    def __getitem__(self, key: slice) -> memoryview:
        start, stop, _ = key.indices(self._length)
        if stop <= len(self.head):
            return memoryview(self.head).toreadonly()[start:stop]
        size = max(stop - start, 0)
        data = self._read(start, size)
        if len(data) < size:
            raise SafetensorsError(
                "LAYOUT-BOUNDS",
                start + len(data),
                f"read {len(data)} of the {size} bytes from byte {start}: the file "
                f"was {self._length} bytes long when opened and has shrunk since",
            )
        return memoryview(data).toreadonly()

    def release(self) -> None:
        """Close the file; views already handed out stay valid (they are copies)."""
        # Closing a descriptor twice could close another file that was
        # given the same number in between.
        fd, self._fd = self._fd, -1
        if fd >= 0:
            os.close(fd)
