"""From command-line arguments to files to check: folders, pipes, devices.

A folder is searched for ``*.safetensors`` files and sharded-checkpoint
index files.  A pipe, a FIFO or ``-`` (stdin) is read to its end, with the
header limit applied as the bytes arrive, and only its header is kept: the
check needs the header and the stream's length, never the tensor bytes.  A
device (``/dev/zero``) or a file that reports size 0 yet has content
(``/proc/self/mem``) is refused as not a regular file: reading it would
never end or would not mean what its size says.
"""

# ruff: noqa: PTH116, PTH118 - plain str paths: the command starts without pathlib

from __future__ import annotations

import os
import stat

from stspec.audit.opening import NotRegularFileError, kind, open_regular
from stspec.rules import MAX_HEADER_SIZE

# No typing at run time (start-up cost, see stspec/record.py); mypy reads this as True.
TYPE_CHECKING = False
if TYPE_CHECKING:
    import contextlib
    from collections.abc import Callable
    from types import TracebackType
    from typing import Final, NamedTuple, Self, TypeVar

    _T = TypeVar("_T")

    from stspec.audit.remote import Fetched
else:
    from stspec.record import NamedTuple

__all__ = ["Inputs", "Refused", "Scratch", "Target", "entry", "gather", "is_index"]

_PREFIX_SIZE: Final = 8
_CHUNK: Final = 1 << 20
_SUFFIX: Final = ".safetensors"
_INDEX: Final = ".safetensors.index"
# Paths that name an open file of this process (/dev/stdin, /dev/fd/3,
# /proc/self/fd/3): only this process can reopen them, so their header is
# copied here before any worker process sees the file.
_PROCESS_PATHS: Final = ("/dev/", "/proc/")


class Target:
    """A file to check: ``path`` is opened, ``shown`` is printed.

    ``refused`` says why a file found in a folder must not be opened (a FIFO,
    a device): it is reported in its place among the others, unread.
    """

    # A plain class: a NamedTuple field may not be called "index".
    __slots__ = ("index", "path", "refused", "remote", "shown")

    def __init__(
        self,
        path: str,
        shown: str,
        *,
        index: bool = False,
        refused: str | None = None,
    ) -> None:
        self.path = path
        self.shown = shown
        self.index = index  # a sharded checkpoint's index file
        self.refused = refused
        self.remote: Fetched | None = None  # a stand-in for a remote file


class Refused(NamedTuple):
    """An argument that cannot be checked, and why (exit status 2)."""

    shown: str
    reason: str


class Scratch:
    """What a run leaves to undo at its end: copies of streams, remote sessions.

    A ``contextlib.ExitStack``, made when the first thing is left to undo:
    importing contextlib costs the ``stspec`` command 3 M instructions of
    start-up (a seventh of what it adds to argparse's), and checking files
    on disk leaves nothing.
    """

    __slots__ = ("_stack",)

    def __init__(self) -> None:
        self._stack: contextlib.ExitStack | None = None

    def _made(self) -> contextlib.ExitStack:
        if self._stack is None:
            from contextlib import ExitStack  # noqa: PLC0415 - see the docstring

            self._stack = ExitStack()
        return self._stack

    def callback(
        self, undo: Callable[..., object], /, *args: object, **kwargs: object
    ) -> None:
        """Call ``undo(*args, **kwargs)`` at the end (as ExitStack.callback)."""
        self._made().callback(undo, *args, **kwargs)

    def enter_context(self, manager: contextlib.AbstractContextManager[_T]) -> _T:
        """Enter ``manager`` now and exit it at the end (as ExitStack does)."""
        return self._made().enter_context(manager)

    def __enter__(self) -> Self:
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        trace: TracebackType | None,
    ) -> None:
        # What is undone here never swallows an exception (the callbacks
        # delete files, a session closes), so none is suppressed.
        if self._stack is not None:
            self._stack.__exit__(kind, error, trace)


class Inputs:
    """What the arguments name, in order, plus the files folders also hold."""

    __slots__ = ("refused", "skipped", "targets")

    def __init__(self) -> None:
        self.targets: list[Target] = []
        self.refused: list[Refused] = []
        # folder -> the files in it that are neither safetensors nor an index
        self.skipped: dict[str, list[str]] = {}


def gather(
    arguments: list[str],
    *,
    wait: float,
    scratch: Scratch,
    whole_models: bool = False,
    remote: Callable[[str], tuple[list[Target], list[str]]] | None = None,
) -> Inputs:
    """Resolve every argument; copies of streams live as long as ``scratch``.

    ``remote``: what turns a URL or ``hf://`` argument into targets and the
    names it skipped (standins.py); without it, they are local file names.

    ``whole_models``: a file named as an argument also brings the index files
    beside it (in its folder, not below), so that the models they describe
    are checked whole.
    """
    found = Inputs()
    seen: set[str] = set()
    indexed: set[str] = set()  # folders whose indexes were added

    def add(target: Target) -> None:
        key = os.path.normpath(target.path)
        if key not in seen:
            seen.add(key)
            found.targets.append(target)

    for argument in arguments:
        if remote is not None and _is_remote(argument):
            result = _remote(argument, remote, found)
        else:
            result = _resolve(argument, wait=wait, scratch=scratch, found=found)
        if isinstance(result, Refused):
            found.refused.append(result)
        else:
            for target in result:
                add(target)
            if whole_models and _is_file_argument(argument, result):
                folder = os.path.dirname(argument)  # noqa: PTH120 - a plain path string
                if folder not in indexed:
                    indexed.add(folder)
                    for index in _indexes_beside(folder, found):
                        add(index)
    return found


def _is_remote(argument: str) -> bool:
    return argument.lower().startswith(("https://", "http://", "hf://"))


def _remote(
    argument: str,
    remote: Callable[[str], tuple[list[Target], list[str]]],
    found: Inputs,
) -> Refused | list[Target]:
    from stspec.audit.remote import RemoteError  # noqa: PLC0415 - remote runs only

    try:
        targets, skipped = remote(argument)
    except RemoteError as exc:
        return Refused(argument, exc.strerror or str(exc))
    if skipped:
        found.skipped[argument] = skipped
    return targets


def _is_file_argument(argument: str, targets: list[Target]) -> bool:
    """Whether ``argument`` named one file on disk (not a folder or a stream)."""
    if len(targets) != 1 or argument == "-":
        return False
    target = targets[0]
    return target.path == argument and not target.index


def _indexes_beside(folder: str, found: Inputs) -> list[Target]:
    """List the index files in ``folder`` ("" for the current one), by name."""
    try:
        files, _ = _listing(folder or ".")
    except OSError as exc:
        found.refused.append(Refused(folder or ".", exc.strerror or str(exc)))
        return []
    return [
        entry(os.path.join(folder, name), index=True)
        for name in files
        if is_index(name)
    ]


def _resolve(
    argument: str, *, wait: float, scratch: Scratch, found: Inputs
) -> Refused | list[Target]:
    try:
        return _targets(argument, wait=wait, scratch=scratch, found=found)
    except OSError as exc:
        return Refused(argument, exc.strerror or str(exc))
    except _RefusedError as exc:
        return Refused(argument, str(exc))


def _targets(
    argument: str, *, wait: float, scratch: Scratch, found: Inputs
) -> list[Target]:
    if argument == "-":
        return [_stdin(wait, scratch)]
    mode = os.stat(argument).st_mode
    if stat.S_ISDIR(mode):
        return _folder(argument, found)
    if stat.S_ISFIFO(mode) or stat.S_ISSOCK(mode):
        return [_fifo(argument, wait, scratch)]
    if not stat.S_ISREG(mode):
        raise _RefusedError(f"not a regular file ({kind(mode)})")
    return [_regular(argument, scratch)]


def is_index(name: str) -> bool:
    """Whether a file name is a sharded checkpoint's index.

    ``PREFIX.safetensors.index.json``, and the variant form transformers and
    diffusers write for ``variant="fp16"``: ``PREFIX.safetensors.index.fp16.json``
    (their ``_add_variant`` puts the variant before the last suffix).
    """
    if not name.endswith(".json"):
        return False
    stem = name.removesuffix(".json")
    if stem.endswith(_INDEX):
        return True
    head, _, variant = stem.rpartition(".")
    return bool(variant) and head.endswith(_INDEX)


class _RefusedError(Exception):
    """An input that is readable but must not be judged as a file."""


def _folder(folder: str, found: Inputs) -> list[Target]:
    targets = []
    others = []
    # Walked with an explicit stack, not os.walk: a folder 1,100 levels deep
    # must not exhaust the recursion limit, and a folder that cannot be
    # listed (no permission, a path past PATH_MAX) must be named, never
    # skipped (os.walk ignores it unless asked).
    unread = []
    stack = [folder]
    while stack:
        top = stack.pop()
        try:
            files, folders = _listing(top)
        except OSError as exc:
            unread.append(Refused(top, exc.strerror or str(exc)))
            continue
        # Depth first, in name order: the folders are taken from the stack's end.
        stack += reversed(folders)
        for name in files:
            path = os.path.join(top, name)
            if is_index(name):
                targets.append(entry(path, index=True))
            elif name.endswith(_SUFFIX):
                targets.append(entry(path))
            else:
                others.append(os.path.relpath(path, folder))
    if not targets and not unread:
        raise _RefusedError(f"no {_SUFFIX} or index files in folder {folder!r}")
    found.refused += unread
    if others:
        found.skipped[folder] = others
    return targets


def _listing(top: str) -> tuple[list[str], list[str]]:
    """Return the names of the files and the paths of the folders in ``top``.

    Symlinked folders count as files (and are not followed), as in os.walk.
    """
    files: list[str] = []
    folders: list[str] = []
    with os.scandir(top) as entries:
        for item in entries:
            try:
                is_folder = item.is_dir(follow_symlinks=False)
            except OSError:  # pragma: no cover - lstat of a listed name failed
                is_folder = False
            (folders if is_folder else files).append(item.name)
    return sorted(files), [os.path.join(top, name) for name in sorted(folders)]


def entry(path: str, *, index: bool = False) -> Target:
    """Judge a file found in a folder (or named by an index) before opening it.

    What arguments get, without opening anything that could block: a FIFO,
    a socket or a device (also behind a symlink: /dev/stdin, /dev/zero) is
    refused, and so is a file that reports size 0 but has content (/proc).
    A name that cannot be looked at is left to the check, which reports why.
    """
    try:
        info = os.stat(path)
        if not stat.S_ISREG(info.st_mode):
            what = kind(info.st_mode)
            return Target(path, path, refused=f"not a regular file ({what})")
        if info.st_size == 0:
            _refuse_pseudo_file(path)
    except OSError:
        pass
    except _RefusedError as exc:
        return Target(path, path, refused=str(exc))
    return Target(path, path, index=index)


def _regular(path: str, scratch: Scratch) -> Target:
    index = is_index(os.path.basename(path))  # noqa: PTH119 - a plain path string
    if not path.startswith(_PROCESS_PATHS):
        if os.stat(path).st_size == 0:
            _refuse_pseudo_file(path)
        return Target(path, path, index=index)
    fd = _open(path)
    try:
        size = os.fstat(fd).st_size
        head = os.pread(fd, _PREFIX_SIZE, 0)
        length = _header_length(head)
        if length is not None:
            head += os.pread(fd, length, _PREFIX_SIZE)
    finally:
        os.close(fd)
    return Target(_sparse_copy(head, size, scratch), path, index=index)


def _refuse_pseudo_file(path: str) -> None:
    """Tell an empty file from a /proc or /sys file, which reports size 0."""
    os.close(_open(path))


def _open(path: str) -> int:
    """Open a regular file without blocking (the name may be a FIFO by now)."""
    try:
        return open_regular(path)
    except NotRegularFileError as exc:
        raise _RefusedError(exc.strerror) from None


def _stdin(wait: float, scratch: Scratch) -> Target:
    mode = os.fstat(0).st_mode
    if stat.S_ISREG(mode):
        return Target(_regular("/dev/stdin", scratch).path, "-")
    if not (stat.S_ISFIFO(mode) or stat.S_ISSOCK(mode)):
        raise _RefusedError(f"stdin is not a file or a pipe ({kind(mode)})")
    return _stream(0, "-", wait, scratch)


def _fifo(path: str, wait: float, scratch: Scratch) -> Target:
    # Opening a FIFO blocks until a writer opens it; non-blocking, the wait
    # for data is bounded below instead.
    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
    try:
        return _stream(fd, path, wait, scratch)
    finally:
        os.close(fd)


def _stream(fd: int, shown: str, wait: float, scratch: Scratch) -> Target:
    head = _receive(fd, _PREFIX_SIZE, wait)
    total = len(head)
    length = _header_length(head)
    if length is not None:
        header = _receive(fd, length, wait)
        head += header
        total += len(header)
        total += _drain(fd, wait)
    # Beyond the limit, the prefix alone decides (HEADER-LIMIT): the rest of
    # the stream is not read at all.
    return Target(_sparse_copy(head, total, scratch), shown, index=False)


def _header_length(prefix: bytes) -> int | None:
    """Return the header length to read after ``prefix`` (None: read no more)."""
    if len(prefix) < _PREFIX_SIZE:
        return None
    length = int.from_bytes(prefix, "little")
    return length if length <= MAX_HEADER_SIZE else None


def _receive(fd: int, size: int, wait: float) -> bytes:
    """Read ``size`` bytes, fewer only at the end of the stream."""
    parts = []
    remaining = size
    while remaining:
        chunk = _read_some(fd, min(remaining, _CHUNK), wait)
        if not chunk:
            break
        parts.append(chunk)
        remaining -= len(chunk)
    return b"".join(parts)


def _drain(fd: int, wait: float) -> int:
    """Read the stream to its end; return how many bytes it held."""
    total = 0
    while chunk := _read_some(fd, _CHUNK, wait):
        total += len(chunk)
    return total


def _read_some(fd: int, size: int, wait: float) -> bytes:
    import select  # noqa: PLC0415 - pipes only: files start faster without it

    while True:
        ready, _, _ = select.select([fd], [], [], wait)
        if not ready:
            raise _RefusedError(
                f"no data arrived for {wait:g} s (is anything writing to it?)"
            )
        try:
            return os.read(fd, size)
        except BlockingIOError:  # pragma: no cover - readable, then not: a race
            continue


def _sparse_copy(head: bytes, length: int, scratch: Scratch) -> str:
    """Write ``head`` to a scratch file ``length`` bytes long; return its path.

    Past the head the file is a hole: it takes no disk space, and the check
    reads nothing there.
    """
    import tempfile  # noqa: PLC0415 - start-up time: only streams need it

    fd, path = tempfile.mkstemp(prefix="stspec-", suffix=_SUFFIX)
    scratch.callback(os.unlink, path)
    with os.fdopen(fd, "wb") as file:
        file.write(head)
        file.truncate(length)
    return path
