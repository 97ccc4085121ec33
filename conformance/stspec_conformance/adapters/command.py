"""Adapter for ``--impl="cmd:PROGRAM ARGS..."``: any language, one process per file.

The protocol (the README's "The command protocol" is the contract):

Read mode: the suite runs ``PROGRAM ARGS... FILE``.

* exit 0 = accepted; stdout is one JSON object
  ``{"metadata": {"k": "v"} | null, "tensors": {"name": {"dtype": "F32",
  "shape": [2], "sha256": "<hex digest of the raw bytes>"}}}``; instead of
  ``sha256`` a tensor may give ``"hex"``, its raw bytes as hex; ``"nbytes"``
  is optional and checked when present;
* exit 1 = rejected; if the first line of stderr is a rule id
  (``LAYOUT-HOLE``) it is the implementation's classification (--check-rules);
* any other exit status, death by a signal, running past the time limit or
  past the address-space limit (``RLIMIT_AS``) = a crash or a hang.

Write mode (optional): ``PROGRAM ARGS... --write OUT`` reads
``{"metadata": ... | null, "tensors": {"name": {"dtype": ..., "shape": [...],
"hex": "..."}}}`` on stdin and writes OUT; exit 0 = written, 1 = refused.

Describe (optional): ``PROGRAM ARGS... --describe`` prints
``{"name": ..., "version": ..., "write": true, "save_dtypes": [...]}``.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import re
import signal
import subprocess
import sys
import time
from typing import TYPE_CHECKING, Any, Final

from stspec_conformance._capabilities import from_describe
from stspec_conformance._model import Content, Outcome, TensorDigest
from stspec_conformance.adapters._base import (
    Adapter,
    MemoryMode,
    RawTensors,
)

if TYPE_CHECKING:
    from collections.abc import Callable, Mapping

_RULE_LINE: Final = re.compile(r"[A-Z][A-Z0-9]*(?:-[A-Z0-9]+)+")
DESCRIBE_TIMEOUT: Final = 20.0


def _limits(memory_limit: int | None) -> Callable[[], None] | None:
    if memory_limit is None or sys.platform == "win32":
        return None

    def apply() -> None:  # runs in the child between fork and exec
        import resource  # noqa: PLC0415 - POSIX only

        resource.setrlimit(resource.RLIMIT_AS, (memory_limit, memory_limit))
        with contextlib.suppress(ValueError, OSError):
            resource.setrlimit(resource.RLIMIT_CORE, (0, 0))

    return apply


class CommandAdapter(Adapter):
    """Runs an external program per file (see the module docstring)."""

    kind = "command"

    def __init__(
        self, argv: list[str], *, memory_limit: int | None, cwd: str | None = None
    ) -> None:
        self.argv = argv
        self.memory_limit = memory_limit
        self.cwd = cwd
        self.name = " ".join(argv)
        self.version = "?"
        self.describe_error = ""
        self.protocol = 1
        self._describe()

    def _describe(self) -> None:
        result = self._run([*self.argv, "--describe"], None, DESCRIBE_TIMEOUT)
        if result is None or result[0] != 0:
            return
        try:
            info = json.loads(result[1])
        except ValueError:
            return
        if not isinstance(info, dict):
            return
        self.name = str(info.get("name", self.name))
        self.version = str(info.get("version", self.version))
        self.capabilities = from_describe(info, source=f"{self.name} --describe")
        self.protocol = 2 if info.get("protocol") == 2 else 1

    def _run(
        self, argv: list[str], stdin: bytes | None, timeout: float
    ) -> tuple[int, bytes, bytes] | None:
        """Run to completion; None on timeout (the process group is killed)."""
        with subprocess.Popen(  # noqa: S603 - running the implementation is the point
            argv,
            stdin=subprocess.PIPE if stdin is not None else subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            preexec_fn=_limits(self.memory_limit),  # noqa: PLW1509 - no threads started
            start_new_session=True,
            cwd=self.cwd,
        ) as process:
            try:
                out, err = process.communicate(stdin, timeout=timeout or None)
            except subprocess.TimeoutExpired:
                with contextlib.suppress(ProcessLookupError, PermissionError):
                    os.killpg(process.pid, signal.SIGKILL)
                process.communicate()
                return None
            return process.returncode, out, err

    def _outcome(
        self, argv: list[str], stdin: bytes | None, timeout: float
    ) -> tuple[Outcome, bytes]:
        started = time.perf_counter()
        result = self._run(argv, stdin, timeout)
        seconds = time.perf_counter() - started
        if result is None:
            return Outcome(
                "hung", message=f"no exit within {timeout:g} s", seconds=seconds
            ), b""
        code, out, err = result
        text = err.decode("utf-8", "replace").strip()
        if code == 0:
            return Outcome("accepted", seconds=seconds), out
        if code == 1:
            first = text.splitlines()[0].strip() if text else ""
            rule = first if _RULE_LINE.fullmatch(first) else None
            return Outcome("rejected", message=text, rule=rule, seconds=seconds), out
        why = f"killed by signal {-code}" if code < 0 else f"exit status {code}"
        return Outcome("crashed", message=f"{why}; {text}", seconds=seconds), out

    def attempt_load(
        self, path: str, *, timeout: float, measure_memory: MemoryMode = None
    ) -> Outcome:
        """Run ``PROGRAM ARGS... FILE`` (memory is limited, not measured)."""
        del measure_memory
        outcome, out = self._outcome([*self.argv, path], None, timeout)
        if outcome.status == "accepted":
            try:
                outcome.content = parse_description(out)
            except ValueError as exc:
                outcome.status = "invalid-output"
                outcome.message = f"{exc}; stdout: {out[:200]!r}"
        return outcome

    def attempt_save(
        self,
        path: str,
        tensors: RawTensors,
        metadata: Mapping[str, str] | None,
        *,
        timeout: float,
    ) -> Outcome:
        """Run ``PROGRAM ARGS... --write OUT`` with the description on stdin."""
        request = {
            "metadata": None if metadata is None else dict(metadata),
            "tensors": {
                name: {"dtype": dtype, "shape": list(shape), "hex": bytes(data).hex()}
                for name, (dtype, shape, data) in tensors.items()
            },
        }
        stdin = json.dumps(request).encode()
        outcome, _ = self._outcome([*self.argv, "--write", path], stdin, timeout)
        return outcome


def parse_description(out: bytes) -> Content:
    """Parse the JSON a command prints for an accepted file."""
    try:
        data: Any = json.loads(out)
    except ValueError as exc:
        raise ValueError(f"stdout is not JSON: {exc}") from None
    if not isinstance(data, dict) or not isinstance(data.get("tensors"), dict):
        raise ValueError('stdout must be {"metadata": ..., "tensors": {...}}')
    metadata = data.get("metadata")
    if metadata is not None and not (
        isinstance(metadata, dict)
        and all(isinstance(v, str) for v in metadata.values())
    ):
        raise ValueError("metadata must be an object of strings or null")
    tensors: dict[str, TensorDigest] = {}
    for name, entry in data["tensors"].items():
        if not isinstance(entry, dict):
            raise ValueError(f"tensor {name!r}: expected an object")
        dtype, shape = entry.get("dtype"), entry.get("shape")
        if not isinstance(dtype, str) or not isinstance(shape, list):
            raise ValueError(
                f"tensor {name!r}: dtype (string) and shape (array) needed"
            )
        if not all(isinstance(dim, int) and dim >= 0 for dim in shape):
            raise ValueError(f"tensor {name!r}: shape must hold non-negative integers")
        if isinstance(entry.get("hex"), str):
            raw = bytes.fromhex(entry["hex"])
            digest = TensorDigest.of(dtype, tuple(shape), raw)
        elif isinstance(entry.get("sha256"), str):
            nbytes = entry.get("nbytes", -1)
            if not isinstance(nbytes, int):
                raise ValueError(f"tensor {name!r}: nbytes must be an integer")
            digest = TensorDigest(dtype, tuple(shape), nbytes, entry["sha256"].lower())
        else:
            raise ValueError(f"tensor {name!r}: give sha256 or hex")
        tensors[name] = digest
    return Content(None if metadata is None else dict(metadata), tensors)


def hash_hex(data: bytes) -> str:
    """The digest a command reports for ``data`` (for tests and examples)."""
    return hashlib.sha256(data).hexdigest()
