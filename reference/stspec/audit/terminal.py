"""Text for a terminal: escape what could make a line lie, format numbers."""

from __future__ import annotations

import sys

from stspec.errors import json_path

# No typing at run time (start-up cost, see stspec/record.py); mypy reads this as True.
TYPE_CHECKING = False
if TYPE_CHECKING:
    import re
    from typing import Final

    from stspec.errors import SafetensorsError

__all__ = [
    "complain",
    "count",
    "escape",
    "file_name",
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


def file_name(path: str) -> str:
    r"""Write a file name so that the first ``": "`` of a line always ends it.

    A name is free to hold ``": valid (1 tensor, 8 bytes)"``; shown as it is,
    it would make one line read as two results.  So a colon followed by a
    space is written ``\x3a``, and a backslash ``\\`` (a name that holds
    the four characters ``\x3a`` must not look like one that holds a colon);
    the rest is escaped by :func:`escape`, as every printed line is.
    """
    if "\\" in path:
        path = path.replace("\\", "\\\\")
    return path.replace(": ", "\\x3a ") if ": " in path else path


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
    return f"{file_name(file)}: {error.rule} {where}: {error.msg}"


def out(*lines: str) -> None:
    """Print lines on stdout, each escaped (see :func:`escape`)."""
    # sys.stdout looked up at call time, so that redirection and capture work.
    sys.stdout.write("".join(f"{escape(line)}\n" for line in lines))


def out_json(document: object) -> None:
    r"""Print a JSON document (ASCII only: every other character is escaped).

    A lone surrogate (a file name that is not UTF-8, an escape in a header)
    is legal JSON as ``\\ud800``, but jq 1.6 and other strict readers
    refuse the whole document for it: it is written as the text of its
    escape instead (the six characters ``\\ud800``), so that every string
    in the document is valid Unicode.
    """
    import json  # noqa: PLC0415 - text output, the usual, starts faster without it

    text = json.dumps(document, indent=2)
    if "\\ud" in text:
        import re  # noqa: PLC0415 - only for documents that may need it

        text = re.sub(_LONE_SURROGATE, _as_text, text)
    sys.stdout.write(text + "\n")


# An escaped backslash (kept whole, so that the next match starts after it),
# a surrogate pair (kept), or a lone surrogate: the last group.
_LONE_SURROGATE: Final = (
    r"(\\\\)|\\ud[89ab][0-9a-f]{2}\\ud[c-f][0-9a-f]{2}|\\(ud[89a-f][0-9a-f]{2})"
)


def _as_text(match: re.Match[str]) -> str:
    return match[0] if match[2] is None else "\\\\" + match[2]


def complain(message: str) -> None:
    """Print ``stspec: message`` on stderr, escaped."""
    sys.stderr.write(f"stspec: {escape(message)}\n")
