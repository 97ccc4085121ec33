"""A small file judged from one read, and ``stspec check FILE`` when that is all.

Most files' headers are short and in the compact form writers emit:
:func:`stspec.reader.recognise.sound_header` vouches for such a header from
the first read of the file, before the reader's full checks would run.
:func:`judge_small` is that first step of every file a check opens.

A command that names one such file needs nothing else the command has:
:func:`check_small` checks it and prints its line without loading the
modules that gather inputs, run processes, check models and write reports
(they are most of the command's start-up).  Whatever it cannot vouch for
(another kind of argument, a file that cannot be opened, a long or invalid
header) it leaves to the whole command, which says what is wrong.
"""

from __future__ import annotations

import os

from stspec.audit.opening import open_regular
from stspec.audit.terminal import count, file_name, out
from stspec.reader.recognise import WHOLE_LONGEST, sound_header

# No typing at run time (start-up cost, see stspec/record.py); mypy reads this as True.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Final

    from stspec.reader.table import TensorTable

__all__ = ["check_small", "judge_small", "valid_line"]

_PREFIX: Final = 8  # the header's length, a u64, comes first
# The first read of a file: the prefix and a header sound_header may judge.
_WHOLE_READ: Final = _PREFIX + WHOLE_LONGEST


def judge_small(fd: int) -> tuple[int, dict[str, str] | None, TensorTable, int] | None:
    """Return a small sound file's data start, metadata, tensors and length.

    None says only that the file needs the reader's full checks.
    """
    head = os.pread(fd, _WHOLE_READ, 0)
    # A longer header is left to the reader without asking for the size.
    if int.from_bytes(head[:_PREFIX], "little") > WHOLE_LONGEST:
        return None
    size = os.fstat(fd).st_size
    found = sound_header(head, size)
    if found is None:
        return None
    header_length, metadata, tensors = found
    return _PREFIX + header_length, metadata, tensors, size


def check_small(path: str, *, quiet: bool) -> bool:
    """Check the file ``path`` names alone; False if the whole command must.

    True: the file is valid and its line printed (nothing under ``quiet``).
    Taken only for a plain file name: ``-``, URLs, indexes and the names of
    this process's own files (/dev/stdin, /proc/self/fd/N) are the whole
    command's (see inputs.py).
    """
    if (
        not path.endswith(".safetensors")
        or "://" in path
        or path.startswith(("/dev/", "/proc/"))
    ):
        return False
    try:
        fd = open_regular(path)
    except OSError:
        return False
    try:
        found = judge_small(fd)
    except OSError:
        return False
    finally:
        os.close(fd)
    if found is None:
        return False
    _, _, tensors, size = found
    if not quiet:
        out(valid_line(path, len(tensors), size))
    return True


def valid_line(file: str, tensors: int, size: int) -> str:
    """Render a valid file's line: ``FILE: valid (N tensors, M bytes)``.

    The whole command prints it too (command.py): both ways print the same.
    """
    return (
        f"{file_name(file)}: valid ({count(tensors, 'tensor')}, {count(size, 'byte')})"
    )
