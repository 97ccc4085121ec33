"""The strict reader: bytes -> prefix -> header text -> JSON -> entries -> layout."""

from __future__ import annotations

import contextlib
import gc
import mmap
import os
import re
from dataclasses import dataclass
from typing import TYPE_CHECKING, Final, Self

from stspec._errors import HeaderPath, SafetensorsError
from stspec._fast import accept
from stspec._header import Finding, TensorTable, check_members
from stspec._json import Parsed, Path, parse_object
from stspec._layout import check_layout
from stspec._rules import MAX_HEADER_SIZE
from stspec._unmapped import FileBuffer

if TYPE_CHECKING:
    from collections.abc import Iterator
    from types import TracebackType

Source = str | os.PathLike[str] | bytes | bytearray | memoryview
# What the pipeline reads from: a mapping's (or the caller's) memoryview, or a
# file served by ordinary reads (read(path, mapped=False)).
Buffer = memoryview | FileBuffer

PREFIX_SIZE: Final = 8
_JSON_WS: Final = " \t\n\r"
# Text the C JSON decoder would accept but the spec rejects: the integer -0
# (it decodes to 0; other negative numbers stay visibly negative) and
# surrogate escapes (which need pairing checks).  Either sends the header down
# the strict path; false positives inside strings only cost time.
_MINUS_ZERO: Final = re.compile(r"-0(?![.eE0-9])")
_SURROGATE_ESCAPE: Final = re.compile(r"\\u[dD][89a-fA-F]")


@dataclass(frozen=True, slots=True)
class _Valid:
    header_length: int
    metadata: dict[str, str] | None
    tensors: TensorTable


@dataclass(slots=True)
class _Prefix:
    header_length: int
    text: str
    start: int  # index of the object's `{` in text
    ascii: bool


class SafetensorsFile:
    """A validated safetensors file; tensor bytes are read only when asked.

    Use it as a context manager (or call :meth:`close`) to release the mapping.
    """

    metadata: dict[str, str] | None
    tensors: TensorTable
    header_length: int
    data_start: int
    file_length: int

    def __init__(
        self, buffer: Buffer, valid: _Valid, mapping: mmap.mmap | None
    ) -> None:
        self._buffer = buffer
        self._mapping = mapping
        self.metadata = valid.metadata
        self.tensors = valid.tensors
        self.header_length = valid.header_length
        self.data_start = PREFIX_SIZE + valid.header_length
        self.file_length = len(buffer)

    def tensor_bytes(self, name: str) -> memoryview:
        """Return a zero-copy view of the tensor's bytes (KeyError if absent)."""
        tensor = self.tensors[name]
        return self._buffer[
            self.data_start + tensor.begin : self.data_start + tensor.end
        ]

    def close(self) -> None:
        """Release the file mapping.

        Views returned by :meth:`tensor_bytes` keep the mapping alive; it is
        unmapped when the last of them is released.
        """
        self._buffer.release()
        if self._mapping is not None:
            # While tensor views are still exported, closing fails; the mmap
            # object then closes itself when they are garbage collected.
            with contextlib.suppress(BufferError):
                self._mapping.close()

    def __enter__(self) -> Self:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.close()

    def __repr__(self) -> str:
        return (
            f"<SafetensorsFile {len(self.tensors)} tensors, header {self.header_length}"
            f" bytes, file {self.file_length} bytes>"
        )


def read(source: Source, *, mapped: bool = True) -> SafetensorsFile:
    """Open and fully validate a safetensors file.

    ``source`` is a path (memory-mapped; tensor bytes are not read until asked)
    or the file's bytes.  The reference is strict: a file that breaks any rule,
    including the MAY rules a lenient reader could tolerate, is rejected.

    A mapped file that another process truncates kills this process with
    SIGBUS when a tensor view is touched.  ``mapped=False`` reads instead:
    the header is copied on open, ``tensor_bytes`` returns a copy, and a file
    that has shrunk since raises SafetensorsError (LAYOUT-BOUNDS) there.

    Raises:
        SafetensorsError: the first violation by byte offset, with its rule id.
        OSError: the path cannot be opened, mapped or read.

    """
    buffer, mapping = _open(source, mapped=mapped)
    errors: list[SafetensorsError] = []
    try:
        valid = _read_fast(buffer)
        if valid is None:
            # The strict path decides; the fast path's doubts may be false
            # alarms (a "-0" inside a tensor name, say).
            errors, valid = _validate_buffer(buffer, first_only=True)
    finally:
        if valid is None:
            buffer.release()
            if mapping is not None:
                mapping.close()
    if valid is None:
        raise errors[0]
    return SafetensorsFile(buffer, valid, mapping)


def validate(source: Source, *, mapped: bool = True) -> list[SafetensorsError]:
    """Return every rule the file breaks, sorted by byte offset ([] if valid).

    ``mapped=False`` copies the header with ordinary reads instead of mapping
    the file (see :func:`read`); validation never touches tensor bytes.

    Raises:
        OSError: the path cannot be opened, mapped or read.

    """
    buffer, mapping = _open(source, mapped=mapped)
    try:
        if _read_fast(buffer) is not None:
            return []
        return _validate_buffer(buffer)[0]
    finally:
        buffer.release()
        if mapping is not None:
            mapping.close()


def _open(source: Source, *, mapped: bool) -> tuple[Buffer, mmap.mmap | None]:
    if isinstance(source, (bytes, bytearray, memoryview)):
        return memoryview(source).cast("B"), None
    if not isinstance(source, (str, os.PathLike)):
        raise TypeError(
            f"source must be a path or bytes-like object, not {type(source).__name__}"
        )
    if not mapped:
        return FileBuffer(source), None
    with open(source, "rb") as file:  # noqa: PTH123 - accepts str and PathLike alike
        if os.fstat(file.fileno()).st_size == 0:
            # mmap refuses empty files; an empty file is simply too short.
            return memoryview(b""), None
        mapping = mmap.mmap(file.fileno(), 0, access=mmap.ACCESS_READ)
    return memoryview(mapping), mapping


# 1. Length prefix and header bytes -----------------------------------------


def _read_prefix(view: Buffer) -> tuple[int | None, list[SafetensorsError]]:
    if len(view) < PREFIX_SIZE:
        return None, [
            SafetensorsError(
                "FILE-PREFIX",
                0,
                f"file is {len(view)} bytes long, expected at least the 8-byte "
                "header length",
            )
        ]
    header_length = int.from_bytes(view[:PREFIX_SIZE], "little")
    # The limit is checked first: N must never be trusted as a size, not even
    # to compare it with the file (spec HEADER-LIMIT before HEADER-BOUNDS).
    if header_length > MAX_HEADER_SIZE:
        return None, [
            SafetensorsError(
                "HEADER-LIMIT",
                0,
                f"header length {header_length} exceeds the limit of {MAX_HEADER_SIZE}",
            )
        ]
    if PREFIX_SIZE + header_length > len(view):
        return None, [
            SafetensorsError(
                "HEADER-BOUNDS",
                0,
                f"header length {header_length} exceeds the "
                f"{len(view) - PREFIX_SIZE} bytes after the prefix",
            )
        ]
    return header_length, []


# 2. Header text: UTF-8 and where the object starts --------------------------


def _read_text(
    buffer: Buffer, header_length: int
) -> tuple[_Prefix | None, list[SafetensorsError]]:
    raw = buffer[PREFIX_SIZE : PREFIX_SIZE + header_length]
    try:
        text = str(raw, "utf-8")
    except UnicodeDecodeError as exc:
        return None, [
            SafetensorsError(
                "HEADER-UTF8",
                PREFIX_SIZE + exc.start,
                f"header is not UTF-8: {exc.reason}",
            )
        ]
    finally:
        raw.release()
    start = len(text) - len(text.lstrip(_JSON_WS))
    if text[start : start + 1] != "{":
        found = repr(text[start]) if start < len(text) else "the end of the header"
        return None, [
            SafetensorsError(
                "HEADER-OBJECT",
                PREFIX_SIZE + start,
                f"found {found}, expected the '{{' that opens the header object",
            )
        ]
    prefix = _Prefix(header_length, text, start, text.isascii())
    if start:
        return prefix, [
            SafetensorsError(
                "HEADER-LEADING-WS",
                PREFIX_SIZE,
                f"{start} whitespace bytes precede the '{{', expected it first",
            )
        ]
    return prefix, []


def _check_tail(prefix: _Prefix, end: int) -> list[SafetensorsError]:
    """Judge what follows the object: 0x20 padding, other whitespace, or junk."""
    text = prefix.text
    tail = text[end:]
    padding = tail.lstrip(" ")
    if not padding:
        return []
    other = tail.lstrip(_JSON_WS)
    if other:
        position = len(text) - len(other)
        return [
            SafetensorsError(
                "HEADER-TRAILING",
                _byte_offset(prefix, position),
                f"found {other[0]!r} after the header object, expected only "
                "0x20 padding",
            )
        ]
    position = len(text) - len(padding)
    return [
        SafetensorsError(
            "HEADER-PADDING",
            _byte_offset(prefix, position),
            f"padding holds {padding[0]!r}, expected only 0x20",
        )
    ]


def _byte_offset(prefix: _Prefix, position: int) -> int:
    """Convert a character position in the header text to a file offset."""
    if prefix.ascii:
        return PREFIX_SIZE + position
    return PREFIX_SIZE + len(prefix.text[:position].encode("utf-8", "surrogatepass"))


# 3. JSON: a fast path for clean headers, the strict parser for everything --


@contextlib.contextmanager
def _collector_paused() -> Iterator[None]:
    # A large header becomes a million short-lived objects; pausing the cyclic
    # collector while they live halves the time, and none of them is cyclic.
    collecting = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if collecting:
            gc.enable()


def _read_fast(buffer: Buffer) -> _Valid | None:
    with _collector_paused():
        return _read_fast_unmanaged(buffer)


def _read_fast_unmanaged(buffer: Buffer) -> _Valid | None:
    """Accept a clean file quickly; return None if anything needs a closer look.

    The C JSON decoder is lenient where the spec is strict, so every header it
    could misjudge is handed to the strict path: duplicates, NaN, signed
    numbers and surrogate escapes are caught by the hooks or the pre-scan, and
    any finding at all (even a MAY rule) also goes the strict way.
    """
    header_length, errors = _read_prefix(buffer)
    if header_length is None:
        return None
    prefix, errors = _read_text(buffer, header_length)
    if prefix is None or errors or _suspicious(prefix.text):
        return None
    data_start = PREFIX_SIZE + header_length
    accepted = accept(prefix.text, prefix.start, len(buffer) - data_start)
    if accepted is None or _check_tail(prefix, accepted.end):
        return None
    return _Valid(header_length, accepted.metadata, accepted.tensors)


def _suspicious(text: str) -> bool:
    # A one-character test runs at memory speed and nearly always settles the
    # question before a regular expression has to scan the text.
    return bool(
        ("-" in text and _MINUS_ZERO.search(text))
        or ("\\" in text and _SURROGATE_ESCAPE.search(text))
    )


def _validate_buffer(
    buffer: Buffer, *, first_only: bool = False
) -> tuple[list[SafetensorsError], _Valid | None]:
    with _collector_paused():
        return _validate_unmanaged(buffer, first_only=first_only)


def _validate_unmanaged(
    buffer: Buffer, *, first_only: bool
) -> tuple[list[SafetensorsError], _Valid | None]:
    """Run the authoritative pipeline and collect every violation it reaches.

    Returns the violations sorted by offset, and the valid header if there
    are none.
    """
    header_length, errors = _read_prefix(buffer)
    if header_length is None:
        return errors, None
    prefix, errors = _read_text(buffer, header_length)
    if prefix is None:
        return errors, None
    parsed = parse_object(prefix.text, prefix.start)
    errors += [
        SafetensorsError(
            fault.rule,
            _byte_offset(prefix, fault.pos),
            fault.msg,
            _named(parsed, fault.path),
        )
        for fault in parsed.faults
    ]
    if not parsed.complete:
        return _sorted(errors), None
    errors += _check_tail(prefix, parsed.end)
    header = check_members(parsed.members)
    names_unique = not any(
        fault.rule == "KEY-UNIQUE" and not fault.path for fault in parsed.faults
    )
    findings = header.findings
    if header.layout_ready and names_unique:
        data_start = PREFIX_SIZE + header_length
        findings = findings + check_layout(
            header.tensors, header.indices, data_start, len(buffer) - data_start
        )
    if first_only and findings:
        # read() raises only the first violation; a hostile header can hold
        # a hundred thousand, each of which would otherwise become an error.
        findings = [min(findings, key=lambda f: _offset_of(prefix, parsed, f))]
    errors += [_locate(prefix, parsed, finding) for finding in findings]
    if errors:
        return _sorted(errors), None
    table = TensorTable()
    for tensor in header.tensors:
        table.add(*tensor)
    return [], _Valid(header_length, header.metadata, table)


def _offset_of(prefix: _Prefix, parsed: Parsed, finding: Finding) -> int:
    if finding.at is not None:
        return finding.at
    return _byte_offset(prefix, parsed.position(finding.path))


def _locate(prefix: _Prefix, parsed: Parsed, finding: Finding) -> SafetensorsError:
    offset = _offset_of(prefix, parsed, finding)
    return SafetensorsError(
        finding.rule, offset, finding.msg, _named(parsed, finding.path)
    )


def _named(parsed: Parsed, path: Path) -> HeaderPath:
    """Replace the member index at the head of a path with the member's name."""
    if not path:
        return ()
    head = path[0]
    assert isinstance(head, int)  # noqa: S101 - top-level paths start with an index
    if head >= len(parsed.members):
        # The fault is in the name of a member the parse stopped inside.
        return ()
    return (parsed.members[head][0], *path[1:])


def _sorted(errors: list[SafetensorsError]) -> list[SafetensorsError]:
    return sorted(errors, key=lambda error: error.offset or 0)
