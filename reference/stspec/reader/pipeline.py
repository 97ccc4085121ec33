"""The reader as read() and validate() run it.

The checks are those of the plain pipeline (plain.py: read that first); here
they run through the shortcuts (fast.py) and, for read(), the first-violation
mode (first.py).
``check(..., shortcuts=False)`` runs the plain pipeline itself.
"""

from __future__ import annotations

import gc
import os
from functools import partial

from stspec.errors import Violations
from stspec.reader import plain
from stspec.reader.container import PREFIX_SIZE, check_tail, read_prefix, read_text
from stspec.reader.fast import scan
from stspec.reader.first import EARLY_FROM, Settled, early, structural
from stspec.reader.layout import check_layout
from stspec.reader.plain import Valid
from stspec.reader.recognise import sound_header
from stspec.reader.report import OffsetMap, Report
from stspec.reader.strict_json import JsonStop, Text
from stspec.reader.unmapped import FileBuffer
from stspec.reader.values import FastText
from stspec.rules import RULES_BY_ID

# No typing at run time (start-up cost, see stspec/record.py); mypy reads this as True.
TYPE_CHECKING = False
if TYPE_CHECKING:
    import mmap
    from types import TracebackType
    from typing import Final, Self

    from stspec.errors import SafetensorsError
    from stspec.reader.members import FastHeader
    from stspec.reader.table import TensorTable

# A path, an open file descriptor (used, never closed), or the file's bytes.
Source = str | os.PathLike[str] | int | bytes | bytearray | memoryview
# What the pipeline reads from: a mapping's (or the caller's) memoryview, or a
# file served by ordinary reads (read(path, mapped=False)).
Buffer = memoryview | FileBuffer

# How many violations of each rule validate() lists by default.
LIMIT: Final = 100


class SafetensorsFile:
    """A validated safetensors file; tensor bytes are read only when asked.

    Use it as a context manager (or call :meth:`close`) to release the mapping.
    """

    metadata: dict[str, str] | None
    tensors: TensorTable
    header_length: int
    data_start: int
    file_length: int

    def __init__(self, buffer: Buffer, valid: Valid, mapping: mmap.mmap | None) -> None:
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
            # (try/except, not contextlib.suppress: three Python calls less
            # per file, in folders of thousands)
            try:  # noqa: SIM105
                self._mapping.close()
            except BufferError:
                pass

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

    ``source`` is a path (memory-mapped; tensor bytes are not read until asked),
    a file descriptor open for reading (read at explicit positions; this
    function neither moves nor closes it), or the file's bytes.  The
    reference is strict: a file that breaks any rule, including the MAY rules
    a lenient reader could tolerate, is rejected.

    A mapped file that another process truncates kills this process with
    SIGBUS when a tensor view is touched.  ``mapped=False`` reads instead:
    the header is copied on open, ``tensor_bytes`` returns a copy, and a file
    that has shrunk since raises SafetensorsError (LAYOUT-BOUNDS) there.

    Raises:
        SafetensorsError: the first MUST violation by byte offset (a MAY one
            only when there is none), with its rule id.
        OSError: the path cannot be opened, mapped or read.

    """
    buffer, mapping = _open(source, mapped=mapped)
    valid = None
    try:
        errors, valid = check(buffer, limit=1, first_only=True, mapping=mapping)
        if valid is None:
            error = _first_must(errors)
    finally:
        if valid is None:
            buffer.release()
            if mapping is not None:
                mapping.close()
    if valid is None:
        raise error
    return SafetensorsFile(buffer, valid, mapping)


def _first_must(errors: Violations) -> SafetensorsError:
    """Return the error read() raises: the first MUST violation (READ-PRECEDENCE).

    The first violation by offset is usually a MUST one; when it is a MAY
    one (leading whitespace, an unknown entry member), the first-violation
    scan judges on until it finds a MUST one or the header's end
    (first.decided), so ``errors`` holds the answer either way.
    """
    return next((e for e in errors if RULES_BY_ID[e.rule].level == "MUST"), errors[0])


def validate(
    source: Source, *, mapped: bool = True, limit: int | None = LIMIT
) -> Violations:
    """Return the rules the file breaks, sorted by byte offset (empty if valid).

    At most ``limit`` violations of each rule are listed (the first ones by
    offset; None lists all); the result's ``omitted`` attribute counts the
    rest per rule, so a hostile header cannot make the answer huge.
    ``mapped=False`` copies the header with ordinary reads instead of mapping
    the file (see :func:`read`); validation never touches tensor bytes.

    Raises:
        OSError: the path cannot be opened, mapped or read.

    """
    if limit is not None and limit < 1:
        raise ValueError(f"limit must be at least 1 or None, not {limit}")
    buffer, mapping = _open(source, mapped=mapped)
    try:
        return check(buffer, limit=limit, mapping=mapping)[0]
    finally:
        buffer.release()
        if mapping is not None:
            mapping.close()


def _open(source: Source, *, mapped: bool) -> tuple[Buffer, mmap.mmap | None]:
    if isinstance(source, (bytes, bytearray, memoryview)):
        return memoryview(source).cast("B"), None
    # os.PathLike last: its check runs Python code (abc).
    if isinstance(source, bool) or not isinstance(source, (str, int, os.PathLike)):
        raise TypeError(
            "source must be a path, a file descriptor or a bytes-like object, "
            f"not {type(source).__name__}"
        )
    if not mapped:
        return FileBuffer(source), None
    # closefd=False: a descriptor passed in stays the caller's to close.
    with open(source, "rb", closefd=not isinstance(source, int)) as file:
        if os.fstat(file.fileno()).st_size == 0:
            # mmap refuses empty files; an empty file is simply too short.
            return memoryview(b""), None
        # Imported here: `stspec check` reads without mapping, and starts
        # faster without the module.
        import mmap  # noqa: PLC0415

        try:
            mapping = mmap.mmap(file.fileno(), 0, access=mmap.ACCESS_READ)
        except ValueError:  # "cannot mmap an empty file"
            # Emptied by another process since fstat: judged as it now is.
            return memoryview(b""), None
    return memoryview(mapping), mapping


# read(): the answer from the header's first bytes ----------------------------


def _early(buffer: Buffer, head: int | None, *, shortcuts: bool) -> Violations | None:
    """Return read()'s answer when the header's first bytes settle it (first.early)."""
    return early(buffer, head, partial(_members, shortcuts=shortcuts, first_only=True))


# 3. JSON and the header members, 4. the byte buffer ------------------------


class _CollectorPaused:
    # A large header becomes a million short-lived objects; pausing the cyclic
    # collector while they live saves much time, and none of them is cyclic.
    # A class, not contextlib's decorator: a file of one tensor is read with
    # 70 Python calls, and the decorator's generator costs 7 of them.
    __slots__ = ("collecting",)

    def __enter__(self) -> None:
        self.collecting = gc.isenabled()
        gc.disable()

    def __exit__(self, *_exc: object) -> None:
        if self.collecting:
            gc.enable()


def check(  # noqa: PLR0913 - the pipeline's options, all keyword-only
    buffer: Buffer,
    *,
    limit: int | None,
    shortcuts: bool = True,
    first_only: bool = False,
    head: int | None = None,
    mapping: mmap.mmap | None = None,
) -> tuple[Violations, Valid | None]:
    """Run the whole pipeline; return the violations and, if none, the header.

    ``limit`` caps the violations kept per rule (None: all).  ``shortcuts``
    False runs the plain pipeline (plain.py): every value through the
    position-tracking parser instead of the regular expressions and the C
    decoder (the same verdicts, slower).
    ``first_only`` (read()): only the first violation is wanted, so the
    check may stop, or check only syntax, once it is certain; the other
    violations and counts are then incomplete.  It first looks for that
    violation in the header's first ``head`` bytes alone (None: 1/128 of a
    header of 512 KiB or more, at most 64 KiB; 0: never).
    ``mapping``: the mapping ``buffer`` views, if this module made it (a
    large header's pages are given back once decoded).
    """
    if shortcuts:
        # A small header as writers emit it is judged whole, at once
        # (recognise.sound_header); anything else goes through the scan.
        found = sound_header(
            buffer.head if isinstance(buffer, FileBuffer) else buffer, len(buffer)
        )
        if found is not None:
            return Violations(), Valid(*found)
    with _CollectorPaused():
        if not (shortcuts or first_only):
            return plain.check(buffer, limit=limit)
        report = Report(limit if limit is not None else len(buffer) + 1)
        # (A header shorter than EARLY_FROM bytes has no head to look at:
        # not worth the calls for most files.)
        if first_only and (head or _stated_length(buffer) >= EARLY_FROM):
            early = _early(buffer, head, shortcuts=shortcuts)
            if early is not None:
                return early, None
        try:
            valid, to_offset = _check(
                buffer, report, mapping, shortcuts=shortcuts, first_only=first_only
            )
        except _Again:
            # A fault that stopped the parse voided what was found before it,
            # and the faults that now come first may lie in what was skipped.
            report = Report(limit if limit is not None else len(buffer) + 1)
            valid, to_offset = _check(
                buffer, report, mapping, shortcuts=shortcuts, first_only=False
            )
    if valid is not None:
        return Violations(), valid
    return report.errors(to_offset), None


def _stated_length(buffer: Buffer) -> int:
    """Return the header length the prefix states, cheaply.

    A FileBuffer holds the header only when the prefix makes it plausible
    (less otherwise: the pipeline then rejects the file from its prefix, as
    first.early would).
    """
    if isinstance(buffer, FileBuffer):
        return len(buffer.head) - PREFIX_SIZE
    return int.from_bytes(buffer[:PREFIX_SIZE], "little")


class _Again(Exception):  # noqa: N818 - internal signal, never escapes
    pass


def _check(
    buffer: Buffer,
    report: Report,
    mapping: mmap.mmap | None,
    *,
    shortcuts: bool,
    first_only: bool,
) -> tuple[Valid | None, OffsetMap]:
    # 1. length prefix, 2. header text
    header_length = read_prefix(buffer, report)
    if header_length is None:
        return None, OffsetMap("", 0)
    read = read_text(buffer, header_length, report)
    if read is None:
        return None, OffsetMap("", PREFIX_SIZE)
    text, start = read
    if mapping is not None and header_length >= _RELEASED_FROM:
        _release_pages(mapping, PREFIX_SIZE + header_length)
    to_offset = OffsetMap(text, PREFIX_SIZE)
    # 3. JSON, judged member by member; what stops the parse leaves only the
    # faults found while parsing, since the structure seen is partial.
    raw = buffer[PREFIX_SIZE : PREFIX_SIZE + header_length]
    data_start = PREFIX_SIZE + header_length
    try:
        header = _members(
            text,
            raw,
            start,
            report,
            len(buffer) - data_start,
            shortcuts=shortcuts,
            first_only=first_only,
        )
    except Settled:
        return None, to_offset
    except JsonStop as stop:
        if first_only and structural(report):
            raise _Again from None
        report.add(stop.rule, stop.pos, stop.msg, ())
        report.keep_parse_faults_only()
        return None, to_offset
    finally:
        # A mapping cannot be closed while a view of it is alive.
        raw.release()
    check_tail(text, header.end, report)
    # 4. the byte buffer, judged when the entries make it meaningful
    if header.layout_ready and header.names_unique:
        check_layout(header, text, report, data_start, len(buffer) - data_start)
    if report:
        return None, to_offset
    return Valid(header_length, header.metadata, header.table), to_offset


# A header at least this long has its mapped pages given back once decoded.
_RELEASED_FROM: Final = 1 << 20


def _release_pages(mapping: mmap.mmap, end: int) -> None:
    """Let the kernel drop the mapped pages of the file's first ``end`` bytes.

    Once decoded, the header is the text: its bytes are read again only for
    a few checks, from the page cache.  Resident, they would count twice
    for a large header (its pages and its text) until the file is closed.
    Only for a mapping of this module's own: the pages of a private or
    anonymous mapping a caller passed would be lost, not dropped.
    """
    import mmap  # noqa: PLC0415 - see _open

    dont_need = getattr(mmap, "MADV_DONTNEED", None)
    if dont_need is not None and hasattr(mapping, "madvise"):
        mapping.madvise(dont_need, 0, end)


def _members(  # noqa: PLR0913 - one header's text and where it goes
    text: str,
    raw: memoryview,
    start: int,
    report: Report,
    data_length: int,
    *,
    shortcuts: bool,
    first_only: bool,
) -> FastHeader:
    """Judge the members of the header object whose ``{`` is at ``start``.

    ``raw`` holds the bytes of ``text``; ``data_length`` is the byte
    buffer's length.  See fast.scan.
    """
    src = FastText(text, report.add, raw) if shortcuts else Text(text, report.add)
    return scan(src, start, report, data_length, first_only=first_only)
