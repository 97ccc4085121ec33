"""Text for a terminal: escape what could make a line lie, format numbers."""

from __future__ import annotations

import sys

from stspec._errors import json_path

# No typing at run time (start-up cost, see _record.py); mypy reads this as True.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Final

    from stspec._errors import SafetensorsError

__all__ = [
    "complain",
    "count",
    "escape",
    "human_bytes",
    "out",
    "out_json",
    "share",
    "violation_line",
]

_UNITS: Final = ("bytes", "KB", "MB", "GB", "TB", "PB", "EB")


def escape(text: str) -> str:
    r"""Escape every character that is not printable, as Python would write it.

    Tensor names, metadata and file names come from untrusted files; bidi
    overrides (U+202E), C1 controls (U+009B starts an ANSI sequence on some
    terminals), line separators and lone surrogates would otherwise reach the
    terminal raw and make the line display something else than it holds.
    Printable non-ASCII text (名前, é) is kept as it is.
    """
    if text.isascii() and text.isprintable():
        # Printable ASCII: nothing to look at character by character.
        return text
    return "".join(char if char.isprintable() else _escaped(char) for char in text)


def _escaped(char: str) -> str:
    code = ord(char)
    if code < 0x100:
        return f"\\x{code:02x}"
    if code < 0x10000:
        return f"\\u{code:04x}"
    return f"\\U{code:08x}"


def count(number: int, noun: str) -> str:
    """Write ``1 tensor``, ``2 tensors``."""
    return f"{number} {noun}" if number == 1 else f"{number} {noun}s"


def human_bytes(number: int) -> str:
    """Write a size in decimal units with one decimal: ``852.7 MB``."""
    value = float(number)
    for unit in _UNITS[:-1]:
        if value < 1000:
            return f"{number} bytes" if unit == "bytes" else f"{value:.1f} {unit}"
        value /= 1000
    return f"{value:.1f} {_UNITS[-1]}"


def share(part: int, whole: int) -> str:
    """``part`` as a percentage of ``whole``, never rounded to a false 0 or 100."""
    if whole == 0:
        return "-"
    percent = 100 * part / whole
    if 0 < percent < 0.01:
        return "<0.01%"
    if 99.99 < percent < 100:
        return ">99.99%"
    return f"{percent:.2f}%"


def violation_line(file: str, error: SafetensorsError) -> str:
    """Render one violation: ``FILE: RULE-ID at byte N[, header PATH]: message``."""
    where = f"at byte {error.offset}"
    if error.path:
        where += f", header {json_path(error.path)}"
    return f"{file}: {error.rule} {where}: {error.msg}"


def out(*lines: str) -> None:
    """Print lines on stdout, each escaped (see :func:`escape`)."""
    # sys.stdout looked up at call time, so that redirection and capture work.
    sys.stdout.write("".join(f"{escape(line)}\n" for line in lines))


def out_json(document: object) -> None:
    """Print a JSON document (ASCII only: every other character is escaped)."""
    import json  # noqa: PLC0415 - text output, the usual, starts faster without it

    sys.stdout.write(json.dumps(document, indent=2) + "\n")


def complain(message: str) -> None:
    """Print ``stspec: message`` on stderr, escaped."""
    sys.stderr.write(f"stspec: {escape(message)}\n")
