"""The byte buffer: every byte owned by exactly one tensor, no gaps, no tail."""

from __future__ import annotations

from stspec.errors import shown

# No typing at run time (start-up cost, see stspec/record.py); mypy reads this as True.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from stspec.reader.header import Header
    from stspec.reader.report import Report


def check_layout(
    header: Header, text: str, report: Report, data_start: int, buffer_length: int
) -> None:
    """Check that the entries tile ``[0, buffer_length)`` exactly.

    Entries are taken in (begin, end) order, so the order of the JSON object
    does not matter (spec LAYOUT-HOLE).  A reversed pair, already reported as
    OFFSETS-ORDER, is tiled as the bytes between its two offsets, so that one
    swapped pair is not also a hole or an overlap.  A tensor that claims
    bytes past the buffer is left out of the tiling, and reported as
    LAYOUT-BOUNDS when its end is past it (SPEC §8.1 judges the end alone);
    the trailing check is then skipped, since the buffer's real end is not
    where the header says it is.  Facts about the buffer are located by
    their file offset, LAYOUT-BOUNDS by the position of the pair in the
    header text (see report.py).
    """
    _, _, offsets, _, _ = header.table.columns
    begins = offsets[::2]
    ends = offsets[1::2]
    # Writers lay tensors out in header order, so the common case needs no sort.
    if (
        not header.reversed
        and begins[1:] == ends[:-1]
        and (
            (not begins and buffer_length == 0)
            or (begins and begins[0] == 0 and ends[-1] == buffer_length)
        )
    ):
        return
    names = list(header.table)
    inside = list(zip(begins, ends, range(len(ends)), strict=True))
    if header.reversed:
        inside = [(min(b, e), max(b, e), i) for b, e, i in inside]
    # The highest offset of all is the furthest byte any tensor claims.
    if max(offsets, default=0) > buffer_length:
        inside = _bounds(header, text, report, names, inside, buffer_length)
    inside.sort()
    cursor = 0
    for begin, end, position in inside:
        if begin > cursor:
            at = data_start + cursor
            if not report.full_at_offset("LAYOUT-HOLE", at):
                report.add_at_offset(
                    "LAYOUT-HOLE",
                    at,
                    f"bytes {cursor}..{begin} of the buffer belong to no tensor; "
                    f"expected {shown(names[position])} to begin at {cursor}",
                    (names[position], "data_offsets"),
                )
        elif begin < cursor:
            at = data_start + begin
            if not report.full_at_offset("LAYOUT-OVERLAP", at):
                report.add_at_offset(
                    "LAYOUT-OVERLAP",
                    at,
                    f"tensor {shown(names[position])} begins at {begin}, inside "
                    f"bytes already owned up to {cursor}",
                    (names[position], "data_offsets"),
                )
        cursor = max(cursor, end)
    if cursor < buffer_length and len(inside) == len(begins):
        report.add_at_offset(
            "LAYOUT-TRAILING",
            data_start + cursor,
            f"{buffer_length - cursor} trailing bytes after the last tensor, "
            f"expected the buffer to end at {cursor}",
        )


def _bounds(  # noqa: PLR0913, PLR0917 - one layout check's inputs
    header: Header,
    text: str,
    report: Report,
    names: list[str],
    spans: list[tuple[int, int, int]],
    buffer_length: int,
) -> list[tuple[int, int, int]]:
    """Report the tensors that end past the buffer; return the spans inside it."""
    _, _, offsets, _, _ = header.table.columns
    inside: list[tuple[int, int, int]] = []
    for low, high, position in spans:
        if high <= buffer_length:
            inside.append((low, high, position))
            continue
        end = offsets[2 * position + 1]
        if end <= buffer_length:
            # A reversed pair whose begin alone lies past the buffer: its
            # fault is the order (OFFSETS-ORDER), not the bounds.
            continue
        pos = text.rfind("[", 0, header.where[position])
        if not report.full("LAYOUT-BOUNDS", pos):
            report.add(
                "LAYOUT-BOUNDS",
                pos,
                f"tensor {shown(names[position])} ends at {end}, past the "
                f"{buffer_length}-byte buffer: {_missing(end - buffer_length)}",
                (names[position], "data_offsets"),
            )
    return inside


def _missing(count: int) -> str:
    # What a user sees first in a file cut short by a download or a copy.
    return f"{count} byte{'s' if count != 1 else ''} missing (a truncated file?)"
