"""What the command adapter and the isolated worker both need to judge a process."""

from __future__ import annotations

import os
import re
import signal
from typing import Final

__all__ = ["OUT_OF_MEMORY", "environment", "signal_name", "stderr_tail"]

# What runtimes and allocators say when an allocation fails under RLIMIT_DATA
# (a dying command's stderr; an in-process reader's exception in the isolated
# worker; torch: "can't allocate memory ... (Cannot allocate memory)").
OUT_OF_MEMORY: Final = re.compile(
    r"MemoryError|out of memory|can(?:no|')t allocate memory|ENOMEM|bad_alloc"
    r"|allocation failed|memory allocation of \d+ bytes failed|OutOfMemoryError",
    re.IGNORECASE,
)
_TAIL_CHARS: Final = 600


def stderr_tail(err: bytes) -> str:
    """The last lines of stderr (a traceback's useful end), at most ~600 chars."""
    text = err.decode("utf-8", "replace").strip()
    if len(text) > _TAIL_CHARS:
        text = "..." + text[-_TAIL_CHARS:]
    return text


def signal_name(number: int) -> str:
    """``signal 11 (SIGSEGV)``."""
    try:
        return f"signal {number} ({signal.Signals(number).name})"
    except ValueError:
        return f"signal {number}"


def environment() -> dict[str, str]:
    """The suite's environment without pytest's variables.

    ``PYTEST_CURRENT_TEST`` names the running test, and with it the case and
    its verdict (``[n_...]``): an implementation sees only the bytes.
    """
    return {k: v for k, v in os.environ.items() if not k.startswith("PYTEST_")}
