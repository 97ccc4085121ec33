"""Run a Python implementation in a killable server, so native faults are outcomes.

A segfaulting extension would take the pytest run down with it, and a load
stuck in native code never sees Python's ``SIGALRM``.  So by default an
in-process adapter runs in a fork server
(:mod:`stspec_conformance.adapters._fork_server`, started with ``python -c``)
that imports the adapter once and forks workers that serve loads and saves
under the file's limits.  This module is the side in pytest's process: it
starts the server, sends requests and checks each answer before it becomes
an :class:`~stspec_conformance._model.Outcome`.

Nothing the server sends runs as code here: the answers are JSON, checked
field by field (:mod:`._wire`); a malformed answer is ``invalid-output``,
and a server that stops answering is ``crashed`` and replaced.
``--in-process`` skips all of this (for a debugger).  Fork is POSIX-only;
elsewhere the suite runs adapters in its own process.
"""

from __future__ import annotations

import atexit
import contextlib
import os
import select
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from typing import TYPE_CHECKING, Any, Final

from stspec_conformance._capabilities import CapabilityError, from_mapping
from stspec_conformance._model import Outcome
from stspec_conformance.adapters._base import Adapter, MemoryMode, RawTensors
from stspec_conformance.adapters._capture import stdout_cap
from stspec_conformance.adapters._fork_server import (
    COMMAND,
    RUNTIME_SHARE,
    limits_text,
)
from stspec_conformance.adapters._process import environment
from stspec_conformance.adapters._python import ImplError
from stspec_conformance.adapters._wire import (
    HEADER,
    WireError,
    allowance_to,
    decode,
    encode,
    outcome_from,
    save_request,
)

if TYPE_CHECKING:
    from collections.abc import Mapping

    from stspec_conformance._limits import Allowance, Limits

__all__ = ["RUNTIME_SHARE", "IsolatedAdapter", "available"]

# The server answers within the wall-clock backstop; this margin covers the
# fork, the encoding and a machine under load.
_MARGIN_SECONDS: Final = 60.0
_START_SECONDS: Final = 120.0
# The server's first message (name, version, capabilities) is small.
_READY_CAP: Final = 1 << 20


def available() -> bool:
    """Whether this platform can fork a worker (POSIX)."""
    return hasattr(os, "fork") and sys.platform != "win32"


class _StalledError(Exception):
    """The server sent nothing (in time), or closed its end."""


def _receive(fd: int, seconds: float, cap: int) -> dict[str, Any]:
    """One message from the server within ``seconds``.

    :class:`_StalledError` when it sends nothing in time or closes its end (a
    server that sends half a message cannot hold pytest either);
    :class:`WireError` when the message is malformed or larger than ``cap``.
    """
    deadline = time.monotonic() + seconds
    data = b""
    need = HEADER.size
    while len(data) < need:
        remaining = deadline - time.monotonic()
        if remaining <= 0 or not select.select([fd], [], [], remaining)[0]:
            raise _StalledError
        chunk = os.read(fd, min(need - len(data), 1 << 20))
        if not chunk:
            raise _StalledError
        data += chunk
        if need == HEADER.size and len(data) == HEADER.size:
            (size,) = HEADER.unpack(data)
            if size > cap:
                msg = f"a message of {size} bytes (at most {cap} expected)"
                raise WireError(msg)
            need += size
    return decode(data[HEADER.size :])


class IsolatedAdapter(Adapter):
    """A Python adapter running in a fork server (see the module docstring)."""

    def __init__(
        self, spec: str, *, limits: Limits, runtime_share: int | None = None
    ) -> None:
        self.spec = spec
        self.limits = limits
        self.runtime_share = RUNTIME_SHARE if runtime_share is None else runtime_share
        self._process: subprocess.Popen[bytes] | None = None
        self._start()
        # Reports tell an isolated run from an --in-process one (the server's
        # adapter itself says "in-process").
        self.kind = "isolated"
        atexit.register(self.close)

    def _start(self) -> None:
        # The server's temporary files (its warm-up file, what the code under
        # test leaves) go to a folder of its own, removed however it ends:
        # killed in the middle of a load, it cannot clean up after itself.
        self._scratch = tempfile.mkdtemp(prefix="stspec-server-")
        self._process = subprocess.Popen(  # noqa: S603 - our own module
            [
                sys.executable,
                "-c",
                COMMAND,
                self.spec,
                limits_text(self.limits, self.runtime_share),
            ],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            bufsize=0,  # answers are read from the descriptor, with a deadline
            start_new_session=True,
            env={**environment(), "TMPDIR": self._scratch},
        )
        assert self._process.stdout is not None  # noqa: S101 - PIPE above
        try:
            reply = _receive(self._process.stdout.fileno(), _START_SECONDS, _READY_CAP)
            self._ready(reply)
        except (_StalledError, OSError):
            self.close()
            raise ImplError(
                "the isolation worker did not start: no answer within "
                f"{_START_SECONDS:.0f} s (it imports the adapter, then loads "
                "a minimal valid file)"
            ) from None
        except (WireError, CapabilityError) as exc:
            self.close()
            raise ImplError(f"the isolation worker's first answer: {exc}") from None

    def _ready(self, reply: Mapping[str, Any]) -> None:
        """Take the server's name, version and capabilities (checked)."""
        if reply["kind"] == "error":
            raise ImplError(str(reply.get("message", "")))
        if reply["kind"] != "ready":
            msg = f"a {reply['kind']!r:.40} message instead of 'ready'"
            raise WireError(msg)
        name, version = reply.get("name"), reply.get("version")
        if not isinstance(name, str) or not isinstance(version, str):
            msg = "the name and version are not strings"
            raise WireError(msg)
        self.name, self.version = name, version
        self.capabilities = from_mapping(
            reply.get("capabilities"), source="the isolated adapter's capabilities"
        )

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
        shutil.rmtree(self._scratch, ignore_errors=True)

    def _call(self, request: Mapping[str, object], allowance: Allowance) -> Outcome:
        """Send one request; the checked answer, or why there is none."""
        try:
            return outcome_from(self._exchange(request, allowance).get("outcome"))
        except WireError as exc:
            outcome = Outcome(
                "invalid-output",
                message=f"the isolation server's answer is malformed: {exc}",
            )
        except (_StalledError, OSError):
            outcome = Outcome(
                "crashed", message="the isolation worker stopped answering"
            )
        # Not trusted again: a fresh server for the next request.
        self.close()
        self._start()
        return outcome

    def _exchange(
        self, request: Mapping[str, object], allowance: Allowance
    ) -> dict[str, Any]:
        process = self._process
        if process is None or process.stdin is None or process.stdout is None:
            raise _StalledError
        process.stdin.write(encode(request))
        process.stdin.flush()
        reply = _receive(
            process.stdout.fileno(),
            allowance.wall_seconds + _MARGIN_SECONDS,
            # the worker's own answer, wrapped once more
            stdout_cap(allowance.length) + _READY_CAP,
        )
        if reply["kind"] != "outcome":
            msg = f"a {reply['kind']!r:.40} message instead of an outcome"
            raise WireError(msg)
        return reply

    def attempt_load(
        self, path: str, *, timeout: float, measure_memory: MemoryMode = None
    ) -> Outcome:
        """Load ``path`` in a forked child under the file's allowance."""
        del measure_memory  # the child is always measured as a process
        allowance = self.limits.for_file(path, cpu_seconds=timeout)
        request = {"kind": "load", "path": path, "allowance": allowance_to(allowance)}
        return self._call(request, allowance)

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
        return self._call(save_request(path, plain, metadata, allowance), allowance)
