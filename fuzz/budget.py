"""Cost oracles: an input that costs more than linear CPU or memory is a finding.

A parser that is quadratic in some corner of its input never crashes, so the
other oracles cannot see it.  :class:`Budget` measures what one call of a
check costs and compares it with an allowance proportional to the input's
size.  The allowance is expressed in units of a calibration: the cost per byte
of the same check on a plain linear input (many small tensors), measured in
the same process, so it carries the same instrumentation overhead and the same
machine speed.  CPU is process time (other processes on the machine do not
count against it); a call over budget is re-run twice and only the cheapest
of the three counts, so a garbage collection or a cold cache is not a finding.

Memory is watched cheaply: the process's peak RSS only grows when a call
allocates more than any call before it, and only then is the call re-run
under ``tracemalloc`` to measure its own peak.  An expensive input that stays
under an earlier peak goes unseen; the first one of its kind does not.
"""

from __future__ import annotations

import resource
import struct
import sys
import time
import tracemalloc
from dataclasses import dataclass
from typing import TYPE_CHECKING, Final

if TYPE_CHECKING:
    from collections.abc import Callable

__all__ = ["Budget", "linear_input"]

# A linear input costs c per byte; an input may cost CPU_FACTOR * c per byte,
# counted from a floor of FLOOR bytes (fixed costs dominate small inputs).
CPU_FACTOR: Final = 25.0
FLOOR: Final = 16_384
# Memory: MEMORY_FACTOR bytes per input byte above MEMORY_FLOOR.  Parsed JSON
# costs 10-50 bytes per byte in CPython; 128 leaves room for that.
MEMORY_FACTOR: Final = 128
MEMORY_FLOOR: Final = 16 * 1024 * 1024
_CALIBRATION_TENSORS: Final = 1000
_KIB: Final = 1024 if sys.platform != "darwin" else 1  # ru_maxrss: KiB on Linux


def linear_input(count: int = _CALIBRATION_TENSORS) -> bytes:
    """``count`` one-byte tensors and a buffer one byte short: a linear case.

    The whole header is parsed and judged, then the file is rejected
    (LAYOUT-END), so no content is copied: the cost of judging a header.
    """
    members = ",".join(
        f'"t{i}":{{"dtype":"U8","shape":[1],"data_offsets":[{i},{i + 1}]}}'
        for i in range(count)
    )
    header = ("{" + members + "}").encode()
    return struct.pack("<Q", len(header)) + header + bytes(count - 1)


def _cpu(call: Callable[[], object]) -> float:
    start = time.process_time()
    call()
    return time.process_time() - start


def _cpu_of(usage: resource.struct_rusage) -> float:
    return usage.ru_utime + usage.ru_stime


def _peak_rss() -> int:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * _KIB


@dataclass(slots=True)
class Budget:
    """CPU and memory allowances for one check, relative to input size."""

    check: Callable[[bytes], object]
    per_byte: float = 0.0  # seconds per byte on the linear input
    cpu_factor: float = CPU_FACTOR
    memory_factor: int = MEMORY_FACTOR

    def calibrate(self, sample: bytes | None = None) -> float:
        """Measure the check's cost per byte on a linear input (cheapest of 5)."""
        data = linear_input() if sample is None else sample
        self.check(data)  # warm caches, compile regular expressions
        best = min(_cpu(lambda: self.check(data)) for _ in range(5))
        self.per_byte = max(best, 1e-6) / len(data)
        return self.per_byte

    def cpu_allowance(self, size: int) -> float:
        """Seconds of CPU a ``size``-byte input may cost."""
        if not self.per_byte:
            self.calibrate()
        return self.cpu_factor * self.per_byte * (size + FLOOR)

    def memory_allowance(self, size: int) -> int:
        """Bytes a ``size``-byte input may allocate at its peak."""
        return MEMORY_FLOOR + self.memory_factor * size

    def run(self, data: bytes) -> None:
        """Run the check on ``data``; AssertionError if it costs too much."""
        allowed = self.cpu_allowance(len(data))
        # One getrusage() on each side gives both the CPU time and the peak
        # RSS: two system calls per input instead of four.
        before = resource.getrusage(resource.RUSAGE_SELF)
        self.check(data)
        after = resource.getrusage(resource.RUSAGE_SELF)
        spent = _cpu_of(after) - _cpu_of(before)
        grown = (after.ru_maxrss - before.ru_maxrss) * _KIB
        if spent > allowed:
            spent = min(spent, *(_cpu(lambda: self.check(data)) for _ in range(2)))
            assert spent <= allowed, (
                f"slow input: {spent:.3f} s CPU for {len(data)} bytes, allowed "
                f"{allowed:.3f} s ({self.cpu_factor:g} x the linear cost per byte "
                f"from a {FLOOR}-byte floor)"
            )
        if grown > self.memory_allowance(len(data)):
            peak = self.traced_peak(data)
            limit = self.memory_allowance(len(data))
            assert peak <= limit, (
                f"memory-hungry input: {peak / 2**20:.1f} MiB at the peak for "
                f"{len(data)} bytes, allowed {limit / 2**20:.1f} MiB"
            )

    def traced_peak(self, data: bytes) -> int:
        """Return the check's own peak allocation on ``data`` (tracemalloc)."""
        tracing = tracemalloc.is_tracing()
        if not tracing:
            tracemalloc.start()
        tracemalloc.reset_peak()
        base = tracemalloc.get_traced_memory()[0]
        try:
            self.check(data)
            return tracemalloc.get_traced_memory()[1] - base
        finally:
            if not tracing:
                tracemalloc.stop()
