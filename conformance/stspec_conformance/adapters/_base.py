"""The one internal interface every kind of implementation is normalised into."""

from __future__ import annotations

import contextlib
import math
import operator
import signal
import threading
import time
import tracemalloc
from abc import ABC, abstractmethod
from collections.abc import Callable, Iterator, Mapping
from typing import TYPE_CHECKING, Any, Final, Literal, TypeVar

from stspec.dtypes import BITS
from stspec_conformance._capabilities import Capabilities
from stspec_conformance._limits import Limits
from stspec_conformance._model import (
    Content,
    Outcome,
    Status,
    TensorDigest,
    printable,
)

if TYPE_CHECKING:
    from types import FrameType

MemoryMode = Literal["tracemalloc", "rss"] | None
RawTensors = Mapping[str, tuple[str, tuple[int, ...] | list[int], bytes]]
T = TypeVar("T")


class Hang(BaseException):
    """Raised inside an in-process call that ran past the per-case time limit."""


class Adapter(ABC):
    """An implementation under test, whatever it is (module, package, command).

    ``attempt_load`` and ``attempt_save`` never raise for anything the
    implementation does: they return an :class:`Outcome` whose status is
    ``accepted``, ``rejected`` or one of the outcomes with no verdict
    (``crashed``, ``exception``, ``hung``, ``resource``, ``invalid-output``,
    ``fail-open``).
    """

    name: str = "?"
    version: str = "?"
    kind: str = "in-process"
    capabilities: Capabilities = Capabilities()

    @property
    def can_save(self) -> bool:
        """Whether the implementation has a writer (the writer tests run)."""
        return self.capabilities.write

    @property
    def save_dtypes(self) -> frozenset[str]:
        """The dtypes the writer supports (``capabilities.write_dtypes``)."""
        return self.capabilities.write_dtypes

    @abstractmethod
    def attempt_load(
        self, path: str, *, timeout: float, measure_memory: MemoryMode = None
    ) -> Outcome:
        """Ask the implementation to load ``path`` and say what happened.

        ``measure_memory``: ``"tracemalloc"`` (every Python allocation, touched
        or not; slow on parses that build many objects), ``"rss"`` (the peak
        resident set, cheap, native allocations included, Linux only) or None.
        """

    @abstractmethod
    def attempt_save(
        self,
        path: str,
        tensors: RawTensors,
        metadata: Mapping[str, str] | None,
        *,
        timeout: float,
    ) -> Outcome:
        """Ask the implementation to write a file; accepted = written."""

    def __repr__(self) -> str:
        """Short: hypothesis prints the fixtures of a failing example."""
        return f"<{self.label()}>"

    def _repr_pretty_(self, printer: Any, cycle: bool) -> None:  # noqa: ANN401
        """Hypothesis' pretty printer would otherwise list every attribute."""
        del cycle
        printer.text(repr(self))

    def label(self) -> str:
        """``name version (kind)`` for the report header (the name escaped)."""
        return f"{printable(self.name)} {printable(self.version)} ({self.kind})"


def _status_kib(field: str) -> int | None:
    try:
        with open("/proc/self/status", encoding="ascii") as status:
            for line in status:
                if line.startswith(field + ":"):
                    return int(line.split()[1])
    except (OSError, ValueError):
        return None
    return None


def reset_peak_rss() -> int | None:
    """Reset the peak-RSS mark (Linux clear_refs); return the current RSS in KiB."""
    try:
        with open("/proc/self/clear_refs", "w", encoding="ascii") as refs:
            refs.write("5")
    except OSError:
        return None
    return _status_kib("VmRSS")


class AdapterOutputError(ValueError):
    """The implementation returned something that is not the documented shape."""


class FailedOpen(Exception):  # noqa: N818 - named for the outcome it reports
    """Raised by an adapter whose library answered success on a file it could not judge.

    A scanner that exits 0 while noting "could not parse" fails open: the
    suite records ``fail-open``, a failure on every case, and never a
    rejection.  The message should quote what the library said.
    """


# Exception types through which a native runtime reports its own crash inside
# Python (pyo3 turns a Rust panic into ``pyo3_runtime.PanicException``): the
# process survived, but the library's native code died.
NATIVE_CRASHES: Final = frozenset({"PanicException"})


def _reraise(exc: BaseException) -> bool:
    # pytest's skip/fail/exit (checked by module: the isolation worker does
    # not import pytest, which would make every fork slower).
    return isinstance(exc, KeyboardInterrupt) or (
        type(exc).__module__ == "_pytest.outcomes"
    )


# Exceptions that mean the reader's code broke, not that it judged the file:
# a missing import or attribute, a typo, an unfinished branch, a failed
# assert, runaway recursion, an allocation that failed.  Without ``REJECTS``
# these are crashes; every other ``Exception`` is a rejection.
PROGRAMMING_ERRORS: Final = (
    ImportError,  # and ModuleNotFoundError
    AttributeError,
    NameError,  # and UnboundLocalError
    SyntaxError,
    NotImplementedError,
    AssertionError,
    RecursionError,
    MemoryError,
    SystemError,
)


def text_of(exc: BaseException) -> str:
    """``str(exc)``, which runs the implementation's code and may itself fail."""
    try:
        return str(exc)
    except Exception as broken:  # noqa: BLE001 - any failure of untrusted code
        return f"(its message could not be read: {type(broken).__name__})"


def status_of(
    exc: BaseException, rejects: tuple[type[BaseException], ...] | None = None
) -> Status:
    """Classify an exception an in-process implementation raised.

    With ``rejects`` (the adapter's ``REJECTS``) only those types reject and
    every other exception is unexpected.  Without it an ordinary
    ``Exception`` rejects, except :data:`PROGRAMMING_ERRORS`; every
    ``BaseException`` that is not an ``Exception`` (``SystemExit``, ...) is
    unexpected.  Unexpected is ``exception`` (the Python code broke, the
    process did not), or ``crashed`` for a native crash reported as a Python
    exception (:data:`NATIVE_CRASHES`); :class:`FailedOpen` is ``fail-open``.
    """
    if isinstance(exc, Hang):
        return "hung"
    if isinstance(exc, AdapterOutputError):
        return "invalid-output"
    if isinstance(exc, FailedOpen):
        return "fail-open"
    if type(exc).__name__ in NATIVE_CRASHES:
        return "crashed"
    if rejects is not None:
        expected = isinstance(exc, rejects)
    else:
        expected = isinstance(exc, Exception) and not isinstance(
            exc, PROGRAMMING_ERRORS
        )
    return "rejected" if expected else "exception"


@contextlib.contextmanager
def time_limit(seconds: float, *, wall: float | None = None) -> Iterator[None]:
    """Raise :class:`Hang` in this thread past ``seconds`` of CPU time (main thread).

    The limit is the process's CPU time (``ITIMER_PROF``), so a loaded machine
    makes a reader slower without making it hang; a reader that waits without
    computing (a sleep, a lock) is stopped by the wall-clock backstop
    ``wall`` (default: ``max(--wall-timeout default, 2 x seconds)``, as for a
    command).  Where timers are unavailable (another thread, Windows) the
    block runs without a limit.
    """
    usable = (
        seconds > 0
        and hasattr(signal, "setitimer")
        and threading.current_thread() is threading.main_thread()
    )
    if not usable:
        yield
        return
    backstop = wall if wall is not None else max(Limits().wall_seconds, 2 * seconds)

    def on_timer(signum: int, _frame: FrameType | None) -> None:
        if signum == signal.SIGPROF:
            raise Hang(f"used more than {seconds:g} s of CPU time")
        raise Hang(f"no answer within {backstop:g} s of wall-clock time")

    previous = (
        signal.signal(signal.SIGPROF, on_timer),
        signal.signal(signal.SIGALRM, on_timer),
    )
    signal.setitimer(signal.ITIMER_PROF, seconds)
    signal.setitimer(signal.ITIMER_REAL, backstop)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_PROF, 0)
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGPROF, previous[0])
        signal.signal(signal.SIGALRM, previous[1])


class InProcessAdapter(Adapter):
    """Base for adapters that call Python code in this interpreter."""

    kind = "in-process"
    # Exception types that mean "rejected" (None: the default rule of status_of),
    # for ``load`` and for ``save``: a writer may refuse a request with a
    # TypeError that would be a bug in the reader.
    rejects: tuple[type[BaseException], ...] | None = None
    write_rejects: tuple[type[BaseException], ...] | None = None

    @abstractmethod
    def load(self, path: str) -> Content:
        """Load ``path``; raise any Exception to reject it."""

    def save(
        self, path: str, tensors: RawTensors, metadata: Mapping[str, str] | None
    ) -> None:
        """Write a file (only called when ``can_save``)."""
        raise NotImplementedError

    def classify(self, exc: BaseException) -> str | None:  # noqa: ARG002 - a hook
        """Map a rejection to a rule id, or None when unknown."""
        return None

    def attempt_load(
        self, path: str, *, timeout: float, measure_memory: MemoryMode = None
    ) -> Outcome:
        """Run ``load`` under the time limit, measuring memory when asked."""
        return self._attempt(
            lambda: self.load(path), timeout, measure_memory, self.rejects
        )

    def attempt_save(
        self,
        path: str,
        tensors: RawTensors,
        metadata: Mapping[str, str] | None,
        *,
        timeout: float,
    ) -> Outcome:
        """Run ``save`` under the time limit."""

        def call() -> Content:
            self.save(path, tensors, metadata)
            return Content(None, {})

        return self._attempt(call, timeout, None, self.write_rejects)

    def _attempt(
        self,
        call: Callable[[], Any],
        timeout: float,
        measure: MemoryMode,
        rejects: tuple[type[BaseException], ...] | None,
    ) -> Outcome:
        tracing = measure == "tracemalloc" and not tracemalloc.is_tracing()
        if measure == "tracemalloc":
            if tracing:
                tracemalloc.start()
            tracemalloc.reset_peak()
        rss_before = reset_peak_rss() if measure == "rss" else None
        started = time.perf_counter()
        peak: int | None = None
        try:
            with time_limit(timeout):
                result = call()
        except BaseException as exc:
            if _reraise(exc):
                raise
            outcome = self._raised(exc, rejects)
        else:
            if isinstance(result, Content):
                outcome = Outcome("accepted", content=result)
            else:
                outcome = Outcome("invalid-output", message=repr(result)[:200])
        finally:
            if measure == "tracemalloc":
                peak = tracemalloc.get_traced_memory()[1]
                if tracing:
                    tracemalloc.stop()
            elif rss_before is not None:
                high = _status_kib("VmHWM")
                peak = None if high is None else max(0, high - rss_before) * 1024
        outcome.seconds = time.perf_counter() - started
        outcome.peak_memory = peak
        return outcome

    def _raised(
        self, exc: BaseException, rejects: tuple[type[BaseException], ...] | None
    ) -> Outcome:
        """The outcome of a call that raised ``exc``."""
        status = status_of(exc, rejects)
        rule = self._safe_classify(exc) if status == "rejected" else None
        outcome = Outcome(
            status, message=text_of(exc), rule=rule, exception=type(exc).__name__
        )
        if status == "crashed":
            outcome.crash = "panic"
        elif status == "exception" and isinstance(exc, MemoryError):
            # an allocation refused: address space asked for, not shown used
            outcome.status, outcome.memory = "resource", "reserved"
        return outcome

    def _safe_classify(self, exc: BaseException) -> str | None:
        try:
            rule = self.classify(exc)
        except Exception:  # noqa: BLE001 - a broken hook means "unclassified"
            return None
        return rule if isinstance(rule, str) else None


def content_from_raw(result: object, *, header_only: bool = False) -> Content:
    """Check and digest what a minimal ``load(path)`` returned.

    Tensor bytes may be any buffer (``bytes``, ``memoryview`` of an mmap,
    a numpy array): they are hashed in place, never copied.  A declared
    header-only validator may give ``(dtype, shape)`` or ``(dtype, shape, None)``.
    Raises :class:`AdapterOutputError` (turned into status ``invalid-output``
    by the caller) when the value is not ``(tensors, metadata)`` as documented.
    """
    if not (isinstance(result, tuple | list) and len(result) == 2):
        raise AdapterOutputError(
            f"load() must return (tensors, metadata), got {result!r:.80}"
        )
    tensors, metadata = result
    if not isinstance(tensors, Mapping):
        raise AdapterOutputError(
            f"tensors must be a mapping, got {type(tensors).__name__}"
        )
    if metadata is not None and not (
        isinstance(metadata, Mapping)
        and all(isinstance(k, str) and isinstance(v, str) for k, v in metadata.items())
    ):
        raise AdapterOutputError(
            f"metadata must be dict[str, str] or None, got {metadata!r:.80}"
        )
    checked: dict[str, tuple[str, tuple[int, ...], bytes]] = {}
    shapes_only: dict[str, TensorDigest] = {}
    for name, entry in tensors.items():
        if (
            header_only
            and isinstance(entry, tuple | list)
            and (len(entry) == 2 or (len(entry) == 3 and entry[2] is None))
        ):
            shapes_only[name] = _shape_only(name, entry[0], entry[1])
            continue
        try:
            dtype, shape, data = entry
            memoryview(data)
        except Exception as exc:  # whatever the returned object raises
            raise AdapterOutputError(
                f"tensor {name!r} must be (dtype, shape, bytes), got {entry!r:.80}"
            ) from exc
        shape_tuple = dims_of(name, shape)
        if not isinstance(name, str) or not isinstance(dtype, str):
            raise AdapterOutputError(f"tensor {name!r}: names and dtypes are strings")
        checked[name] = (dtype, shape_tuple, data)
    content = Content.from_raw(checked, metadata)
    content.tensors.update(shapes_only)
    return content


def dims_of(name: object, shape: object) -> tuple[int, ...]:
    """A returned shape as exact integers, or :class:`AdapterOutputError`.

    Only integers count (Python's, numpy's): ``True``, ``"16"``, ``16.0`` and
    ``inf`` (``json`` parses ``1e400`` as infinity) are a malformed answer, not
    a dimension and not an exception inside the suite.
    """
    if not isinstance(shape, tuple | list):
        raise AdapterOutputError(
            f"tensor {name!r}: shape must be a list or tuple of integers, "
            f"got {shape!r:.80}"
        )
    dims = []
    for dim in shape:
        try:
            if isinstance(dim, bool):
                raise TypeError(dim)  # noqa: TRY301 - one message for every wrong type
            dims.append(operator.index(dim))
        except Exception:  # noqa: BLE001 - whatever the returned object raises
            raise AdapterOutputError(
                f"tensor {name!r}: shape must hold integers, got {dim!r:.40} "
                f"({type(dim).__name__}) in {shape!r:.80}"
            ) from None
    return tuple(dims)


def _shape_only(name: object, dtype: object, shape: object) -> TensorDigest:
    dims = dims_of(name, shape)
    if not isinstance(name, str) or not isinstance(dtype, str):
        raise AdapterOutputError(f"tensor {name!r}: names and dtypes are strings")
    bits = BITS.get(dtype, 0) * math.prod(dims)
    return TensorDigest(dtype, dims, bits // 8 if bits % 8 == 0 else -1, "")
