"""A file read with ordinary reads instead of a mapping, so it cannot fault.

A mapped file that another process truncates kills the reader with SIGBUS
the moment it touches a page past the new end; no exception handler can
catch that.  ``read(path, mapped=False)`` gives the reader this object
instead of the mapping's memoryview: the header is copied once when the file
is opened, tensor bytes are copied when asked for, and a file that shrank in
between is a ``SafetensorsError`` rather than a dead process.
"""

from __future__ import annotations

import os
from _thread import allocate_lock

from stspec._errors import SafetensorsError
from stspec._rules import MAX_HEADER_SIZE

# typing and threading are not imported at run time (start-up cost of
# `stspec check`); mypy reads this as True.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from io import FileIO
    from typing import Final

__all__ = ["FileBuffer"]

_PREFIX_SIZE: Final = 8


class FileBuffer:
    """The bytes of a file, served by reads; stands in for a mapping's memoryview.

    It offers what the reader uses of that memoryview: ``len()``, slicing
    (each slice a fresh, read-only memoryview) and ``release()``, which
    closes the file.  The length is the file's size when it was opened, or
    less if the header could not be read in full because the file shrank.
    """

    __slots__ = ("_file", "_head", "_length", "_lock")

    def __init__(self, path: str | os.PathLike[str]) -> None:
        # Unbuffered: a buffer would serve bytes read before the file changed.
        self._file: FileIO = open(path, "rb", buffering=0)  # noqa: SIM115, PTH123 - kept open; str or PathLike
        # seek + readinto are two steps: one file position, many threads.
        self._lock = allocate_lock()  # threading.Lock, without threading
        try:
            self._head, self._length = self._read_head()
        except BaseException:
            self._file.close()
            raise

    def _read_head(self) -> tuple[bytearray, int]:
        length = os.fstat(self._file.fileno()).st_size
        expected = min(length, _PREFIX_SIZE)
        head = self._read(0, expected)
        if len(head) == _PREFIX_SIZE:
            # Copy the header only when the prefix makes it plausible; the
            # reader rejects the file from the prefix alone otherwise.
            header_length = int.from_bytes(head, "little")
            if header_length <= MAX_HEADER_SIZE and (
                _PREFIX_SIZE + header_length <= length
            ):
                # Read in place after the prefix: the header is held once,
                # never copied (a check peaks at one copy of it, as HF).
                head = self._read(_PREFIX_SIZE, header_length, head)
                expected += header_length
        if len(head) < expected:
            # The file shrank since fstat: judge it as it is now, ending here.
            length = len(head)
        return head, length

    def _read(
        self, position: int, size: int, before: bytes | bytearray = b""
    ) -> bytearray:
        """Read ``size`` bytes at ``position`` (fewer if the file ends first).

        They follow the bytes ``before`` in the buffer returned.
        """
        skip = len(before)
        data = bytearray(skip + size)
        data[:skip] = before
        view = memoryview(data)
        got = 0
        with self._lock:
            self._file.seek(position)
            # One read returns at most about 2 GiB on Linux, and less if a
            # signal interrupts it: loop until the bytes are there or EOF.
            while got < size:
                count = self._file.readinto(view[skip + got :])
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
        if stop <= len(self._head):
            return memoryview(self._head).toreadonly()[start:stop]
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
        self._file.close()
