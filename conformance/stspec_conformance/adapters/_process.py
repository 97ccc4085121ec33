"""What the command adapter and the isolated worker need to run and judge a process."""

from __future__ import annotations

import collections
import contextlib
import ctypes
import os
import re
import signal
import sys
import time
from dataclasses import dataclass
from typing import TYPE_CHECKING, Final

from stspec_conformance._variants import SEED_VARIABLE

if TYPE_CHECKING:
    from collections.abc import Collection

    from stspec_conformance._model import Outcome

__all__ = [
    "OUT_OF_MEMORY",
    "become_subreaper",
    "children",
    "end_leftovers",
    "environment",
    "group_members",
    "left_running",
    "signal_name",
    "status_kib",
    "stderr_tail",
    "tree_rss_kib",
]

# What runtimes and allocators say when an allocation fails under RLIMIT_DATA
# (a dying command's stderr; an in-process reader's exception in the isolated
# worker; torch: "can't allocate memory ... (Cannot allocate memory)").
OUT_OF_MEMORY: Final = re.compile(
    r"MemoryError|out of memory|can(?:no|')t allocate memory|ENOMEM|bad_alloc"
    r"|allocation failed|memory allocation of \d+ bytes failed|OutOfMemoryError",
    re.IGNORECASE,
)
_TAIL_CHARS: Final = 600


def stderr_tail(err: bytes) -> str:
    """The last lines of stderr (a traceback's useful end), at most ~600 chars."""
    text = err.decode("utf-8", "replace").strip()
    if len(text) > _TAIL_CHARS:
        text = "..." + text[-_TAIL_CHARS:]
    return text


def signal_name(number: int) -> str:
    """``signal 11 (SIGSEGV)``."""
    try:
        return f"signal {number} ({signal.Signals(number).name})"
    except ValueError:
        return f"signal {number}"


def environment() -> dict[str, str]:
    """The suite's environment without pytest's variables or the corpus seed.

    ``PYTEST_CURRENT_TEST`` names the running test, and with it the case and
    its verdict (``[n_...]``), and a seed would let the implementation make
    the run's corpus variants itself: an implementation sees only the bytes.
    """
    return {
        k: v
        for k, v in os.environ.items()
        if not k.startswith("PYTEST_") and k != SEED_VARIABLE
    }


# --- the implementation's processes ------------------------------------------------


def status_kib(pid: int, field: str) -> int | None:
    """A ``/proc/PID/status`` field in KiB (``VmRSS``, ``VmHWM``), or None."""
    try:
        with open(f"/proc/{pid}/status", encoding="ascii") as status:
            for line in status:
                if line.startswith(field + ":"):
                    return int(line.split()[1])
    except (OSError, ValueError):
        return None
    return None


# A tree of more live processes than this is sampled in part (the oldest
# first). Exited processes not yet reaped hold no memory and do not count.
_TREE_LIMIT: Final = 4096


def tree_rss_kib(pid: int) -> int | None:
    """The resident memory of ``pid`` and the processes below it, now (KiB).

    Measured from outside, so the processes cannot lower it (unlike their
    high-water mark, which ``/proc/self/clear_refs`` resets).  None when
    ``pid`` has no status (gone, or no procfs).
    """
    own = status_kib(pid, "VmRSS")
    if own is None:
        return None
    total, live, seen = own, 1, {pid}
    queue = collections.deque(sorted(_child_files(pid) or ()))
    while queue and live < _TREE_LIMIT:
        child = queue.popleft()
        if child in seen:
            continue
        seen.add(child)
        kib = status_kib(child, "VmRSS")
        if kib is None:  # a zombie (no memory left) or gone
            continue
        total, live = total + kib, live + 1
        queue.extend(sorted(_child_files(child) or ()))
    return total


_PR_SET_CHILD_SUBREAPER: Final = 36
_PR_GET_CHILD_SUBREAPER: Final = 37
_ROUNDS: Final = 5


def become_subreaper() -> bool:
    """Adopt this process's orphaned descendants (Linux), so none escapes.

    A helper that double-forks and calls ``setsid`` leaves the
    implementation's process group and session; as a subreaper's orphan it
    is still found below this process and killed.
    """
    if not sys.platform.startswith("linux"):  # pragma: no cover - Linux CI
        return False
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        return bool(libc.prctl(_PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) == 0)
    except (OSError, AttributeError):  # pragma: no cover - no prctl
        return False


def _is_subreaper() -> bool:
    """Whether this process adopts its orphaned descendants (not inherited by fork)."""
    if not sys.platform.startswith("linux"):  # pragma: no cover - Linux CI
        return False
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        flag = ctypes.c_int(0)
        done = libc.prctl(_PR_GET_CHILD_SUBREAPER, ctypes.byref(flag), 0, 0, 0)
    except (OSError, AttributeError):  # pragma: no cover - no prctl
        return False
    return bool(done == 0 and flag.value)


@dataclass(frozen=True, slots=True)
class _Proc:
    ppid: int
    group: int
    session: int
    state: str
    name: str


def _stat(pid: int) -> _Proc | None:
    """``pid``'s parent, group, session, state and name, or None (gone)."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as stat:
            text = stat.read().decode("ascii", "replace")
    except OSError:
        return None
    name, _, rest = text.partition(" (")[2].rpartition(") ")
    fields = rest.split()
    if len(fields) < 4:  # pragma: no cover - the kernel's format
        return None
    return _Proc(int(fields[1]), int(fields[2]), int(fields[3]), fields[0], name)


def _table() -> dict[int, _Proc]:
    """Every process's parent, session, state and name (``/proc``; {} elsewhere)."""
    table: dict[int, _Proc] = {}
    try:
        entries = os.listdir("/proc")
    except OSError:  # pragma: no cover - no procfs
        return table
    for entry in entries:
        if entry.isdigit() and (proc := _stat(int(entry))) is not None:
            table[int(entry)] = proc
    return table


def _descendants(parent: int) -> dict[int, _Proc] | None:
    """The processes below ``parent``, as :func:`_table` lists them.

    None when ``/proc`` has no children files.  Walking the children files
    reads a few entries where the whole table reads every process of the
    machine, twice per command run.
    """
    if _child_files(parent) is None:
        return None
    table: dict[int, _Proc] = {}
    queue = [parent]
    while queue:
        for child in (_child_files(queue.pop()) or set()) - table.keys():
            proc = _stat(child)
            if proc is not None and child != parent:
                table[child] = proc
                queue.append(child)
    return table


def _child_files(parent: int) -> set[int] | None:
    """``parent``'s children from ``/proc/PID/task/*/children`` (None: no such file)."""
    found: set[int] = set()
    try:
        tasks = os.listdir(f"/proc/{parent}/task")
        for task in tasks:
            with open(f"/proc/{parent}/task/{task}/children", encoding="ascii") as f:
                found.update(int(pid) for pid in f.read().split())
    except (OSError, ValueError):
        return None
    return found


def children(parent: int) -> set[int]:
    """The children of ``parent`` (zombies included)."""
    listed = _child_files(parent)
    if listed is not None:
        return listed
    return {pid for pid, p in _table().items() if p.ppid == parent}


def _nothing_left(parent: int, keep: Collection[int], below: Collection[int]) -> bool:
    """A cheap first look: no child to kill (so no full scan of ``/proc``)."""
    mine = _child_files(parent)
    if mine is None or mine - set(keep):
        return False
    return all(_child_files(pid) == set() for pid in below)


def _below(roots: set[int], table: dict[int, _Proc]) -> set[int]:
    found = set(roots)
    grew = True
    while grew:
        more = {pid for pid, p in table.items() if p.ppid in found} - found
        found |= more
        grew = bool(more)
    return found


def end_leftovers(
    parent: int,
    *,
    keep: Collection[int] = (),
    below: Collection[int] = (),
    session: int | None = None,
) -> list[str]:
    """Kill what the implementation left running; say what that was.

    Leftovers are the children of ``parent`` not in ``keep`` (orphans
    adopted by a subreaper among them), the processes below ``below`` (a
    worker's children) and the members of ``session``, with everything under
    them.  Dead children of this process are reaped.
    """
    me = os.getpid()
    killed: dict[int, str] = {}
    if session is None and _nothing_left(parent, keep, below):
        return []
    # Everything this function may kill is below ``parent`` when ``parent`` is
    # this process and adopts orphans: ``below`` are its children, and a
    # session's members descend from its leader (a session is only entered
    # by forking inside it), orphans included.  Otherwise every process is read.
    walk = parent == me and _is_subreaper()
    for _ in range(_ROUNDS):
        found = _descendants(parent) if walk else None
        table = _table() if found is None else found
        roots = {
            pid
            for pid, p in table.items()
            if (p.ppid == parent and pid not in keep)
            or p.ppid in below
            or (session is not None and p.session == session)
        }
        victims = _below(roots, table) - {me, parent, *keep, *below}
        live = {pid for pid in victims if table[pid].state != "Z"}
        for pid in live:
            with contextlib.suppress(OSError):
                os.kill(pid, signal.SIGKILL)
            killed.setdefault(pid, table[pid].name)
        for pid in victims:
            if table[pid].ppid == me:
                _reap(pid)
        if not live:
            break
    return [f"{pid} ({name})" for pid, name in sorted(killed.items())]


def group_members(leader: int, *, parent: int, keep: Collection[int]) -> list[str]:
    """The live processes in ``leader``'s process group or session, but itself.

    Listed before the group is killed: once killed, a member is a zombie (or
    already reaped by this subreaper) and no later listing can tell it was
    left running.  Once ``leader`` has exited, its group's members are
    ``parent``'s (the subreaper's) orphans or below them, so ``/proc`` is
    scanned only when ``parent`` has a child not in ``keep``.
    """
    mine = _child_files(parent)
    if mine is not None and not mine - {*keep, leader}:
        return []
    return [
        f"{pid} ({p.name})"
        for pid, p in sorted(_table().items())
        if leader in {p.group, p.session} and pid != leader and p.state != "Z"
    ]


def _reap(pid: int) -> None:
    deadline = time.monotonic() + 2.0
    while time.monotonic() < deadline:
        try:
            done, _ = os.waitpid(pid, os.WNOHANG)
        except ChildProcessError:
            return
        if done:
            return
        time.sleep(0.01)


def left_running(outcome: Outcome, killed: list[str]) -> None:
    """Say that processes were left running: ``resource``, unless already failed."""
    if not killed:
        return
    more = f" and {len(killed) - 5} more" if len(killed) > 5 else ""
    what = (
        f"left {len(killed)} process{'es' if len(killed) > 1 else ''} running "
        f"after its answer ({', '.join(killed[:5])}{more}; the suite killed them)"
    )
    if outcome.failed_hard:
        outcome.message = f"{outcome.message}; it also {what}"
        return
    outcome.message = f"{what}; the answer was: {outcome.describe()}"
    outcome.status = "resource"
