"""The line of a crashed program's stderr that says why it died.

A Python traceback ends with the exception, so its last line says why.  A
native program's does not: Rust prints the panic first (``thread 'main'
panicked at FILE:LINE:COL:`` and the message on the next line since Rust
1.73, ``panicked at 'MESSAGE', FILE:LINE:COL`` on one line before it) and
ends with its ``note: run with `RUST_BACKTRACE=1` ...`` hint, after the
backtrace when there is one; Go prints ``panic: ...`` or ``fatal error:
...`` above a goroutine dump that ends with the outermost frame.  The
matrix quotes one line of a crash (the probe, the writer grid, the findings
reports and their check), and this is the one.
"""

from __future__ import annotations

import re
from typing import Final

__all__ = ["crash_line", "is_hint", "native_crash", "observed_crash"]

_PYTHON: Final = "Traceback (most recent call last):"
# a thread's id in parentheses (Rust 1.88 and later) is left out of the
# quote: it is the process's, and differs on every run
_THREAD: Final = r"thread '[^'\n]*'(?: \(\d+\))?"
# Rust >= 1.73: the place ends the line, the message is the next one
_RUST_PANIC: Final = re.compile(
    rf"^{_THREAD} panicked at ([^\n]*:\d+:\d+):\n([^\n]*)", re.MULTILINE
)
# Rust < 1.73: "panicked at 'MESSAGE', FILE:LINE:COL" on one line
_RUST_PANIC_OLD: Final = re.compile(
    rf"^{_THREAD} panicked at ([^\n]*\S)[ \t]*$", re.MULTILINE
)
_GO_CRASH: Final = re.compile(r"^(?:panic|fatal error): [^\n]*", re.MULTILINE)
_HINT: Final = re.compile(r"note: .*RUST_BACKTRACE")
# what the suite quotes of a command's crash: its last stderr line (for a
# native program the hint or a frame), then the start of its stderr
_SUITE_QUOTE: Final = re.compile(r"; last stderr line:.*", re.DOTALL)
_SUITE_HINT: Final = re.compile(r"last stderr line: note: [^;]*RUST_BACKTRACE[^;]*; ")
_THREAD_ID: Final = re.compile(r"(thread '[^'\n]*') \(\d+\)")
_NATIVE_QUOTE: Final = re.compile(r"(?:panicked at |panic: |fatal error: )")


def is_hint(line: str) -> bool:
    """Whether ``line`` is Rust's hint about ``RUST_BACKTRACE``, which says nothing."""
    return bool(_HINT.match(line.strip()))


def native_crash(stderr: str) -> str:
    """A Rust panic or a Go panic or fatal error in ``stderr``, quoted; else "".

    A Rust panic is quoted as ``panicked at FILE:LINE:COL: MESSAGE`` (the
    older one-line form as it is), a Go one by its first line.
    """
    panic = _RUST_PANIC.search(stderr)
    if panic:  # an empty message leaves the hint as the next line
        message = "" if is_hint(panic.group(2)) else panic.group(2).strip()
        return f"panicked at {panic.group(1)}: {message}".rstrip()
    old = _RUST_PANIC_OLD.search(stderr)
    if old and not old.group(1).endswith(":"):
        return f"panicked at {old.group(1)}"
    go = _GO_CRASH.search(stderr)
    return go.group(0).rstrip() if go else ""


def crash_line(stderr: str) -> str:
    """The line that says why a program died: its panic, else its last line.

    A Python traceback's last line is its exception (a pyo3 panic's too, as
    ``PanicException``); Rust's ``RUST_BACKTRACE`` hint is never the line.
    """
    if _PYTHON not in stderr:
        native = native_crash(stderr)
        if native:
            return native
    lines = [line.strip() for line in stderr.splitlines()]
    said = [line for line in lines if line and not is_hint(line)]
    return said[-1] if said else ""


def observed_crash(detail: str, probed: str) -> str:
    """The suite's detail of a crash, quoting the panic where the probe has it.

    The suite quotes a command's last stderr line and the start of its
    stderr, cut short; for a native program that is the ``RUST_BACKTRACE``
    hint or a goroutine's frame, and the panic is cut off.  ``probed`` is
    the probe's error for the same file (``CAUSE: LINE``, the line chosen
    by ``crash_line``): when it quotes a panic, it replaces the suite's
    quote.  Otherwise only the hint is dropped.  A thread's id is dropped
    either way.
    """
    said = probed.split(": ", 1)[-1]
    if _NATIVE_QUOTE.match(said):
        detail = _SUITE_QUOTE.sub(lambda _: f"; it printed: {said}", detail, count=1)
    else:
        detail = _SUITE_HINT.sub("", detail)
    return _THREAD_ID.sub(r"\1", detail)
