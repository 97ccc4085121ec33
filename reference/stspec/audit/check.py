"""Check one file, or many across processes, into picklable results."""

from __future__ import annotations

import os
import time

from stspec.audit.opening import open_regular
from stspec.audit.small import judge_small
from stspec.audit.summary import Summary, summarize
from stspec.errors import SafetensorsError
from stspec.rules import verdict_of

# No typing at run time (start-up cost, see stspec/record.py); mypy reads this as True.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Generator, Sequence
    from typing import Final, NamedTuple, TextIO

    from stspec.audit.shards import Holdings
    from stspec.audit.sniff import Format
    from stspec.reader.table import TensorTable
else:
    from stspec.record import NamedTuple

__all__ = [
    "WORKER_DIED",
    "FileResult",
    "Progress",
    "Task",
    "check_file",
    "check_files",
    "default_jobs",
]

# Rules that reject a file from its first bytes: the file may be no
# safetensors file at all, and sniff() can say what it is instead.
_PREFIX_RULES: Final = frozenset(
    {"FILE-PREFIX", "HEADER-LIMIT", "HEADER-BOUNDS", "HEADER-UTF8", "HEADER-OBJECT"}
)
# Below this many files a pool costs more to start than it saves.
_POOL_MIN_FILES: Final = 64
_PROGRESS_AFTER: Final = 0.5  # seconds before a progress line appears
_PROGRESS_EVERY: Final = 0.1
# The reason of every file a killed worker left without a result.
WORKER_DIED: Final = (
    "not checked: a process checking files died (killed by the OOM killer or a signal?)"
)


class Task(NamedTuple):
    """One file to check; ``every``: list every violation, not the first."""

    path: str
    shown: str
    every: bool
    holdings: bool  # keep the tensor names (for a sharded model's checks)
    refused: str | None = None  # why the file must not be opened (a FIFO...)


class FileResult(NamedTuple):
    """What checking one file found.

    ``verdict`` is ``valid``, ``invalid``, ``tolerated``, ``rejected`` (only
    the first violation was looked for, and it breaks a MUST rule) or
    ``unreadable`` (``reason`` says why).
    """

    shown: str
    verdict: str
    errors: tuple[SafetensorsError, ...] = ()
    looks_like: Format | None = None
    summary: Summary | None = None
    holdings: Holdings | None = None
    reason: str | None = None
    # Violations found beyond the reader's cap per rule, not listed: rule -> count.
    # (A shared default: results are never changed after they are made.)
    omitted: dict[str, int] = {}  # noqa: RUF012 - see above


def check_file(task: Task) -> FileResult:
    """Check one file; never raises for what the file holds or for I/O."""
    if task.refused is not None:
        return FileResult(task.shown, "unreadable", reason=task.refused)
    try:
        # Opened once, without blocking, and judged by what was opened: a
        # name turned into a FIFO since the folder was listed is refused.
        # (try/finally, not regular_file: five Python calls less per file)
        fd = open_regular(task.path)
        try:
            return _check(task, fd)
        finally:
            os.close(fd)
    except OSError as exc:
        return FileResult(task.shown, "unreadable", reason=exc.strerror or str(exc))


def _check(task: Task, fd: int) -> FileResult:
    # A small header in the form writers emit, judged whole from one read
    # (the reader's own first step, recognise.sound_header): most files of
    # a folder of small files need nothing more.
    found = judge_small(fd)
    if found is not None:
        data_start, metadata, tensors, size = found
        return _valid(task, tensors, metadata, data_start, size)
    # Imported here: a file that sound_header vouches for needs none of the
    # pipeline's modules (the member scan, the first-violation mode, the
    # plain path), and a check of small files starts without them.
    from stspec.reader.pipeline import read, validate  # noqa: PLC0415

    # mapped=False: a check needs the header only, and a mapped file that
    # shrinks under the reader would kill the process with SIGBUS.
    try:
        opened = read(fd, mapped=False)
    except SafetensorsError as exc:
        omitted: dict[str, int] = {}
        errors: tuple[SafetensorsError, ...] = (exc,)
        # read() names a MAY rule only when the file breaks no MUST rule
        # (READ-PRECEDENCE): such a file is tolerated.
        verdict = verdict_of({exc.rule}).replace("invalid", "rejected")
        if task.every:
            found_all = validate(fd, mapped=False)
            # validate() lists at most so many violations per rule and
            # counts the rest (a list without the count lists them all).
            # Empty when the file changed between read() and validate() (a
            # download finishing): the violation read() found stands.
            if found_all:
                errors = tuple(found_all)
                omitted = dict(getattr(found_all, "omitted", {}))
            verdict = verdict_of({error.rule for error in errors})
        looks_like = None
        if errors[0].rule in _PREFIX_RULES:
            # Imported here, as _shards below: most files need neither, and
            # the command starts faster without them.
            from stspec.audit.sniff import SNIFF_SIZE, sniff  # noqa: PLC0415

            looks_like = sniff(os.pread(fd, SNIFF_SIZE, 0))
        return FileResult(task.shown, verdict, errors, looks_like, omitted=omitted)
    with opened:
        return _valid(
            task, opened.tensors, opened.metadata, opened.data_start, opened.file_length
        )


def _valid(
    task: Task,
    tensors: TensorTable,
    metadata: dict[str, str] | None,
    data_start: int,
    file_length: int,
) -> FileResult:
    """Return the result of a valid file with these tensors, metadata and sizes."""
    holdings = None
    if task.holdings:
        from stspec.audit.shards import Holdings  # noqa: PLC0415 - see above

        names, _, offsets, _, _ = tensors.columns
        holdings = Holdings(
            data_start,
            {
                name: (offsets[2 * at], offsets[2 * at + 1])
                for name, at in names.items()
            },
        )
    summary = summarize(tensors, metadata, data_start, file_length)
    return FileResult(task.shown, "valid", summary=summary, holdings=holdings)


def default_jobs() -> int:
    """Count the CPUs this process may run on."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # pragma: no cover - macOS, Windows
        return os.cpu_count() or 1


def check_files(
    tasks: Sequence[Task], *, jobs: int | None, meter: Progress | None = None
) -> Generator[FileResult]:
    """Check files in order, across ``jobs`` processes when that pays.

    ``jobs=None`` chooses: one process per CPU for 64 files or more, else one
    process (a pool costs tens of milliseconds to start).
    """
    if jobs is None:
        jobs = default_jobs() if len(tasks) >= _POOL_MIN_FILES else 1
    meter = meter or Progress(None, len(tasks))
    try:
        if jobs <= 1 or len(tasks) < 2 * jobs:
            for task in tasks:
                yield meter.tick(check_file(task))
            return
        # Imported here: it costs start-up time, and most runs never need it.
        from concurrent.futures import ProcessPoolExecutor  # noqa: PLC0415
        from concurrent.futures.process import BrokenProcessPool  # noqa: PLC0415

        pool = ProcessPoolExecutor(max_workers=jobs, initializer=_leave_ctrl_c)
        done = 0
        try:
            # Chunks amortise the hand-over; four per worker keep them all busy.
            chunk = max(1, min(64, len(tasks) // (4 * jobs)))
            try:
                for result in pool.map(check_file, tasks, chunksize=chunk):
                    done += 1
                    yield meter.tick(result)
            except BrokenProcessPool:
                # A worker was killed (the OOM killer, kill -9): the files
                # without a result are named as not checked, never dropped.
                for task in tasks[done:]:
                    yield meter.tick(
                        FileResult(task.shown, "unreadable", reason=WORKER_DIED)
                    )
        except BaseException:
            # Ctrl-C (or a consumer that stops): drop the queued files rather
            # than wait for them.
            pool.shutdown(wait=False, cancel_futures=True)
            raise
        pool.shutdown()
    finally:
        meter.clear()


def _leave_ctrl_c() -> None:
    """Let the parent alone handle Ctrl-C: workers would each print a traceback."""
    import signal  # noqa: PLC0415 - workers only: the command starts without it

    signal.signal(signal.SIGINT, signal.SIG_IGN)


class Progress:
    """``checked 120/5000 files`` on a terminal, rewritten in place.

    It appears once a run has taken half a second, and only on a terminal;
    whoever prints results calls :meth:`clear` first.
    """

    def __init__(self, stream: TextIO | None, total: int) -> None:
        self.stream = stream if stream is not None and stream.isatty() else None
        self.total = total
        self.done = 0
        self.start = time.monotonic()
        self.last = 0.0
        self.shown = False

    def tick(self, result: FileResult) -> FileResult:
        """Count one more file done, show the count if due; give the result back."""
        self.done += 1
        if self.stream is not None and self.done < self.total:
            now = time.monotonic()
            if now - self.start > _PROGRESS_AFTER and now - self.last > _PROGRESS_EVERY:
                self.last = now
                self.shown = True
                self.stream.write(f"\rchecked {self.done}/{self.total} files")
                self.stream.flush()
        return result

    def clear(self) -> None:
        """Erase the progress line, so that results print on a clean line."""
        if self.stream is not None and self.shown:
            self.stream.write("\r\x1b[K")
            self.stream.flush()
            self.shown = False
