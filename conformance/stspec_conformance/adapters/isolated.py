"""Run a Python implementation in a killable worker, so native faults are outcomes.

A segfaulting extension would take the pytest run down with it, and a load
stuck in native code never sees Python's ``SIGALRM``.  So by default an
in-process adapter runs in a fork server: a small process
(:func:`serve`, started with ``python -c``) that imports the adapter once
and forks a worker that serves loads and saves.  For each request the worker:

* runs under ``RLIMIT_CPU`` (the file's CPU allowance from now: a spinning
  reader is killed and reported ``hung``) and ``RLIMIT_DATA`` (its size now
  plus the file's memory allowance: an allocation sized from a hostile claim
  fails and is reported ``resource``; read-only mmaps of the file are free);
* reports its peak resident memory above its start (``peak_memory``): an
  allocation ``RLIMIT_DATA`` does not count (a shared mapping) is judged too;
* answers on a pipe; stdout and stderr go to another pipe the server drains,
  keeping the tail that explains a crash (``faulthandler`` prints the Python
  stack on a signal);
* leaves nothing running: the server is the subreaper of whatever the
  implementation starts, and kills it when the request ends (a request that
  left processes is ``resource``).

The server kills a worker that neither answers nor uses CPU by the wall-clock
backstop.  A worker killed by a signal is ``crashed`` with that signal; after
a crash, a hang or a memory failure the next request gets a freshly forked
worker, and the server itself stays up.  ``--in-process`` skips all of this
(for a debugger).  Fork is POSIX-only; elsewhere the suite runs adapters in
its own process.
"""

from __future__ import annotations

import atexit
import contextlib
import dataclasses
import faulthandler
import gc
import json
import math
import os
import pickle
import select
import signal
import struct
import subprocess
import sys
import tempfile
import time
from dataclasses import replace
from typing import TYPE_CHECKING, Any, BinaryIO, Final

from stspec_conformance._capabilities import Capabilities
from stspec_conformance._limits import Limits
from stspec_conformance._minimal import minimal_file
from stspec_conformance._model import Outcome
from stspec_conformance.adapters._base import (
    Adapter,
    InProcessAdapter,
    MemoryMode,
    RawTensors,
    reset_peak_rss,
)
from stspec_conformance.adapters._process import (
    OUT_OF_MEMORY,
    become_subreaper,
    end_leftovers,
    environment,
    left_running,
    signal_name,
    stderr_tail,
)
from stspec_conformance.adapters._python import ImplError, resolve_in_process

if TYPE_CHECKING:
    from collections.abc import Callable, Mapping

    from stspec_conformance._limits import Allowance

__all__ = ["IsolatedAdapter", "available", "serve"]

_HEADER: Final = struct.Struct("<Q")
# The server answers within the wall-clock backstop; this margin covers the
# fork, the pickling and a machine under load.
_MARGIN_SECONDS: Final = 60.0
# Not ``-m`` this module: the package imports it too, and runpy would then
# hold two copies of it.
_SERVER: Final = (
    "import sys; from stspec_conformance.adapters.isolated import serve, _limits; "
    "sys.exit(serve(sys.argv[1], *_limits(sys.argv[2])))"
)


# The runtime's own share for the warm-up load, as a command's --memory-limit.
RUNTIME_SHARE: Final = 2048 * 1024 * 1024


def _limits_text(limits: Limits, runtime: int) -> str:
    return json.dumps(
        [limits.cpu_seconds, limits.wall_seconds, limits.memory_budget, runtime]
    )


def _limits(text: str) -> tuple[Limits, int]:
    cpu, wall, memory, runtime = json.loads(text)
    return Limits(float(cpu), float(wall), int(memory)), int(runtime)


def available() -> bool:
    """Whether this platform can fork a worker (POSIX)."""
    return hasattr(os, "fork") and sys.platform != "win32"


def _send(stream: Any, message: object) -> None:  # noqa: ANN401 - a binary stream
    data = pickle.dumps(message, protocol=pickle.HIGHEST_PROTOCOL)
    stream.write(_HEADER.pack(len(data)) + data)
    stream.flush()


def _receive(stream: Any) -> Any:  # noqa: ANN401 - unpickled message
    head = stream.read(_HEADER.size)
    if len(head) < _HEADER.size:
        raise EOFError
    (size,) = _HEADER.unpack(head)
    data = stream.read(size)
    if len(data) < size:
        raise EOFError
    return pickle.loads(data)  # noqa: S301 - our own worker's answer


# --- the client side (in the pytest process) ----------------------------------------


class IsolatedAdapter(Adapter):
    """A Python adapter running in a fork server (see the module docstring)."""

    def __init__(
        self, spec: str, *, limits: Limits, runtime_share: int | None = None
    ) -> None:
        self.spec = spec
        self.limits = limits
        self.runtime_share = RUNTIME_SHARE if runtime_share is None else runtime_share
        self._process: subprocess.Popen[bytes] | None = None
        info = self._start()
        self.name, self.version = info["name"], info["version"]
        # Reports tell an isolated run from an --in-process one (the worker's
        # adapter itself says "in-process").
        self.kind = "isolated"
        self.capabilities = Capabilities(**info["capabilities"])
        atexit.register(self.close)

    def _start(self) -> dict[str, Any]:
        self._process = subprocess.Popen(  # noqa: S603 - our own module
            [
                sys.executable,
                "-c",
                _SERVER,
                self.spec,
                _limits_text(self.limits, self.runtime_share),
            ],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            start_new_session=True,
            env=environment(),
        )
        reply = self._ask(None, 120.0)
        if reply is None or reply[0] != "ready":
            self.close()
            why = reply[1] if reply else "the isolation worker did not start"
            raise ImplError(why)
        info: dict[str, Any] = reply[1]
        return info

    def close(self) -> None:
        """Stop the server (closing its stdin ends it)."""
        process, self._process = self._process, None
        if process is None:
            return
        with contextlib.suppress(OSError):
            if process.stdin is not None:
                process.stdin.close()
        try:
            process.wait(timeout=5)
        except subprocess.TimeoutExpired:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(process.pid, signal.SIGKILL)
            process.wait()
        if process.stdout is not None:
            process.stdout.close()

    def _ask(self, request: object, seconds: float) -> Any:  # noqa: ANN401
        """Send ``request`` (None: only read) and wait for the reply, or None."""
        process = self._process
        if process is None or process.stdin is None or process.stdout is None:
            return None
        try:
            if request is not None:
                _send(process.stdin, request)
            ready, _, _ = select.select([process.stdout], [], [], seconds)
            if not ready:
                return None
            return _receive(process.stdout)
        except (OSError, EOFError, pickle.UnpicklingError):
            return None

    def _call(self, request: tuple[Any, ...], allowance: Allowance) -> Outcome:
        reply = self._ask(request, allowance.wall_seconds + _MARGIN_SECONDS)
        if isinstance(reply, tuple) and reply[0] == "outcome":
            outcome: Outcome = reply[1]
            return outcome
        # The server itself died or stalled: report it, start a fresh one.
        self.close()
        self._start()
        return Outcome("crashed", message="the isolation worker stopped answering")

    def attempt_load(
        self, path: str, *, timeout: float, measure_memory: MemoryMode = None
    ) -> Outcome:
        """Load ``path`` in a forked child under the file's allowance."""
        del measure_memory  # the child is always measured as a process
        allowance = self.limits.for_file(path, cpu_seconds=timeout)
        return self._call(("load", path, allowance), allowance)

    def attempt_save(
        self,
        path: str,
        tensors: RawTensors,
        metadata: Mapping[str, str] | None,
        *,
        timeout: float,
    ) -> Outcome:
        """Save in a forked child (the request's header and bytes set its share)."""
        plain = {n: (d, tuple(s), bytes(b)) for n, (d, s, b) in tensors.items()}
        allowance = self.limits.for_request(plain, metadata, cpu_seconds=timeout)
        request = ("save", path, plain, None if metadata is None else dict(metadata))
        return self._call((*request, allowance), allowance)


# --- the server side (serve(SPEC) in its own interpreter) ---------------------------


def _status_kib(field: str) -> int | None:
    with (
        contextlib.suppress(OSError, ValueError),
        open("/proc/self/status", encoding="ascii") as status,
    ):
        for line in status:
            if line.startswith(field + ":"):
                return int(line.split()[1])
    return None


def _limit(allowance: Allowance) -> tuple[int | None, Callable[[], None]]:
    """Set this request's CPU and data limits; return the RSS mark and a reset."""
    import resource  # noqa: PLC0415 - POSIX only, like fork

    cpu_hard = resource.getrlimit(resource.RLIMIT_CPU)[1]
    data_hard = resource.getrlimit(resource.RLIMIT_DATA)[1]
    usage = resource.getrusage(resource.RUSAGE_SELF)
    # RLIMIT_CPU counts the worker's whole life: the allowance starts now.
    cpu = math.ceil(usage.ru_utime + usage.ru_stime + allowance.cpu_rlimit())
    with contextlib.suppress(ValueError, OSError):
        resource.setrlimit(resource.RLIMIT_CPU, (cpu, cpu_hard))
    data_kib = _status_kib("VmData")
    if data_kib is not None:
        with contextlib.suppress(ValueError, OSError):
            limit = data_kib * 1024 + allowance.memory
            resource.setrlimit(resource.RLIMIT_DATA, (limit, data_hard))
    # Resetting the peak mark ("5") walks no pages: about 20 us, so every file
    # is measured, the small ones whose header claims gigabytes included.
    rss_before = reset_peak_rss()

    def reset() -> None:
        with contextlib.suppress(ValueError, OSError):
            resource.setrlimit(resource.RLIMIT_CPU, (cpu_hard, cpu_hard))
            resource.setrlimit(resource.RLIMIT_DATA, (data_hard, data_hard))

    return rss_before, reset


def _one(adapter: InProcessAdapter, request: tuple[Any, ...]) -> Outcome:
    """In the worker: run one request under its limits and measure it."""
    if request[0] == "load":
        _, path, allowance = request

        def call() -> Outcome:
            return adapter.attempt_load(path, timeout=0)

    else:
        _, path, tensors, metadata, allowance = request

        def call() -> Outcome:
            return adapter.attempt_save(path, tensors, metadata, timeout=0)

    rss_before, reset = _limit(allowance)
    try:
        outcome = call()
    finally:
        reset()
    high = _status_kib("VmHWM")
    if rss_before is not None and high is not None:
        outcome.peak_memory = max(0, high - rss_before) * 1024
    outcome.memory_allowance = allowance.memory
    rejects = adapter.rejects if request[0] == "load" else adapter.write_rejects
    if _allocator_refused(rejects, outcome):
        outcome.status = "resource"
        outcome.memory = "reserved"
        outcome.message = (
            f"an allocation failed under the memory allowance "
            f"({allowance.describe()}): {outcome.message}"
        )
    return outcome


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
                    request = _receive(requests)
                except EOFError:
                    break
                _send(answers, _one(adapter, request))
        status = 0
    finally:
        with contextlib.suppress(Exception):
            sys.stderr.flush()
        os._exit(status)


def _read_frame(fd: int, deadline: float, output: _Output) -> bytes | bool:
    """One length-prefixed frame from ``fd``; False on EOF, True at the deadline.

    The worker's output is drained meanwhile (its tail kept), so a worker
    printing without end never blocks and never fills a disk.
    """
    data = b""
    need = _HEADER.size
    size: int | None = None
    while len(data) < need:
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            return True
        ready, _, _ = select.select([fd, *output.fds()], [], [], remaining)
        if output.fd in ready:
            output.drain()
        if fd not in ready:
            continue
        chunk = os.read(fd, min(need - len(data), 1 << 20))
        if not chunk:
            return False
        data += chunk
        if size is None and len(data) >= _HEADER.size:
            (size,) = _HEADER.unpack(data[: _HEADER.size])
            need = _HEADER.size + size
    return data[_HEADER.size :]


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

    def run(self, request: tuple[Any, ...], allowance: Allowance) -> Outcome:
        """Run one request; a worker that gives no answer is judged and ended."""
        timed_out = False
        try:
            _send(self.requests, request)
        except OSError:
            frame: bytes | bool = False
        else:
            deadline = time.monotonic() + allowance.wall_seconds
            frame = _read_frame(self.answers, deadline, self.output)
        if isinstance(frame, bytes):
            outcome: Outcome = pickle.loads(frame)  # noqa: S301 - our own worker
            return outcome
        timed_out = frame
        status, cpu = self.end(kill=timed_out)
        return _judge(
            b"",
            status,
            cpu,
            killed=timed_out,
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


def _judge(
    data: bytes,
    status: int,
    cpu: float,
    *,
    killed: bool,
    allowance: Allowance,
    output: bytes,
) -> Outcome:
    if data and os.WIFEXITED(status) and os.WEXITSTATUS(status) == 0:
        with contextlib.suppress(pickle.UnpicklingError, EOFError, ValueError):
            outcome: Outcome = pickle.loads(data)  # noqa: S301 - our own child
            return outcome
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


_OUTPUT_KEEP: Final = 64 * 1024  # the tail of a worker's output a crash shows
# Outcomes after which a worker is not trusted with another request.
_FRESH_AFTER: Final = frozenset({"crashed", "hung", "resource"})


def _handle(
    adapter: InProcessAdapter,
    worker: _Worker | None,
    request: tuple[Any, ...],
) -> tuple[Outcome, _Worker | None]:
    """Run a request in the worker (forked when needed); say which to keep.

    Whatever the request started is killed when it ends: the worker's
    children, and orphans this server adopted as their subreaper.
    """
    allowance: Allowance = request[-1]
    if worker is None:
        worker = _Worker(adapter)
    worker.output.tail.clear()
    started = time.perf_counter()
    outcome = worker.run(request, allowance)
    outcome.seconds = time.perf_counter() - started
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
        _, reset = _limit(replace(allowance, memory=allowance.memory + runtime))
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
        _send(stdout, ("error", str(exc)))
        return 0
    info = {
        "name": adapter.name,
        "version": adapter.version,
        # every field, so a new declaration crosses the process boundary too
        "capabilities": {
            field.name: getattr(adapter.capabilities, field.name)
            for field in dataclasses.fields(adapter.capabilities)
        },
    }
    _warm_up(adapter, limits or Limits(), runtime)
    _send(stdout, ("ready", info))
    # Objects alive now are never collected: the children's collector then
    # leaves their pages shared instead of copying them on every fork.
    gc.freeze()
    worker: _Worker | None = None
    while True:
        try:
            request = _receive(stdin)
        except EOFError:
            if worker is not None:
                worker.end(kill=False)
            end_leftovers(os.getpid())
            return 0
        outcome, worker = _handle(adapter, worker, request)
        _send(stdout, ("outcome", outcome))
