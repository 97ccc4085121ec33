"""Room on CPython's frame stack, so that no execution maps and unmaps it.

CPython (3.11 on) keeps Python frames in chunks of 16 KiB that it maps when a
call does not fit and unmaps as soon as the first frame of a chunk returns.
The instrumented reader's frames are big, and its calls crossed a chunk
boundary hundreds of times per input: measured on the reader harness, about
280 mmap/munmap pairs and 230 page faults per input, 35-40 % of the fuzzer's
CPU time spent in the kernel.  :func:`call_with_room` calls libFuzzer's loop
from a frame too big for a 16 KiB chunk, so that frame opens a fresh 128 KiB
chunk that lives as long as the loop, and every execution's frames fit in the
rest of it (about 60 KiB; only inputs nested past that reach a new chunk).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Final, TypeVar

if TYPE_CHECKING:
    from collections.abc import Callable

__all__ = ["SLOTS", "call_with_room"]

T = TypeVar("T")
# Local slots of the calling frame: 8 bytes each, so 64 KiB, which CPython
# rounds up to a 128 KiB chunk.
SLOTS: Final = 8192


def _call(call: Callable[[], T]) -> T:
    return call()


# The frame's size is its code's number of locals: give _call unused ones.
_call.__code__ = _call.__code__.replace(
    co_varnames=("call", *(f"_{index}" for index in range(SLOTS - 1))),
    co_nlocals=SLOTS,
)


def call_with_room(call: Callable[[], T]) -> T:
    """Return ``call()``, run with ample room above it on the frame stack."""
    return _call(call)
