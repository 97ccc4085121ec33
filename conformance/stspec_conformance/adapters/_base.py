"""The one internal interface every kind of implementation is normalised into."""

from __future__ import annotations

import contextlib
import signal
import threading
import time
import tracemalloc
from abc import ABC, abstractmethod
from collections.abc import Callable, Iterator, Mapping
from typing import TYPE_CHECKING, Any, Literal, TypeVar

import pytest

from stspec_conformance._capabilities import Capabilities
from stspec_conformance._model import Content, Outcome, Status

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
    ``accepted``, ``rejected``, ``crashed``, ``hung`` or ``invalid-output``.
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
        """``name version (kind)`` for the report header."""
        return f"{self.name} {self.version} ({self.kind})"


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


def _reraise(exc: BaseException) -> bool:
    return isinstance(
        exc,
        KeyboardInterrupt
        | pytest.skip.Exception
        | pytest.fail.Exception
        | pytest.exit.Exception,
    )


def status_of(exc: BaseException) -> Status:
    """Classify an exception an in-process implementation raised.

    An ordinary ``Exception`` is a rejection.  ``RecursionError`` and
    ``MemoryError`` are Exceptions to Python but mean the reader broke on its
    input (a nesting bomb, an allocation sized from a hostile number), so they
    are crashes, as is every ``BaseException`` that is not an ``Exception``
    (``SystemExit``, ``GeneratorExit``, ...).
    """
    if isinstance(exc, Hang):
        return "hung"
    if isinstance(exc, AdapterOutputError):
        return "invalid-output"
    if isinstance(exc, RecursionError | MemoryError):
        return "crashed"
    if isinstance(exc, Exception):
        return "rejected"
    return "crashed"


@contextlib.contextmanager
def time_limit(seconds: float) -> Iterator[None]:
    """Raise :class:`Hang` in this thread after ``seconds`` (main thread only).

    Uses ``SIGALRM``; where that is unavailable (another thread, Windows) the
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

    def on_alarm(_signum: int, _frame: FrameType | None) -> None:
        raise Hang(f"no answer within {seconds:g} s")

    previous = signal.signal(signal.SIGALRM, on_alarm)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


class InProcessAdapter(Adapter):
    """Base for adapters that call Python code in this interpreter."""

    kind = "in-process"

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
        return self._attempt(lambda: self.load(path), timeout, measure_memory)

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

        return self._attempt(call, timeout, None)

    def _attempt(
        self, call: Callable[[], Any], timeout: float, measure: MemoryMode
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
            status = status_of(exc)
            rule = self._safe_classify(exc) if status == "rejected" else None
            outcome = Outcome(
                status, message=str(exc), rule=rule, exception=type(exc).__name__
            )
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

    def _safe_classify(self, exc: BaseException) -> str | None:
        try:
            rule = self.classify(exc)
        except Exception:  # noqa: BLE001 - a broken hook means "unclassified"
            return None
        return rule if isinstance(rule, str) else None


def content_from_raw(result: object) -> Content:
    """Check and digest what a minimal ``load(path)`` returned.

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
    for name, entry in tensors.items():
        try:
            dtype, shape, data = entry
            shape_tuple = tuple(int(dim) for dim in shape)
            memoryview(data)
        except (TypeError, ValueError) as exc:
            raise AdapterOutputError(
                f"tensor {name!r} must be (dtype, shape, bytes), got {entry!r:.80}"
            ) from exc
        if not isinstance(name, str) or not isinstance(dtype, str):
            raise AdapterOutputError(f"tensor {name!r}: names and dtypes are strings")
        checked[name] = (dtype, shape_tuple, data)
    return Content.from_raw(checked, metadata)
