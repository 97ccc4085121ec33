"""The container: the 8-byte length prefix, the header's text, what follows it.

Steps 1 and 2 of the pipeline (spec/SPEC.md §3-§4), and the check of what
follows the header object: bytes -> header length -> UTF-8 text -> where the
object starts -> (the object, see header.py) -> padding after it.
"""

from __future__ import annotations

from stspec.rules import MAX_HEADER_SIZE

# No typing at run time (start-up cost, see stspec/record.py); mypy reads this as True.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Final

    from stspec.reader.report import Report
    from stspec.reader.unmapped import FileBuffer

    # What the pipeline reads from: a mapping's (or the caller's) memoryview,
    # or a file served by ordinary reads (read(path, mapped=False)).
    Buffer = memoryview | FileBuffer

__all__ = [
    "JSON_WS",
    "PREFIX_SIZE",
    "check_tail",
    "not_utf8",
    "object_start",
    "read_prefix",
    "read_text",
]

PREFIX_SIZE: Final = 8
JSON_WS: Final = " \t\n\r"


# 1. Length prefix and header bytes -----------------------------------------


def read_prefix(view: Buffer, report: Report) -> int | None:
    """Return the header length N, or None after reporting why there is none."""
    if len(view) < PREFIX_SIZE:
        report.add_at_offset(
            "FILE-PREFIX",
            0,
            f"file is {len(view)} bytes long, expected at least the 8-byte "
            "header length",
        )
        return None
    header_length = int.from_bytes(view[:PREFIX_SIZE], "little")
    # The limit is checked first: N must never be trusted as a size, not even
    # to compare it with the file (spec HEADER-LIMIT before HEADER-BOUNDS).
    if header_length > MAX_HEADER_SIZE:
        report.add_at_offset(
            "HEADER-LIMIT",
            0,
            f"header length {header_length} exceeds the limit of {MAX_HEADER_SIZE}",
        )
        return None
    if PREFIX_SIZE + header_length > len(view):
        report.add_at_offset(
            "HEADER-BOUNDS",
            0,
            f"header length {header_length} exceeds the "
            f"{len(view) - PREFIX_SIZE} bytes after the prefix",
        )
        return None
    return header_length


# 2. Header text: UTF-8 and where the object starts --------------------------


def read_text(
    buffer: Buffer, header_length: int, report: Report
) -> tuple[str, int] | None:
    """Decode the header; return the text and where its object starts."""
    raw = buffer[PREFIX_SIZE : PREFIX_SIZE + header_length]
    try:
        text = str(raw, "utf-8")
    except UnicodeDecodeError as exc:
        not_utf8(report, exc.start, exc.reason)
        return None
    finally:
        raw.release()
    start = object_start(text, report)
    return None if start is None else (text, start)


def not_utf8(report: Report, index: int, reason: str) -> None:
    """Report the header's first byte that is not UTF-8 (HEADER-UTF8).

    ``index`` counts bytes from the header's start: the text is not decoded,
    so the fault has no position in it.
    """
    report.add_at_offset(
        "HEADER-UTF8", PREFIX_SIZE + index, f"header is not UTF-8: {reason}"
    )


def object_start(text: str, report: Report) -> int | None:
    """Return where the header object starts, after judging what precedes it."""
    start = len(text) - len(text.lstrip(JSON_WS))
    if text[start : start + 1] != "{":
        found = repr(text[start]) if start < len(text) else "the end of the header"
        report.add(
            "HEADER-OBJECT",
            start,
            f"found {found}, expected the '{{' that opens the header object",
            (),
        )
        return None
    if start:
        report.add(
            "HEADER-LEADING-WS",
            0,
            f"{start} whitespace bytes precede the '{{', expected it first",
            (),
        )
    return start


def check_tail(text: str, end: int, report: Report) -> None:
    """Judge what follows the object: 0x20 padding, other whitespace, or junk."""
    tail = text[end:]
    padding = tail.lstrip(" ")
    if not padding:
        return
    other = tail.lstrip(JSON_WS)
    if other:
        report.add(
            "HEADER-TRAILING",
            len(text) - len(other),
            f"found {other[0]!r} after the header object, expected only 0x20 padding",
            (),
        )
        return
    report.add(
        "HEADER-PADDING",
        len(text) - len(padding),
        f"padding holds {padding[0]!r}, expected only 0x20",
        (),
    )
