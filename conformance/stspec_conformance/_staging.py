"""What an implementation is given: a private copy of the bytes it must judge.

Never the committed corpus file (a reader that truncates, deletes or appends
to its input would damage the corpus and make the next implementation fail),
and never a name or a place that tells the verdict: the copy is
``input.safetensors`` alone in a fresh directory only this user can enter, no
``n_``/``y_`` name, no manifest beside it.  The directory is removed after the
call, whatever the implementation did to it.  Holes of a sparse file stay
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
    try:
        directory = tempfile.mkdtemp(prefix="stspec-")
        target = Path(directory, NEUTRAL_NAME)
        if isinstance(source, bytes):
            target.write_bytes(source)
        else:
            _copy_sparse(Path(source), target)
    except OSError as exc:
        if directory:
            shutil.rmtree(directory, ignore_errors=True)
        what = f"{len(source)} bytes" if isinstance(source, bytes) else str(source)
        msg = (
            f"the suite could not copy {what} into its temporary folder "
            f"({tempfile.gettempdir()}): {exc}; free space there or set TMPDIR"
        )
        raise StagingError(msg) from None
    try:
        yield str(target)
    finally:
        _remove(directory)


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


def _remove(directory: str) -> None:
    # The implementation may have left the folder unwritable or full of
    # read-only subfolders; make it removable first.
    with contextlib.suppress(OSError):
        os.chmod(directory, 0o700)
    for root, dirs, _ in os.walk(directory):
        for name in dirs:
            with contextlib.suppress(OSError):
                os.chmod(os.path.join(root, name), 0o700)
    shutil.rmtree(directory, ignore_errors=True)
