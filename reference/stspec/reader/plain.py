"""The plain pipeline: what the spec says, in the order it says it.

Read this first.  bytes -> length prefix and header text (container.py) ->
JSON, member by member: tensor entries and ``__metadata__`` (header.py, with
the parser in strict_json.py) -> the byte buffer (layout.py).  Every check
names its rule id; violations go to a bounded report (report.py).

:func:`stspec.read` and :func:`stspec.validate` run the same checks through
the shortcuts (fast.py, bulk.py) and read()'s first-violation mode (first.py,
pipeline.py); ``check(..., shortcuts=False)`` in pipeline.py runs this one,
and the tests hold the two to the same verdicts, offsets and messages.
"""

from __future__ import annotations

from stspec.errors import Violations
from stspec.reader.container import PREFIX_SIZE, check_tail, read_prefix, read_text
from stspec.reader.header import scan
from stspec.reader.layout import check_layout
from stspec.reader.report import OffsetMap, Report
from stspec.reader.strict_json import JsonStop, Text

# No typing at run time (start-up cost, see stspec/record.py); mypy reads this as True.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from stspec.reader.container import Buffer
    from stspec.reader.table import TensorTable

__all__ = ["Valid", "check"]


class Valid:
    """What a valid file's header holds: its length, metadata and tensors."""

    __slots__ = ("header_length", "metadata", "tensors")

    def __init__(
        self, header_length: int, metadata: dict[str, str] | None, tensors: TensorTable
    ) -> None:
        self.header_length = header_length
        self.metadata = metadata
        self.tensors = tensors


def check(buffer: Buffer, *, limit: int | None) -> tuple[Violations, Valid | None]:
    """Judge the file in ``buffer``; return the violations and, if none, the header.

    ``limit`` caps the violations kept per rule (None: all).
    """
    report = Report(limit if limit is not None else len(buffer) + 1)
    # 1. length prefix, 2. header text
    header_length = read_prefix(buffer, report)
    if header_length is None:
        return report.errors(OffsetMap("", 0)), None
    read = read_text(buffer, header_length, report)
    if read is None:
        return report.errors(OffsetMap("", PREFIX_SIZE)), None
    text, start = read
    to_offset = OffsetMap(text, PREFIX_SIZE)
    # 3. JSON, judged member by member; what stops the parse leaves only the
    # faults found while parsing, since the structure seen is partial.
    try:
        header = scan(Text(text, report.add), start, report)
    except JsonStop as stop:
        report.add(stop.rule, stop.pos, stop.msg, ())
        report.keep_parse_faults_only()
        return report.errors(to_offset), None
    check_tail(text, header.end, report)
    # 4. the byte buffer, judged when the entries make it meaningful
    data_start = PREFIX_SIZE + header_length
    if header.layout_ready and header.names_unique:
        check_layout(header, text, report, data_start, len(buffer) - data_start)
    if report:
        return report.errors(to_offset), None
    return Violations(), Valid(header_length, header.metadata, header.table)
