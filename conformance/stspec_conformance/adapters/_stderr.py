"""What a program that died without an answer said on stderr.

A runtime announces its own death in a known form, and not always last:

* Go: ``panic: MESSAGE`` or ``fatal error: MESSAGE`` first, then one stack
  per goroutine (``fatal error: runtime: out of memory`` is followed by about
  a hundred lines of them);
* Rust: ``thread 'main' panicked at FILE:LINE:COL:`` and the message on the
  next line (older versions: on the same line, after the location);
* C++: ``terminate called after throwing an instance of 'std::bad_alloc'``;
* Python: a traceback whose last line is ``TypeName: message``;
* Node: ``TypeName: message`` followed by ``    at ...`` frames;
* Java: ``Exception in thread "main" java.lang.TypeName: message``.

The first three are native crashes (``crashed``); the last three are an
unexpected exception in a managed runtime (``exception``): the program's
code broke, not its process.  An allocation that failed, wherever stderr says
so, is ``resource``.  Everything here is untrusted text: it is scanned line by
line with anchored patterns, never evaluated, and only quoted (clipped).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Final

from stspec_conformance.adapters._process import OUT_OF_MEMORY

__all__ = ["Death", "read_death"]

# A quoted line is clipped to this many characters.
LINE_LIMIT: Final = 300
_NATIVE_FIRST: Final = (
    re.compile(r"panic: \S"),  # Go
    re.compile(r"fatal error: \S"),  # Go's runtime
    re.compile(r"thread '[^']{0,200}'(?: \(\d{1,20}\))? panicked at "),  # Rust
    re.compile(r"terminate called "),  # C++
)
# Rust 1.88+ names the thread's id too: thread 'main' (28486) panicked at
_RUST_PANIC: Final = re.compile(
    r"thread '[^']{0,200}'(?: \(\d{1,20}\))? panicked at \S+:$"
)
_JAVA: Final = re.compile(
    r'Exception in thread "[^"]{0,200}" (?:[\w$]+\.){0,20}([\w$]+)(?::|$)'
)
_TYPE_LINE: Final = re.compile(
    r"(?:[A-Za-z_][\w$]{0,100}\.){0,20}([A-Z][\w$]{0,100})(?: \[\w{1,40}\])?(?::|$)"
)
_FRAME: Final = re.compile(r"\s+at \S")


@dataclass(frozen=True, slots=True)
class Death:
    """How a program died: its outcome, what died, the line saying so."""

    status: str  # "crashed", "exception" or "resource"
    kind: str  # "panic", "fatal error", "abort", or the exception's type name
    line: str  # the runtime's own words, clipped; "" when it said nothing known


def _clip(text: str) -> str:
    text = text.strip()
    return text if len(text) <= LINE_LIMIT else text[: LINE_LIMIT - 3] + "..."


def _native(lines: list[str]) -> Death | None:
    for index, line in enumerate(lines):
        for pattern in _NATIVE_FIRST:
            if pattern.match(line):
                said = line
                if _RUST_PANIC.match(line) and index + 1 < len(lines):
                    said = f"{line} {lines[index + 1].strip()}"
                kind = (
                    "fatal error"
                    if line.startswith("fatal error")
                    else "abort"
                    if line.startswith("terminate")
                    else "panic"
                )
                return Death("crashed", kind, _clip(said))
    return None


def _managed(lines: list[str]) -> Death | None:
    for line in lines:
        found = _JAVA.match(line)
        if found:
            return Death("exception", found.group(1), _clip(line))
    traceback = any(
        line.startswith("Traceback (most recent call last)") for line in lines
    )
    if traceback:
        for line in reversed(lines):
            found = _TYPE_LINE.match(line)
            if found and not line.startswith(" "):
                return Death("exception", found.group(1), _clip(line))
    for index, line in enumerate(lines[:-1]):
        found = _TYPE_LINE.match(line)
        if found and _FRAME.match(lines[index + 1]) and not line.startswith(" "):
            return Death("exception", found.group(1), _clip(line))
    return None


def read_death(err: bytes) -> Death | None:
    """Read how a program died from its whole stderr (None: it did not say)."""
    text = err.decode("utf-8", "replace")
    lines = [line.rstrip() for line in text.splitlines()]
    found = _native(lines) or _managed(lines)
    oom = OUT_OF_MEMORY.search(text)
    if oom is not None:
        start = text.rfind("\n", 0, oom.start()) + 1
        end = text.find("\n", oom.end())
        said = text[start : end if end >= 0 else len(text)]
        return Death("resource", found.kind if found else "", _clip(said))
    return found
