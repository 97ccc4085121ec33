"""The isolated mode's fork server: the process that imports the implementation.

Started by :class:`~stspec_conformance.adapters.isolated.IsolatedAdapter`
as ``python -c`` (:data:`COMMAND`), it resolves the adapter once, warms it
up, then forks a worker that serves loads and saves.  For each request:

* the worker runs under ``RLIMIT_CPU`` (the file's CPU allowance from now: a
  spinning reader is killed and reported ``hung``) and ``RLIMIT_DATA`` (its
  size now plus the file's memory allowance: an allocation sized from a
  hostile claim fails and is reported ``resource``; read-only mmaps of the
  file are free);
* the server measures the worker's resident memory from outside
  (:class:`_Memory`), where the worker cannot lower the mark;
* the worker answers on a pipe in the data-only format of
  :mod:`._wire`; the server checks the answer, judges it (an allocation
  refused, memory over the allowance is judged in pytest's process) and
  forwards it in the same format;
* stdout and stderr go to another pipe the server drains, keeping the tail
  that explains a crash (``faulthandler`` prints the Python stack on a
  signal);
* nothing stays running: the server is the subreaper of whatever the
  implementation starts, and kills it when the request ends (a request that
  left processes is ``resource``).

The server kills a worker that neither answers nor uses CPU by the wall-clock
backstop.  A worker killed by a signal is ``crashed`` with that signal; after
a crash, a hang or a memory failure the next request gets a freshly forked
worker, and the server itself stays up.
"""

from __future__ import annotations

import contextlib
import faulthandler
import gc
import json
import math
import os
import select
import signal
import sys
import tempfile
import time
from dataclasses import replace
from typing import TYPE_CHECKING, Any, BinaryIO, Final

from stspec_conformance._limits import Allowance, Limits
from stspec_conformance._minimal import minimal_file
from stspec_conformance._model import Outcome
from stspec_conformance.adapters._capture import stdout_cap
from stspec_conformance.adapters._process import (
    OUT_OF_MEMORY,
    become_subreaper,
    end_leftovers,
    left_running,
    signal_name,
    status_kib,
    stderr_tail,
    tree_rss_kib,
)
from stspec_conformance.adapters._python import ImplError, resolve_in_process
from stspec_conformance.adapters._wire import (
    HEADER,
    WireError,
    decode,
    encode,
    outcome_from,
    outcome_to,
    request_from,
)

if TYPE_CHECKING:
    from collections.abc import Callable, Mapping

    from stspec_conformance.adapters._base import InProcessAdapter

__all__ = ["COMMAND", "RUNTIME_SHARE", "SAMPLE_SECONDS", "limits_text", "serve"]

# Not ``-m`` this module: the package imports it too, and runpy would then
# hold two copies of it.
COMMAND: Final = (
    "import sys; from stspec_conformance.adapters._fork_server import serve, "
    "limits_from; sys.exit(serve(sys.argv[1], *limits_from(sys.argv[2])))"
)
# The runtime's own share for the warm-up load, as a command's --memory-limit.
RUNTIME_SHARE: Final = 2048 * 1024 * 1024
# How often the server samples a working worker's resident memory.
SAMPLE_SECONDS: Final = 0.01
_OUTPUT_KEEP: Final = 64 * 1024  # the tail of a worker's output a crash shows
# Outcomes after which a worker is not trusted with another request.
_FRESH_AFTER: Final = frozenset({"crashed", "hung", "resource"})


def limits_text(limits: Limits, runtime: int) -> str:
    """The run's limits as the server's second argument."""
    return json.dumps(
        [limits.cpu_seconds, limits.wall_seconds, limits.memory_budget, runtime]
    )


def limits_from(text: str) -> tuple[Limits, int]:
    """The inverse of :func:`limits_text`."""
    cpu, wall, memory, runtime = json.loads(text)
    return Limits(float(cpu), float(wall), int(memory)), int(runtime)


def _write(stream: BinaryIO, message: Mapping[str, object]) -> None:
    stream.write(encode(message))
    stream.flush()


def _read(stream: BinaryIO) -> dict[str, Any]:
    """One request from the suite (EOFError when it closed the pipe)."""
    head = stream.read(HEADER.size)
    if len(head) < HEADER.size:
        raise EOFError
    (size,) = HEADER.unpack(head)
    data = stream.read(size)
    if len(data) < size:
        raise EOFError
    return decode(data)


# --- memory, measured from outside the worker ---------------------------------------


class _Memory:
    """A worker's resident memory during one request, seen from the server.

    The kernel's high-water mark alone will not do: a process lowers its own
    with ``echo 5 > /proc/self/clear_refs``.  So the server samples the
    resident memory of the worker and the processes below it every
    :data:`SAMPLE_SECONDS` while it waits for the answer, and takes the
    larger of the highest sample and the worker's ``VmHWM`` it reads after
    the answer (which the worker can only have lowered, so it
    never raises the result above the truth).  An allocation touched and
    freed between two samples and hidden by a reset is missed: that is the
    method's resolution.
    """

    def __init__(self, pid: int) -> None:
        self.pid = pid
        try:  # so VmHWM starts from now (the server may write it: its child)
            with open(f"/proc/{pid}/clear_refs", "w", encoding="ascii") as refs:
                refs.write("5")
            self.mark = True
        except OSError:
            self.mark = False
        self.start = tree_rss_kib(pid)
        self.high = self.start or 0

    def sample(self) -> None:
        """Take one sample now (the worker and what it started)."""
        rss = tree_rss_kib(self.pid)
        if rss is not None:
            self.high = max(self.high, rss)

    def peak(self) -> int | None:
        """Bytes above the worker's start (None: not measurable here)."""
        if self.start is None:
            return None
        self.sample()
        high = status_kib(self.pid, "VmHWM") if self.mark else None
        return max(0, max(self.high, high or 0) - self.start) * 1024


# --- the worker (a forked child) -----------------------------------------------------


def _limit(allowance: Allowance) -> Callable[[], None]:
    """Set this request's CPU and data limits; return their reset."""
    import resource  # noqa: PLC0415 - POSIX only, like fork

    cpu_hard = resource.getrlimit(resource.RLIMIT_CPU)[1]
    data_hard = resource.getrlimit(resource.RLIMIT_DATA)[1]
    usage = resource.getrusage(resource.RUSAGE_SELF)
    # RLIMIT_CPU counts the worker's whole life: the allowance starts now.
    cpu = math.ceil(usage.ru_utime + usage.ru_stime + allowance.cpu_rlimit())
    with contextlib.suppress(ValueError, OSError):
        resource.setrlimit(resource.RLIMIT_CPU, (cpu, cpu_hard))
    data_kib = status_kib(os.getpid(), "VmData")
    if data_kib is not None:
        with contextlib.suppress(ValueError, OSError):
            limit = data_kib * 1024 + allowance.memory
            resource.setrlimit(resource.RLIMIT_DATA, (limit, data_hard))

    def reset() -> None:
        with contextlib.suppress(ValueError, OSError):
            resource.setrlimit(resource.RLIMIT_CPU, (cpu_hard, cpu_hard))
            resource.setrlimit(resource.RLIMIT_DATA, (data_hard, data_hard))

    return reset


def _one(adapter: InProcessAdapter, request: Mapping[str, Any]) -> Outcome:
    """In the worker: run one request under its limits."""
    kind, path, allowance, tensors, metadata = request_from(request)
    reset = _limit(allowance)
    try:
        if kind == "load":
            return adapter.attempt_load(path, timeout=0)
        return adapter.attempt_save(path, tensors, metadata, timeout=0)
    finally:
        reset()


def _work(adapter: InProcessAdapter, requests_fd: int, answers_fd: int) -> None:
    """The worker's loop (a forked child); never returns."""
    status = 70
    try:
        with (
            os.fdopen(requests_fd, "rb") as requests,
            os.fdopen(answers_fd, "wb") as answers,
        ):
            while True:
                try:
                    request = _read(requests)
                except EOFError:
                    break
                outcome = _one(adapter, request)
                _write(answers, {"kind": "outcome", "outcome": outcome_to(outcome)})
        status = 0
    finally:
        with contextlib.suppress(Exception):
            sys.stderr.flush()
        os._exit(status)


class _Output:
    """The read end of a worker's stdout and stderr: only its tail is kept."""

    def __init__(self, fd: int) -> None:
        self.fd = fd
        self.tail = bytearray()
        self.open = True

    def fds(self) -> list[int]:
        return [self.fd] if self.open else []

    def drain(self) -> None:
        """Read what is there now (one chunk)."""
        try:
            chunk = os.read(self.fd, 1 << 16)
        except BlockingIOError:
            return
        if not chunk:
            self.open = False
            return
        self.tail += chunk
        if len(self.tail) > 2 * _OUTPUT_KEEP:
            del self.tail[:-_OUTPUT_KEEP]

    def read_all(self) -> bytes:
        """Everything left (the worker has ended), then the tail."""
        while self.open and select.select([self.fd], [], [], 0)[0]:
            self.drain()
        return bytes(self.tail[-_OUTPUT_KEEP:])


def _read_frame(
    fd: int, deadline: float, cap: int, output: _Output, memory: _Memory
) -> bytes | bool:
    """One frame from the worker; False on EOF, True at the deadline.

    The worker's output is drained meanwhile (its tail kept), so a worker
    printing without end never blocks and never fills a disk, and its memory
    is sampled.  A frame announcing more than ``cap`` bytes is read no
    further (an answer about the file never needs that much).
    """
    data = b""
    need = HEADER.size
    size: int | None = None
    while len(data) < need:
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            return True
        ready, _, _ = select.select(
            [fd, *output.fds()], [], [], min(remaining, SAMPLE_SECONDS)
        )
        memory.sample()
        if output.fd in ready:
            output.drain()
        if fd not in ready:
            continue
        chunk = os.read(fd, min(need - len(data), 1 << 20))
        if not chunk:
            return False
        data += chunk
        if size is None and len(data) >= HEADER.size:
            (size,) = HEADER.unpack(data[: HEADER.size])
            if size > cap:
                return data[HEADER.size :] + b"\0"  # not JSON: judged malformed
            need = HEADER.size + size
    return data[HEADER.size :]


class _Worker:
    """A forked child serving requests until one goes wrong (then replaced).

    Forking once per worker instead of once per load keeps the suite's cost
    close to an in-process run; a crash, a hang or a memory failure ends the
    worker, so the next request gets a fresh one.
    """

    def __init__(self, adapter: InProcessAdapter) -> None:
        requests_read, requests_write = os.pipe()
        answers_read, answers_write = os.pipe()
        # stdout and stderr go to a pipe the server drains, never to a file:
        # a reader printing without end fills no disk (and an ENOSPC it got
        # from the suite's temporary folder could pass for a rejection).
        output_read, output_write = os.pipe()
        pid = os.fork()
        if pid == 0:  # the worker
            os.close(requests_write)
            os.close(answers_read)
            os.close(output_read)
            os.dup2(output_write, 1)
            os.dup2(output_write, 2)
            os.close(output_write)
            faulthandler.enable(file=sys.stderr)
            _work(adapter, requests_read, answers_write)
        os.close(requests_read)
        os.close(answers_write)
        os.close(output_write)
        os.set_blocking(output_read, False)
        self.pid = pid
        self.ended = False
        self.requests = os.fdopen(requests_write, "wb")
        self.answers = answers_read
        self.output = _Output(output_read)

    def run(self, request: Mapping[str, Any], allowance: Allowance) -> Outcome:
        """Run one request; a worker that gives no answer is judged and ended."""
        memory = _Memory(self.pid)
        try:
            _write(self.requests, request)
        except OSError:
            frame: bytes | bool = False
        else:
            deadline = time.monotonic() + allowance.wall_seconds
            cap = stdout_cap(allowance.length)
            frame = _read_frame(self.answers, deadline, cap, self.output, memory)
        if isinstance(frame, bytes):
            try:
                outcome = _checked(frame)
            except WireError as exc:
                self.end()  # a malformed answer: this worker is not trusted again
                outcome = Outcome(
                    "invalid-output",
                    message=f"the isolation worker's answer is malformed: {exc}",
                )
            outcome.peak_memory = memory.peak()
            return outcome
        status, cpu = self.end(kill=frame)
        return _judge(
            status,
            cpu,
            killed=frame,
            allowance=allowance,
            output=self.output.read_all(),
        )

    def end(self, *, kill: bool = True) -> tuple[int, float]:
        """End and reap the worker: its wait status and its CPU seconds."""
        if self.ended:
            return 0, 0.0
        self.ended = True
        with contextlib.suppress(OSError):
            self.requests.close()
        if kill:
            with contextlib.suppress(ProcessLookupError):
                os.kill(self.pid, signal.SIGKILL)
        _, status, usage = os.wait4(self.pid, 0)
        os.close(self.answers)
        self.output.read_all()
        os.close(self.output.fd)
        self.output.open = False
        return status, usage.ru_utime + usage.ru_stime


def _checked(frame: bytes) -> Outcome:
    """The worker's answer, checked (:class:`WireError` says what was wrong)."""
    message = decode(frame)
    if message["kind"] != "outcome":
        msg = f"a {message['kind']!r:.40} message instead of an outcome"
        raise WireError(msg)
    return outcome_from(message.get("outcome"))


def _judge(
    status: int, cpu: float, *, killed: bool, allowance: Allowance, output: bytes
) -> Outcome:
    """The outcome of a worker that gave no answer."""
    tail = stderr_tail(output)
    if killed:
        return Outcome(
            "hung",
            message=f"no answer within {allowance.wall_seconds:g} s of wall-clock "
            f"time ({cpu:.1f} s CPU used); raise --wall-timeout if the machine "
            "is just slow",
        )
    if os.WIFSIGNALED(status):
        number = os.WTERMSIG(status)
        if number == signal.SIGXCPU or (
            number == signal.SIGKILL and cpu >= allowance.cpu_rlimit()
        ):
            return Outcome(
                "hung",
                message=f"used more than its {allowance.cpu_rlimit()} s of CPU time "
                "(--case-timeout, scaled with the file's length)",
                crash=signal_name(number),
            )
        crash = signal_name(number)
    else:
        crash = f"exit status {os.WEXITSTATUS(status)}"
    last = tail.splitlines()[-1].strip() if tail else "(no output)"
    return Outcome(
        "crashed",
        message=f"the worker died ({crash}); last output line: {last}; output: {tail}",
        crash=crash,
    )


def _allocator_refused(
    rejects: tuple[type[BaseException], ...] | None, outcome: Outcome
) -> bool:
    """Whether a load or save failed because an allocation was refused.

    A MemoryError always; an exception outside ``rejects`` (the adapter's
    ``REJECTS`` for a load, ``WRITE_REJECTS`` for a save; any ordinary one
    when it declares none) whose message says an allocation failed,
    as torch's RuntimeError does.  An exception of a ``REJECTS`` type is the
    reader's judgement on the file, whatever its words ("... would run out
    of memory" is a fine reason to reject).
    """
    if outcome.exception == "MemoryError":
        return True
    outside = outcome.status in {"crashed", "exception"} or (
        outcome.status == "rejected" and rejects is None
    )
    return outside and OUT_OF_MEMORY.search(outcome.message) is not None


def _handle(
    adapter: InProcessAdapter, worker: _Worker | None, request: Mapping[str, Any]
) -> tuple[Outcome, _Worker | None]:
    """Run a request in the worker (forked when needed); say which to keep.

    Whatever the request started is killed when it ends: the worker's
    children, and orphans this server adopted as their subreaper.
    """
    kind, _, allowance, _, _ = request_from(request)
    if worker is None:
        worker = _Worker(adapter)
    worker.output.tail.clear()
    started = time.perf_counter()
    outcome = worker.run(request, allowance)
    outcome.seconds = time.perf_counter() - started
    outcome.memory_allowance = allowance.memory
    rejects = adapter.rejects if kind == "load" else adapter.write_rejects
    if _allocator_refused(rejects, outcome):
        outcome.status = "resource"
        outcome.memory = "reserved"
        outcome.message = (
            f"an allocation failed under the memory allowance "
            f"({allowance.describe()}): {outcome.message}"
        )
    if outcome.status in _FRESH_AFTER:
        worker.end()
    alive = () if worker.ended else (worker.pid,)
    left_running(outcome, end_leftovers(os.getpid(), keep=alive, below=alive))
    if worker.ended or outcome.status in _FRESH_AFTER:
        worker.end()
        return outcome, None
    return outcome, worker


def _warm_up(adapter: InProcessAdapter, limits: Limits, runtime: int) -> None:
    """Load a minimal file once here, before any fork, under a memory limit.

    Lazy imports and one-time set-up (numpy, BLAS buffers, JIT caches) then
    happen once in the server, not in every child.  They may take the
    runtime's share (``runtime``, as a command's ``--memory-limit``) on top
    of the file's allowance, and no more: an 8 GB allocation fails here too,
    and the smoke gate then reports the reader cannot load a minimal file.
    """
    data, _ = minimal_file(adapter.capabilities)
    with tempfile.TemporaryDirectory(prefix="stspec-") as directory:
        path = os.path.join(directory, "input.safetensors")
        with open(path, "wb") as file:
            file.write(data)
        allowance = limits.for_file(path)
        reset = _limit(replace(allowance, memory=allowance.memory + runtime))
        try:
            adapter.attempt_load(path, timeout=0)
        finally:
            reset()
    end_leftovers(os.getpid())


def _private_protocol() -> tuple[BinaryIO, BinaryIO]:
    """Move the protocol off fds 0 and 1; the adapter gets /dev/null and stderr.

    A module writing to fd 1 at import (a C library's banner) or reading
    fd 0 would otherwise corrupt or steal the answers.
    """
    stdin = os.fdopen(os.dup(0), "rb")
    stdout = os.fdopen(os.dup(1), "wb")
    null = os.open(os.devnull, os.O_RDONLY)
    os.dup2(null, 0)
    os.close(null)
    os.dup2(2, 1)
    sys.stdout = sys.stderr
    return stdin, stdout


def serve(spec: str, limits: Limits | None = None, runtime: int = RUNTIME_SHARE) -> int:
    """The server loop: resolve ``spec`` once, then serve through workers."""
    stdin, stdout = _private_protocol()
    # The implementation's orphans (double-forked setsid helpers) are adopted
    # here and killed after each request.
    become_subreaper()
    try:
        adapter = resolve_in_process(spec)
    except ImplError as exc:
        _write(stdout, {"kind": "error", "message": str(exc)})
        return 0
    declared = adapter.capabilities.as_json()
    if not adapter.capabilities.write:  # the declaration form has none then
        declared.pop("write_dtypes")
    info = {
        "kind": "ready",
        "name": adapter.name,
        "version": adapter.version,
        "capabilities": declared,
    }
    _warm_up(adapter, limits or Limits(), runtime)
    _write(stdout, info)
    # Objects alive now are never collected: the children's collector then
    # leaves their pages shared instead of copying them on every fork.
    gc.freeze()
    worker: _Worker | None = None
    while True:
        try:
            request = _read(stdin)
        except EOFError:
            if worker is not None:
                worker.end(kill=False)
            end_leftovers(os.getpid())
            return 0
        outcome, worker = _handle(adapter, worker, request)
        _write(stdout, {"kind": "outcome", "outcome": outcome_to(outcome)})
