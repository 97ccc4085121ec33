"""Read a command's stdout and stderr with bounds: size, time, and who holds them.

``communicate()`` keeps all of stdout and stderr (2 GiB printed per read
grew the suite to 4 GiB) and waits for end-of-file, which never comes while
a helper the program left behind (``setsid``) holds the pipe.  Here stdout
stops at a cap (the run is then ``invalid-output``), only the tail of stderr
is kept, the request is written without blocking, and once the program has
exited its leftovers are killed and the pipes get a short grace, no more.
"""

from __future__ import annotations

import contextlib
import os
import selectors
import time
from dataclasses import dataclass
from typing import TYPE_CHECKING, Final

if TYPE_CHECKING:
    import subprocess
    from collections.abc import Callable

__all__ = ["ERR_KEEP", "Captured", "collect", "exited", "stdout_cap"]

ERR_KEEP: Final = 64 * 1024  # the tail of stderr a failure message can show
# The head of stderr is kept too: a runtime's fatal error comes first (Go's
# "fatal error: runtime: out of memory", then one stack per goroutine).
ERR_HEAD: Final = 4 * 1024
_OUT_BASE: Final = 16 * 1024 * 1024
_GRACE_SECONDS: Final = 2.0
_CHUNK: Final = 1 << 16


def stdout_cap(length: int) -> int:
    """The most stdout an answer about a file of ``length`` bytes needs.

    A ``hex`` answer spells every tensor byte twice; the rest of an answer
    grows with the header, which is part of ``length``.
    """
    return _OUT_BASE + 4 * length


@dataclass(slots=True)
class Captured:
    """What a run printed, and how reading it ended."""

    out: bytes
    err: bytes
    timed_out: bool = False  # the wall-clock deadline passed
    overflow: bool = False  # stdout passed its cap (the process was killed)


def exited(pid: int) -> bool:
    """Whether ``pid`` has exited, without reaping it (its group stays reserved)."""
    try:
        info = os.waitid(os.P_PID, pid, os.WEXITED | os.WNOHANG | os.WNOWAIT)
    except ChildProcessError:
        return True
    return info is not None


class _Pipes:
    """The program's three pipes on one selector."""

    def __init__(self, process: subprocess.Popen[bytes], stdin: bytes | None) -> None:
        self.selector = selectors.DefaultSelector()
        self.out_fd = -1 if process.stdout is None else process.stdout.fileno()
        for stream in (process.stdout, process.stderr):
            if stream is not None:
                self.selector.register(stream.fileno(), selectors.EVENT_READ)
        self.stdin = process.stdin
        self.pending = memoryview(stdin or b"")
        if self.stdin is not None:
            if self.pending:
                os.set_blocking(self.stdin.fileno(), False)
                self.selector.register(self.stdin.fileno(), selectors.EVENT_WRITE)
            else:
                self.stdin.close()

    def write(self) -> None:
        """Write the next chunk of the request; close stdin after the last."""
        if self.stdin is None:  # pragma: no cover - registered only with stdin
            return
        try:
            written = os.write(self.stdin.fileno(), self.pending[:_CHUNK])
        except BlockingIOError:
            return
        except OSError:  # the program closed its stdin: the rest is moot
            written = len(self.pending)
        self.pending = self.pending[written:]
        if not self.pending:
            self.selector.unregister(self.stdin.fileno())
            self.stdin.close()

    def close(self) -> None:
        self.selector.close()
        if self.stdin is not None:
            with contextlib.suppress(OSError):
                self.stdin.close()


class _Stderr:
    """Stderr's head and tail, bounded however much a program prints."""

    def __init__(self) -> None:
        self.head, self.tail = bytearray(), bytearray()
        self.trimmed = False

    def add(self, chunk: bytes) -> None:
        if len(self.head) < ERR_HEAD:
            self.head += chunk[: ERR_HEAD - len(self.head)]
        self.tail += chunk
        if len(self.tail) > 2 * ERR_KEEP:
            del self.tail[:-ERR_KEEP]
            self.trimmed = True

    def kept(self) -> bytes:
        """All of it, or its head and last ``ERR_KEEP`` bytes with a gap mark."""
        if not self.trimmed and len(self.tail) <= ERR_KEEP:
            return bytes(self.tail)
        return bytes(self.head) + b"\n[...]\n" + bytes(self.tail[-ERR_KEEP:])


def collect(
    process: subprocess.Popen[bytes],
    stdin: bytes | None,
    *,
    deadline: float,
    out_cap: int,
    on_exit: Callable[[], None],
    on_tick: Callable[[], None] = lambda: None,
    tick: float = 0.1,
) -> Captured:
    """Read until both pipes end, the deadline passes or stdout overflows.

    ``on_exit`` runs once the program has exited (before it is reaped): it
    kills what the program left behind, so the pipes can end.  ``on_tick``
    runs at least every ``tick`` seconds (a sampler).
    """
    out, err = bytearray(), _Stderr()
    pipes = _Pipes(process, stdin)
    stdin_fd = -1 if process.stdin is None else process.stdin.fileno()
    exited_at: float | None = None
    result = Captured(b"", b"")
    try:
        while pipes.selector.get_map():
            on_tick()
            now = time.monotonic()
            if now >= deadline:
                result.timed_out = True
                break
            if exited_at is None and exited(process.pid):
                exited_at = now
                on_exit()

            if exited_at is not None and now - exited_at > _GRACE_SECONDS:
                break  # something unkillable holds the pipes: stop reading
            for key, _ in pipes.selector.select(min(deadline - now, tick)):
                if key.fd == stdin_fd:
                    pipes.write()
                    continue
                chunk = os.read(key.fd, _CHUNK)
                if not chunk:
                    pipes.selector.unregister(key.fd)
                elif key.fd == pipes.out_fd:
                    out += chunk
                    if len(out) > out_cap:
                        result.overflow = True
                        return result
                else:
                    err.add(chunk)
    finally:
        pipes.close()
        result.out, result.err = bytes(out[: out_cap + 1]), err.kept()
    return result
