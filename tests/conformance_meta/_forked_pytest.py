"""``python -m pytest`` runs forked from a process that has imported pytest.

A fresh ``python -m pytest`` spends about 0.35 s of CPU time starting Python and
importing pytest before it reads its arguments, and the slow tier starts well over
a hundred suite runs.  :func:`run_pytest` gets the same run from a server instead:
a process started once per environment exactly as the run itself would be (this
interpreter, the same environment), which imports pytest and nothing of the
project, then forks once per run.  The child takes the run's environment, working
directory, arguments and standard streams (the caller's stdin, pipes for stdout
and stderr, passed over a Unix socket), runs pytest as ``python -m`` does
(``runpy._run_module_as_main``, ``sys.path[0]`` the working directory), and ends
the way the interpreter does: non-daemon threads joined, ``atexit`` handlers run,
standard streams flushed, the exit status of ``SystemExit``.

So the child is the process a fresh start would be once ``import pytest`` ran:
pytest's own modules come already imported (never a plugin's, whose asserts
pytest rewrites on import), ``random`` is reseeded at the fork.  What a fresh start
does not share: the hash seed (the server's, one per server), ``sys.orig_argv`` and
the parent process (the server).  ``tests/conformance_meta/test_forked_pytest.py``
compares a forked run's process state with a fresh one's.

A server is kept per environment, less the variables that differ from run to run
(``VARYING``): every variable Python reads when it starts (``PYTHON*``, locale) is
the same as the run's.  Each server is ended and waited for at the end of the test
session (:func:`shutdown`), so its CPU time counts in the session's.
"""

from __future__ import annotations

import json
import locale
import os
import selectors
import signal
import socket
import subprocess
import sys
import time
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Mapping
    from pathlib import Path

__all__ = ["VARYING", "run_pytest", "shutdown"]

# variables that differ between the runs of one test process: the run's corpus
# seed for the test implementations, and the test pytest is running
VARYING = frozenset({"CASES_SEED", "PYTEST_CURRENT_TEST"})
MAX_SERVERS = 4  # beyond: a fresh process per run
_MESSAGE = 1 << 20

# The server, run with `python -c` so that it is no module of the project (it
# would be among the local modules hypothesis reads constants from).
_SERVER = r"""
import json, os, runpy, socket, sys, threading
import pytest

def child(connection, request, fds):
    code = 1
    try:
        connection.close()
        for target, fd in enumerate(fds):
            os.dup2(fd, target)
            os.close(fd)
        os.chdir(request["cwd"])
        os.environ.clear()
        os.environ.update(request["env"])
        sys.argv = ["-m", *request["args"]]
        sys.path[0] = os.getcwd()
        try:
            runpy._run_module_as_main("pytest")  # what `python -m pytest` runs
            code = 0
        except SystemExit as stop:
            if stop.code is None:
                code = 0
            elif isinstance(stop.code, int):
                code = stop.code
            else:
                sys.stderr.write(f"{stop.code}\n")
                code = 1
        except BaseException:
            sys.excepthook(*sys.exc_info())
            code = 1
        threading._shutdown()
        import atexit
        atexit._run_exitfuncs()
        for stream in (sys.stdout, sys.stderr):
            try:
                stream.flush()
            except (OSError, ValueError):
                code = code or 120
    finally:
        os._exit(code)

def serve(connection):
    while True:
        message, fds, _, _ = socket.recv_fds(connection, %(size)d, 3)
        if not message:
            return
        request = json.loads(message)
        pid = os.fork()
        if pid == 0:
            child(connection, request, fds)
        for fd in fds:
            os.close(fd)
        connection.send(json.dumps({"pid": pid}).encode())
        _, status = os.waitpid(pid, 0)
        code = os.waitstatus_to_exitcode(status)
        connection.send(json.dumps({"status": code}).encode())

serve(socket.socket(fileno=int(sys.argv[1])))
""" % {"size": _MESSAGE}  # noqa: UP031 - the server's braces stay braces


@dataclass
class _Server:
    process: subprocess.Popen[bytes]
    connection: socket.socket

    @classmethod
    def start(cls, env: Mapping[str, str]) -> _Server:
        ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        with theirs:
            process = subprocess.Popen(
                [sys.executable, "-c", _SERVER, str(theirs.fileno())],
                env=dict(env),
                stdin=subprocess.DEVNULL,
                stdout=subprocess.DEVNULL,
                pass_fds=(theirs.fileno(),),
            )
        return cls(process, ours)

    def stop(self) -> None:
        self.connection.close()  # the server reads the end and returns
        try:
            self.process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()


_servers: dict[tuple[tuple[str, str], ...], _Server] = {}


def _server(env: Mapping[str, str]) -> _Server | None:
    key = tuple(sorted((k, v) for k, v in env.items() if k not in VARYING))
    server = _servers.get(key)
    if server is None and len(_servers) < MAX_SERVERS:
        server = _servers[key] = _Server.start(dict(key))
    return server


def _text(data: bytes) -> str:
    # what subprocess.run(..., text=True) makes of a stream
    text = data.decode(locale.getpreferredencoding(do_setlocale=False))
    return text.replace("\r\n", "\n").replace("\r", "\n")


def run_pytest(
    args: list[str], *, cwd: Path, env: Mapping[str, str], timeout: float
) -> subprocess.CompletedProcess[str]:
    """``subprocess.run([sys.executable, "-m", "pytest", *args], ...)``, forked.

    Same arguments, result and exceptions as that call with ``cwd``, ``env``,
    ``timeout``, ``capture_output=True``, ``text=True`` and ``check=False``.
    """
    command = [sys.executable, "-m", "pytest", *args]
    server = _server(env)
    if server is None:
        return subprocess.run(
            command, cwd=cwd, env=dict(env), capture_output=True, text=True,
            timeout=timeout, check=False,
        )  # fmt: skip
    out_read, out_write = os.pipe()
    err_read, err_write = os.pipe()
    request = {"args": args, "cwd": str(cwd), "env": dict(env)}
    try:
        socket.send_fds(
            server.connection, [json.dumps(request).encode()], [0, out_write, err_write]
        )
    finally:
        os.close(out_write)
        os.close(err_write)
    try:
        status, (stdout, stderr) = _wait(
            server.connection, (out_read, err_read), timeout
        )
    finally:
        os.close(out_read)
        os.close(err_read)
    if status is None:
        raise subprocess.TimeoutExpired(command, timeout, stdout, stderr)
    return subprocess.CompletedProcess(command, status, _text(stdout), _text(stderr))


def _wait(
    connection: socket.socket, streams: tuple[int, int], timeout: float
) -> tuple[int | None, tuple[bytes, bytes]]:
    """The run's exit status (None: killed at the timeout) and its two streams.

    Like subprocess.run: both streams are read to their end and the exit waited
    for; past the timeout the run is killed and only its exit waited for.
    """
    output = {fd: bytearray() for fd in streams}
    pid = status = None
    timed_out = False
    deadline = time.monotonic() + timeout
    with selectors.DefaultSelector() as selector:
        selector.register(connection, selectors.EVENT_READ)
        for fd in streams:
            selector.register(fd, selectors.EVENT_READ)
        while status is None or (len(selector.get_map()) > 1 and not timed_out):
            if pid is not None and not timed_out and time.monotonic() >= deadline:
                os.kill(pid, signal.SIGKILL)  # the server's child, not reaped yet
                timed_out = True
            wait = None if timed_out else max(0.0, deadline - time.monotonic())
            for key, _ in selector.select(wait):
                if key.fileobj is connection:
                    answer = json.loads(connection.recv(_MESSAGE) or b"{}")
                    if not answer:
                        raise RuntimeError("the pytest fork server ended")
                    pid = answer.get("pid", pid)
                    status = answer.get("status", status)
                    continue
                chunk = os.read(key.fd, 1 << 16)
                output[key.fd] += chunk
                if not chunk:
                    selector.unregister(key.fd)
    return (None if timed_out else status), (
        bytes(output[streams[0]]),
        bytes(output[streams[1]]),
    )


def shutdown() -> None:
    """End every server and wait for it (at the end of a test session)."""
    while _servers:
        _, server = _servers.popitem()
        server.stop()
