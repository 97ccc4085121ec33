"""Adapter for ``--impl="cmd:PROGRAM ARGS..."``: any language, one process per file.

Command protocol 2 (docs/reference/command-protocol.md is the contract).
Every answer is one JSON object on stdout; a rejection is an answer too, so a
runtime that cannot start or stops on an uncaught error (Node, the JVM, a
Python traceback: all exit 1) is an ``exception``, never a rejection.

Read: ``PROGRAM ARGS... FILE``

* accepted: exit 0, ``{"result": "accepted", "metadata": {...} | null,
  "tensors": {NAME: {"dtype": "F32", "shape": [2], "sha256": HEX}}}``; a
  tensor gives one of ``sha256``, ``hex`` (its raw bytes) or, above 256 MiB,
  ``windows`` (``[[start, sha256], ...]``, see :func:`window_starts`);
  ``nbytes`` is optional.  A declared header-only validator gives dtype and
  shape only.  An exit-0 answer without ``"result"`` is protocol 1's accepted.
* rejected: exit 1, ``{"result": "rejected", "rule": "LAYOUT-HOLE",
  "reason": "..."}`` (rule and reason optional).
* fail-open: exit 0, ``{"result": "unjudged", "reason": "..."}``: the
  library answered success (its gate passed) while saying it could not judge
  the file; recorded as ``fail-open``, a failure on every case.
* anything else is a crash (``crashed``: a signal, a panic, an abort; or
  ``exception``: a managed runtime's uncaught exception, read from stderr by
  :mod:`._stderr`), a hang (CPU-time limit, or the wall-clock backstop),
  ``resource`` (ran out of memory under the data limit, said anywhere on
  stderr) or ``invalid-output``; an exit status contradicting its
  ``"result"`` (exit 0 saying rejected, exit 1 saying accepted) is
  ``invalid-output`` and never counts as an acceptance.

Write: ``PROGRAM ARGS... --write OUT``, the request on stdin; exit 0 +
``{"result": "written"}``, or exit 1 + ``{"result": "refused", "reason": ...}``.

Describe: ``PROGRAM ARGS... --describe``: exit 0 + ``{"protocol": 2, "name":
..., "version": ..., "capabilities": {...}}``.

Limits: ``RLIMIT_CPU`` (hangs are judged by CPU time), ``RLIMIT_DATA`` (what
the process really allocates; read-only ``mmap`` of the file is free, unlike
under ``RLIMIT_AS``), both from :class:`stspec_conformance._limits.Limits`,
set by ``prlimit`` or a ``preexec_fn`` (:mod:`._launch`).
The peak resident memory of each run above the
runtime's own (its peak loading a minimal valid file) is reported as
``peak_memory`` and judged against the file's allowance like an in-process
run's: the larger of ``wait4``'s ``ru_maxrss`` and the highest resident size of
the program and its children that the suite samples every
:data:`SAMPLE_SECONDS` from outside (the program can lower the kernel's mark,
never the samples).  A child starts with the suite's pages counted in the
kernel's mark (Linux counts them whether it was forked or vforked), so a mark
no higher than the suite's own is not the program's; the samples are taken
after it started and count only its own pages.
"""

from __future__ import annotations

import contextlib
import json
import math
import os
import re
import signal
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Final

from stspec.dtypes import BITS
from stspec_conformance._capabilities import Capabilities, from_describe
from stspec_conformance._limits import Allowance, Limits
from stspec_conformance._minimal import minimal_file
from stspec_conformance._model import (
    HASH_LIMIT,
    Content,
    Outcome,
    TensorDigest,
    window_starts,
)
from stspec_conformance._protocol import Message, problems
from stspec_conformance.adapters._base import Adapter, MemoryMode, RawTensors
from stspec_conformance.adapters._capture import (
    Captured,
    collect,
    exited,
    stdout_cap,
)
from stspec_conformance.adapters._launch import Launch, launch
from stspec_conformance.adapters._process import (
    become_subreaper,
    children,
    end_leftovers,
    environment,
    group_members,
    left_running,
    signal_name,
    status_kib,
    stderr_tail,
    tree_rss_kib,
)
from stspec_conformance.adapters._stderr import read_death

if TYPE_CHECKING:
    from collections.abc import Mapping

__all__ = ["CommandAdapter", "parse_answer", "stderr_tail", "write_request"]

# Protocol answers nest at most five levels (a window inside a tensor's
# "windows" inside "tensors"); a deeper one is malformed.  It is judged before
# json.loads, whose C decoder recurses once per level: an answer echoing a
# file's deep metadata would raise RecursionError inside the suite, or
# overflow the C stack under a raised recursion limit.
MAX_ANSWER_DEPTH: Final = 64
_STRING_OR_BRACKET: Final = re.compile(rb'"(?:[^"\\]|\\.)*+"|[\[\]{}]', re.DOTALL)

DESCRIBE_SECONDS: Final = 20.0
# the schema of an answer, by the "result" that exits 0
_SCHEMA: Final[dict[str, Message]] = {
    "accepted": "read-answer",
    "written": "write-answer",
}
# bytes of a non-protocol stdout quoted in a crash message
STDOUT_SHOWN: Final = 200
# A child's peak below the suite's own peak plus this is not its own: until it
# execs, Linux counts the suite's pages in it, forked or vforked (and it
# allocates a little).
_FORK_MARGIN: Final = 16 * 1024 * 1024
# How long a program whose pipes closed gets to finish exiting.
_EXIT_SECONDS: Final = 2.0
# How often the resident memory of a running program is sampled.
SAMPLE_SECONDS: Final = 0.01


@dataclass(frozen=True, slots=True)
class _Run:
    code: int | None  # None: killed by the wall-clock backstop
    out: bytes
    err: bytes
    seconds: float
    cpu_seconds: float
    # bytes: wait4's ru_maxrss, the kernel's high-water mark (which the
    # program can lower by writing 5 to /proc/self/clear_refs)
    max_rss: int | None = None
    overflow: bool = False  # stdout passed its cap
    leftovers: tuple[str, ...] = ()  # processes killed after it ended
    # bytes: the highest resident size of the program and its children that
    # the suite sampled from outside (its own pages only: taken after exec)
    sampled_rss: int | None = None

    def own_peak(self) -> int | None:
        """The run's peak: the samples, and the kernel's mark when its own.

        The kernel's mark counts the pages the child started with (the
        suite's, at fork), so it is the program's only above the suite's own
        high-water mark.  That is the suite process's ``VmHWM``, not its
        ``ru_maxrss``: the latter also holds what the suite's parent had when
        it started the suite, which can be far more.
        """
        if sys.platform == "win32":  # pragma: no cover
            return None
        kernel = self.max_rss or 0
        if kernel and kernel <= _suite_high_water() + _FORK_MARGIN:
            kernel = 0
        return max(kernel, self.sampled_rss or 0) or None


def _suite_high_water() -> int:
    """The suite process's own high-water resident size in bytes."""
    own = status_kib(os.getpid(), "VmHWM")
    if own is None:  # pragma: no cover - no procfs (macOS)
        import resource  # noqa: PLC0415 - POSIX only

        own = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return own * 1024


class _Reaped(subprocess.Popen[bytes]):
    """A Popen that keeps the child's peak resident memory when it reaps it.

    Popen reaps through ``_try_wait`` on POSIX; ``wait4`` returns the rusage
    that ``waitpid`` drops.  Where it reaps otherwise (Windows, another Python
    version) the peak is just unknown.
    """

    max_rss_kib: int | None = None

    def _try_wait(self, wait_flags: int) -> tuple[int, int]:
        try:
            pid, status, usage = os.wait4(self.pid, wait_flags)
        except ChildProcessError:  # reaped elsewhere (SIGCHLD ignored): as Popen
            return self.pid, 0
        if pid == self.pid:
            self.max_rss_kib = usage.ru_maxrss
        return pid, status


def _await_exit(pid: int, seconds: float) -> None:
    """Wait up to ``seconds`` for ``pid`` to exit (it is not reaped)."""
    deadline = time.monotonic() + seconds
    while not exited(pid) and time.monotonic() < deadline:
        time.sleep(0.005)


def _children_cpu() -> float:
    if sys.platform == "win32":  # pragma: no cover - POSIX CI
        return 0.0
    import resource  # noqa: PLC0415 - POSIX only

    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


class CommandAdapter(Adapter):
    """Runs an external program per file (see the module docstring)."""

    kind = "command"

    def __init__(
        self,
        argv: list[str],
        *,
        memory_limit: int | None,
        cwd: str | None = None,
        limits: Limits | None = None,
    ) -> None:
        self.argv = argv
        self.memory_limit = memory_limit  # the runtime's own share, bytes
        self.cwd = cwd
        self.limits = limits or Limits()
        self.name = " ".join(argv)
        self.version = "?"
        self.protocol = 1
        self.describe_error = ""
        self._runtime_rss: int | None = None
        # Orphans of the program (a double-forked setsid helper) become this
        # process's children, so they are found and killed after each run.
        become_subreaper()
        self._describe()

    def _describe(self) -> None:
        """Ask ``--describe``; on failure keep why (the smoke gate reports it)."""
        argv = [*self.argv, "--describe"]
        run = self._run(argv, None, self._allowance(None, DESCRIBE_SECONDS))
        if run.code != 0:
            outcome = self._failure(run, DESCRIBE_SECONDS)
            self.describe_error = f"`{' '.join(argv)}` {outcome.describe()}"
            return
        try:
            info = _loads(run.out)
        except ValueError as exc:
            self.describe_error = (
                f"`{' '.join(argv)}` printed no JSON ({exc}): {run.out[:200]!r}"
            )
            return
        if not isinstance(info, dict):
            self.describe_error = (
                f"`{' '.join(argv)}` printed {info!r:.100}, not an object"
            )
            return
        self.capabilities = from_describe(info, source=f"`{' '.join(argv)}`")
        wrong = problems("describe", info)
        if wrong:
            self.describe_error = (
                f"`{' '.join(argv)}` answered outside the protocol's describe "
                f"schema: {'; '.join(wrong)}"
            )
            return
        self.name = str(info.get("name", self.name))
        self.version = str(info.get("version", self.version))
        self.protocol = 2 if info.get("protocol") == 2 else 1

    def _allowance(self, path: str | None, cpu_seconds: float) -> Allowance:
        if path is None:
            return Allowance(
                0, 0, cpu_seconds, max(self.limits.wall_seconds, cpu_seconds)
            )
        return self.limits.for_file(path, cpu_seconds=cpu_seconds)

    def _run(self, argv: list[str], stdin: bytes | None, allowance: Allowance) -> _Run:
        """Run under the limits; nothing it starts outlives the run.

        Output is read with bounds (:mod:`._capture`); the process group
        dies at the backstop, and after every run the program's leftovers
        (its session, and orphans adopted by this subreaper) are killed.
        """
        data = (
            None if self.memory_limit is None else self.memory_limit + allowance.memory
        )
        start = (
            Launch(argv, None)
            if sys.platform == "win32"
            else launch(argv, allowance.cpu_rlimit(), data)
        )
        cpu_before = _children_cpu()
        started = time.perf_counter()
        before = children(os.getpid())
        killed: list[str] = []
        with _Reaped(  # running the implementation is the point
            start.argv,
            stdin=subprocess.PIPE if stdin is not None else subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            preexec_fn=start.preexec,  # only setrlimit: safe between fork and exec
            start_new_session=True,
            cwd=self.cwd,
            env=environment(),
        ) as process:

            def end(*, name_members: bool = True) -> None:
                # Named before the kill: what it ends no longer looks left over.
                members = (
                    group_members(
                        process.pid, parent=os.getpid(), keep={*before, process.pid}
                    )
                    if name_members
                    else []
                )
                with contextlib.suppress(ProcessLookupError, PermissionError):
                    os.killpg(process.pid, signal.SIGKILL)
                # the program itself is Popen's to reap (its status, its rusage)
                found = end_leftovers(
                    os.getpid(), keep={*before, process.pid}, session=process.pid
                )
                # one entry per pid (a name can change between the listings)
                named = {entry.split(" ", 1)[0] for entry in killed}
                for entry in [*members, *found]:
                    if entry.split(" ", 1)[0] not in named:
                        named.add(entry.split(" ", 1)[0])
                        killed.append(entry)

            sampled = [0]
            tree_due = [time.monotonic() + SAMPLE_SECONDS]

            def sample() -> None:
                # from outside: the program cannot lower it (see _Run.own_peak).
                # The processes below it are added every SAMPLE_SECONDS, not
                # on every pipe event: reading the /proc entries of its other
                # threads makes the kernel's reaping of it cost about 10 ms of
                # CPU, more than a native reader's whole run.
                now = time.monotonic()
                if now >= tree_due[0]:
                    tree_due[0] = now + SAMPLE_SECONDS
                    kib = tree_rss_kib(process.pid)
                else:
                    kib = status_kib(process.pid, "VmRSS")
                sampled[0] = max(sampled[0], kib or 0)

            captured: Captured | None = None
            try:
                captured = collect(
                    process,
                    stdin,
                    deadline=time.monotonic() + allowance.wall_seconds,
                    out_cap=stdout_cap(allowance.length),
                    on_exit=end,
                    on_tick=sample,
                    tick=SAMPLE_SECONDS,
                )
            finally:
                if captured is not None and not (
                    captured.timed_out or captured.overflow
                ):
                    # its pipes closed as it exits: let the exit finish, so
                    # what it left in its group is named, not killed unseen
                    _await_exit(process.pid, _EXIT_SECONDS)
                # not poll(): it reaps without the rusage wait() keeps
                stopped = not exited(process.pid)
                if stopped:
                    with contextlib.suppress(ProcessLookupError):
                        process.kill()
                # A program stopped at the backstop leaves its helpers mid-work:
                # they end with it, unnamed.
                end(name_members=not stopped)
                process.wait()
        return _Run(
            None if captured.timed_out else process.returncode,
            captured.out,
            captured.err,
            time.perf_counter() - started,
            _children_cpu() - cpu_before,
            None if process.max_rss_kib is None else process.max_rss_kib * 1024,
            overflow=captured.overflow,
            leftovers=tuple(killed),
            sampled_rss=sampled[0] * 1024 or None,
        )

    def _runtime_peak(self) -> int:
        """The runtime's own peak: once, loading a minimal valid file.

        What the runtime, its imports and its first load take, as the
        isolation worker's warm-up load; at most the suite's own peak when
        that hides it (then runs are judged leniently, never wrongly).
        """
        if self._runtime_rss is None:
            data, _ = minimal_file(self.capabilities)
            with tempfile.TemporaryDirectory(prefix="stspec-runtime-") as directory:
                path = os.path.join(directory, "minimal.safetensors")
                with open(path, "wb") as file:
                    file.write(data)
                run = self._run([*self.argv, path], None, self.limits.for_file(path))
            self._runtime_rss = max(run.max_rss or 0, run.sampled_rss or 0)
        return self._runtime_rss

    def _failure(self, run: _Run, cpu_limit: float) -> Outcome:
        """The outcome of a run that gave no answer (a crash, a hang, memory)."""
        tail = stderr_tail(run.err)
        if run.code is None:
            return Outcome(
                "hung",
                message=f"no answer within {run.seconds:.0f} s of wall-clock time "
                f"({run.cpu_seconds:.1f} s CPU used); raise --wall-timeout if the "
                "machine is just slow",
            )
        out_of_cpu = run.code == -signal.SIGXCPU or (
            run.code == -signal.SIGKILL and run.cpu_seconds >= math.ceil(cpu_limit)
        )
        if out_of_cpu:
            return Outcome(
                "hung",
                message=f"used more than its {math.ceil(cpu_limit)} s of CPU time "
                "(--case-timeout, scaled with the file's length)",
                crash=signal_name(-run.code),
            )
        crash = signal_name(-run.code) if run.code < 0 else f"exit status {run.code}"
        death = read_death(run.err)
        if death is not None and death.status == "resource":
            return Outcome(
                "resource",
                message=f"ran out of memory under the data limit ({crash}): "
                f"{death.line}; stderr: {tail}",
                crash=crash,
                memory="reserved",
            )
        why = crash
        if run.code == 1:
            why += ' without a {"result": "rejected"} answer on stdout'
        last = tail.splitlines()[-1].strip() if tail else "(stderr empty)"
        said = f"it said: {death.line}" if death else f"last stderr line: {last}"
        # what stdout held instead of an answer, bounded and escaped (untrusted)
        out = f"; stdout: {run.out[:STDOUT_SHOWN]!r}" if run.out.strip() else ""
        # a signal is a native crash whatever the runtime; so is an unknown death
        managed = run.code > 0 and death is not None and death.status == "exception"
        return Outcome(
            "exception" if managed else "crashed",
            message=f"{why}; {said}{out}; stderr: {tail}",
            crash=crash if death is None or run.code < 0 else f"{death.kind}, {crash}",
            exception=death.kind if managed and death else "",
        )

    def _answer(  # noqa: PLR0911 - one return per protocol outcome
        self, run: _Run, cpu_limit: float, expect: tuple[str, str]
    ) -> tuple[Outcome, dict[str, Any] | None]:
        """Read exit status and stdout as protocol 2 (``expect``: ok/no words)."""
        if run.overflow:
            return Outcome(
                "invalid-output",
                message=f"printed more than {len(run.out) - 1} bytes on stdout "
                "(an answer about this file needs less; the suite stopped it)",
            ), None
        if run.code not in {0, 1}:
            return self._failure(run, cpu_limit), None
        try:
            answer = _loads(run.out) if run.out.strip() else None
        except ValueError as exc:
            if run.code == 0 and str(exc).startswith("the answer nests"):
                return Outcome("invalid-output", message=str(exc)), None
            answer = None
        if run.code == 1:
            if isinstance(answer, dict) and answer.get("result") == expect[1]:
                return _rejection(answer, run.err, _SCHEMA[expect[0]]), answer
            if isinstance(answer, dict) and answer.get("result") == expect[0]:
                return _inconsistent(1, expect[0], expect), None
            return self._failure(run, cpu_limit), None
        return _acceptance(answer, run.out, expect)

    def attempt_load(
        self, path: str, *, timeout: float, measure_memory: MemoryMode = None
    ) -> Outcome:
        """Run ``PROGRAM ARGS... FILE`` under the file's allowance."""
        del measure_memory
        allowance = self.limits.for_file(path, cpu_seconds=timeout)
        run = self._run([*self.argv, path], None, allowance)
        outcome, answer = self._answer(
            run, allowance.cpu_seconds, ("accepted", "rejected")
        )
        outcome.seconds, outcome.cpu_seconds = run.seconds, run.cpu_seconds
        outcome.memory_allowance = allowance.memory
        left_running(outcome, list(run.leftovers))
        peak = run.own_peak()
        if peak is not None:
            outcome.peak_memory = max(0, peak - self._runtime_peak())
        if outcome.status == "accepted" and answer is not None:
            try:
                outcome.content = content_of(answer, self.capabilities)
            except ValueError as exc:
                outcome.status = "invalid-output"
                outcome.message = f"{exc}; stdout: {run.out[:200]!r}"
        return outcome

    def attempt_save(
        self,
        path: str,
        tensors: RawTensors,
        metadata: Mapping[str, str] | None,
        *,
        timeout: float,
    ) -> Outcome:
        """Run ``PROGRAM ARGS... --write OUT`` with the request on stdin."""
        stdin = json.dumps(write_request(tensors, metadata)).encode()
        # the runtime's share plus the request's: decoding its JSON and
        # building the header it makes (the over-limit header test's is
        # just over 100,000,000 bytes, which a writer may build and refuse)
        share = self.limits.for_request(tensors, metadata).memory
        base = self._allowance(None, timeout)
        allowance = Allowance(0, share, base.cpu_seconds, base.wall_seconds)
        run = self._run([*self.argv, "--write", path], stdin, allowance)
        outcome, _ = self._answer(run, allowance.cpu_seconds, ("written", "refused"))
        outcome.seconds, outcome.cpu_seconds = run.seconds, run.cpu_seconds
        left_running(outcome, list(run.leftovers))
        return outcome


def write_request(
    tensors: RawTensors, metadata: Mapping[str, str] | None
) -> dict[str, Any]:
    """The JSON request a writer reads on stdin (schemas/write-request.schema.json)."""
    return {
        "metadata": None if metadata is None else dict(metadata),
        "tensors": {
            name: {"dtype": dtype, "shape": list(shape), "hex": bytes(data).hex()}
            for name, (dtype, shape, data) in tensors.items()
        },
    }


def _loads(out: bytes) -> Any:  # noqa: ANN401 - any JSON value
    """``json.loads``; ValueError also for an answer nested too deep."""
    if out.count(b"[") + out.count(b"{") > MAX_ANSWER_DEPTH:
        depth = 0
        for token in _STRING_OR_BRACKET.finditer(out):
            if token.group() in (b"[", b"{"):
                depth += 1
                if depth > MAX_ANSWER_DEPTH:
                    msg = (
                        f"the answer nests deeper than {MAX_ANSWER_DEPTH} levels "
                        f"(at byte {token.start()} of stdout); protocol answers "
                        "nest at most 5"
                    )
                    raise ValueError(msg)
            elif token.group() in (b"]", b"}"):
                depth -= 1
    return json.loads(out)


def _rejection(answer: Mapping[str, Any], err: bytes, message: Message) -> Outcome:
    wrong = problems(message, answer)
    if wrong:
        return Outcome(
            "invalid-output",
            message=f"the {answer.get('result')} answer breaks the protocol's "
            f"{message} schema: {'; '.join(wrong)}",
            details={"claimed": "rejected"},  # a rejection, malformed: not accepted
        )
    rule, reason = answer.get("rule"), answer.get("reason", "")
    return Outcome("rejected", message=str(reason) or stderr_tail(err), rule=rule)


def _inconsistent(code: int, result: str, expect: tuple[str, str]) -> Outcome:
    """An answer whose exit status says the opposite of its ``"result"``.

    Neither verdict can be trusted, so it is ``invalid-output`` and marked as
    no acceptance (``details["claimed"]``): an n_ case is not "accepted" by it.
    """
    return Outcome(
        "invalid-output",
        message=f'inconsistent answer: exit {code} with "result": "{result}" '
        f'("{expect[0]}" exits 0, "{expect[1]}" exits 1)',
        details={"claimed": "inconsistent"},
    )


def _unjudged(answer: Mapping[str, Any]) -> Outcome:
    """Success on a file the library said it could not judge: fail-open."""
    wrong = problems("read-answer", answer)
    if wrong:
        return Outcome(
            "invalid-output",
            message="the unjudged answer breaks the protocol's read-answer "
            f"schema: {'; '.join(wrong)}",
        )
    reason = answer.get("reason", "")
    return Outcome(
        "fail-open",
        message="answered success on a file it said it could not judge"
        + (f": {reason}" if reason else ""),
    )


def _acceptance(
    answer: object, out: bytes, expect: tuple[str, str]
) -> tuple[Outcome, dict[str, Any] | None]:
    ok_word, no_word = expect
    if not isinstance(answer, dict):
        if out.strip() or ok_word == "accepted":
            return Outcome(
                "invalid-output",
                message=f"exit 0 but stdout is not one JSON object: {out[:200]!r}",
            ), None
        return Outcome("accepted"), {}  # protocol 1's silent "written"
    result = answer.get("result", ok_word)
    if result == "unjudged" and ok_word == "accepted":
        return _unjudged(answer), None
    if result != ok_word:
        wrong_word = Outcome(
            "invalid-output",
            message=f'exit 0 with "result": {result!r:.40}; '
            f'an exit-0 answer says "{ok_word}" (a "{no_word}" answer exits 1)',
        )
        return _inconsistent(
            0, no_word, expect
        ) if result == no_word else wrong_word, None
    # an accepted read is checked by content_of, which needs the declaration
    wrong = [] if ok_word == "accepted" else problems(_SCHEMA[ok_word], answer)
    if wrong:
        return Outcome(
            "invalid-output",
            message=f"the {ok_word} answer breaks the protocol's "
            f"{_SCHEMA[ok_word]} schema: {'; '.join(wrong)}",
        ), None
    return Outcome("accepted"), answer


def _nbytes(dtype: str, shape: list[int]) -> int:
    """What ``dtype`` x ``shape`` occupies (-1 when not whole bytes or unknown)."""
    bits = BITS.get(dtype)
    if bits is None:
        return -1
    total = bits * math.prod(shape)
    return total // 8 if total % 8 == 0 else -1


def _windows(name: str, value: object, nbytes: int) -> tuple[tuple[int, str], ...]:
    if nbytes <= HASH_LIMIT:
        msg = (
            f"tensor {name!r}: windows are for tensors above {HASH_LIMIT} bytes; "
            f"this one has {nbytes}, give sha256"
        )
        raise ValueError(msg)
    starts = window_starts(nbytes)
    if not isinstance(value, list) or not all(
        isinstance(pair, list)
        and len(pair) == 2
        and isinstance(pair[0], int)
        and isinstance(pair[1], str)
        for pair in value
    ):
        msg = f"tensor {name!r}: windows must be [[start, sha256hex], ...]"
        raise ValueError(msg)
    got = [pair[0] for pair in value]
    if got != starts:
        msg = f"tensor {name!r}: window starts {got}, expected {starts}"
        raise ValueError(msg)
    return tuple((int(start), str(digest).lower()) for start, digest in value)


def _tensor(name: str, entry: object, caps: Capabilities) -> TensorDigest:
    if not isinstance(entry, dict):
        msg = f"tensor {name!r}: expected an object"
        raise ValueError(msg)
    dtype, shape = entry.get("dtype"), entry.get("shape")
    if not isinstance(dtype, str) or not isinstance(shape, list):
        msg = f"tensor {name!r}: dtype (string) and shape (array) needed"
        raise ValueError(msg)
    if not all(
        isinstance(dim, int) and not isinstance(dim, bool) and dim >= 0 for dim in shape
    ):
        msg = f"tensor {name!r}: shape must hold non-negative integers"
        raise ValueError(msg)
    # without "nbytes" the size is unknown (-1), never dtype x shape: a
    # failure message says how many bytes the reader hashed, or nothing
    nbytes = entry.get("nbytes", -1)
    if not isinstance(nbytes, int):
        msg = f"tensor {name!r}: nbytes must be an integer"
        raise ValueError(msg)
    if isinstance(entry.get("hex"), str):
        try:
            raw = bytes.fromhex(entry["hex"])
        except ValueError:
            msg = f"tensor {name!r}: hex is not hexadecimal"
            raise ValueError(msg) from None
        return TensorDigest.of(dtype, tuple(shape), raw)
    if isinstance(entry.get("sha256"), str):
        return TensorDigest(dtype, tuple(shape), nbytes, entry["sha256"].lower())
    if "windows" in entry:
        if nbytes < 0:  # windows are defined by the size; the shape's it is
            nbytes = _nbytes(dtype, shape)
        windows = _windows(name, entry["windows"], nbytes)
        return TensorDigest(dtype, tuple(shape), nbytes, "", windows)
    if caps.header_only:
        return TensorDigest(dtype, tuple(shape), nbytes, "")
    msg = f"tensor {name!r}: give sha256, hex or windows (or declare header_only)"
    raise ValueError(msg)


def content_of(answer: Mapping[str, Any], caps: Capabilities) -> Content:
    """Check an accepted answer and turn it into digests.

    The schema first (its message names the JSON path), then what it cannot
    say: the declaration, the window starts for the tensor's size.
    """
    wrong = problems("read-answer", answer)
    if wrong:
        msg = f"the answer breaks the protocol's read-answer schema: {'; '.join(wrong)}"
        raise ValueError(msg)
    if not isinstance(answer.get("tensors"), dict):
        msg = 'an accepted answer needs "tensors": {...}'
        raise ValueError(msg)
    metadata = answer.get("metadata")
    if metadata is not None and not (
        isinstance(metadata, dict)
        and all(isinstance(v, str) for v in metadata.values())
    ):
        msg = "metadata must be an object of strings or null"
        raise ValueError(msg)
    tensors = {
        name: _tensor(name, entry, caps) for name, entry in answer["tensors"].items()
    }
    return Content(None if metadata is None else dict(metadata), tensors)


def parse_answer(out: bytes, caps: Capabilities | None = None) -> Content:
    """Parse the stdout of an accepted read (for tests and examples)."""
    try:
        data: Any = _loads(out)
    except ValueError as exc:
        msg = f"stdout is not JSON: {exc}"
        raise ValueError(msg) from None
    if not isinstance(data, dict):
        msg = "stdout must be one JSON object"
        raise ValueError(msg)
    return content_of(data, caps or Capabilities())
