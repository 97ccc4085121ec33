"""The header object, member by member: tensor entries and ``__metadata__``.

The reader's plain path: every member is parsed with positions (see
strict_json) and checked field by field, each check naming its rule.  Members
are judged as they are parsed, so nothing of the header is kept but the table
of entries.  The shortcuts (reader/members.py) override the ``judge_*`` hooks of
:class:`Scan` and ``Header.where``; tests/reference/test_reader_paths_agree.py
and the fuzzers hold them to this module's verdicts.
"""

from __future__ import annotations

from array import array

from stspec.dtypes import BITS
from stspec.errors import shown
from stspec.reader.strict_json import (
    JsonStop,
    Number,
    Path,
    Text,
    check_surrogates,
    kind,
    member_name,
    next_member,
    opening,
    skip,
    string,
    value,
)
from stspec.reader.table import TensorInfo, TensorTable
from stspec.rules import U64_MAX

# No typing at run time (start-up cost, see stspec/record.py); mypy reads this as True.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Final

    from stspec.reader.report import Report

__all__ = [
    "FIELDS",
    "METADATA_KEY",
    "Header",
    "Scan",
    "TensorInfo",
    "TensorTable",
    "scan",
]

METADATA_KEY: Final = "__metadata__"
FIELDS: Final = frozenset(("dtype", "shape", "data_offsets"))
# The type code of the arrays of positions.
ARRAY: Final = "Q"


class Header:
    """What the member scan established about the header object.

    table: every entry with usable data_offsets, in file order, its pair as
        stated (a file with any violation never exposes it)
    where: per table entry, a position just past its data_offsets' ``[``
    layout_ready: False when some entry has no usable data_offsets (holes
        and overlaps are then meaningless, so the layout is not judged)
    reversed: some entry's pair has begin > end (OFFSETS-ORDER)
    names_unique: no tensor name repeats (else the layout is not judged)
    end: the position just past the header object
    """

    __slots__ = (
        "end",
        "layout_ready",
        "metadata",
        "names_unique",
        "reversed",
        "table",
        "where_kept",
    )

    def __init__(self) -> None:
        self.metadata: dict[str, str] | None = None
        self.table = TensorTable()
        self.where_kept = array(ARRAY)
        self.layout_ready = True
        self.names_unique = True
        self.reversed = False
        self.end = 0

    @property
    def where(self) -> array[int]:
        """Per table entry, a position just past its data_offsets' ``[``."""
        return self.where_kept


class Scan:
    """The state of one scan: the text, the report and the header so far.

    A member's value is judged by :meth:`judge_entry` or
    :meth:`judge_metadata`, an entry's array fields by :meth:`judge_integers`;
    the fast path overrides them.
    """

    __slots__ = ("header", "others", "report", "src")

    def __init__(self, src: Text, report: Report, header: Header) -> None:
        self.src = src
        self.report = report
        self.header = header
        # Names of members that are not in the table (metadata, faulty entries).
        self.others: set[str] = set()

    def fault(self, rule: str, pos: int, msg: str, path: Path) -> None:
        """Record a violation that does not stop the parse."""
        self.report.add(rule, pos, msg, path)

    def judge_entry(self, name: str, pos: int, *, repeated: bool) -> int:
        """Judge the tensor entry value at ``pos``; return its end."""
        return entry(self, name, pos, repeated=repeated)

    def judge_metadata(self, pos: int, *, keep: bool) -> int:
        """Judge the ``__metadata__`` value at ``pos``; return its end."""
        return metadata(self, pos, keep=keep)

    def judge_integers(
        self, path: Path, pos: int, item: object, elements: array[int] | None
    ) -> tuple[int, ...] | None:
        """Judge a shape or data_offsets value at ``pos`` (see :func:`integers`)."""
        # The plain way locates every element of an array field (read_field).
        return integers(self, path, pos, item, elements)  # type: ignore[arg-type]


def scan(src: Text, start: int, report: Report) -> Header:
    """Judge every member of the object whose ``{`` is at ``start``.

    Raises JsonStop when the text cannot be parsed on.  Everything found is
    in ``report``.
    """
    state = Scan(src, report, Header())
    pos, more = opening(src.text, start, "}")
    while more:
        pos, more = member(state, pos)
    state.header.end = pos
    return state.header


def member(state: Scan, pos: int) -> tuple[int, bool]:
    """Judge the member at ``pos``; return what next_member does."""
    src = state.src
    text = src.text
    key_pos = pos
    try:
        pos, name = member_name(src, pos, None)
        repeated = repeated_name(state, name, key_pos)
        if name == METADATA_KEY:
            state.others.add(name)
            pos = state.judge_metadata(pos, keep=not repeated)
        else:
            pos = state.judge_entry(name, pos, repeated=repeated)
    except JsonStop:
        # The parse stops inside this member, so a fault in its name has no
        # path: the member never came to be.
        if text[key_pos : key_pos + 1] == '"':
            # (not contextlib.suppress: importing contextlib costs the
            # `stspec` command 3 M instructions at start-up)
            try:  # noqa: SIM105
                check_surrogates(src, string(src, key_pos)[1], key_pos, ())
            except JsonStop:
                pass  # the stop being raised is the member's
        raise
    check_surrogates(src, name, key_pos, (name,))
    return next_member(text, pos, "}")


def duplicate(state: Scan, name: str, pos: int, path: Path) -> None:
    """Report a member name seen before in the same object (KEY-UNIQUE)."""
    if not state.report.full("KEY-UNIQUE", pos):
        msg = f"member name {shown(name)} appears twice in one object"
        state.fault("KEY-UNIQUE", pos, msg, path)


def repeated_name(state: Scan, name: str, pos: int) -> bool:
    """Report a top-level name seen before; True if it was."""
    if name in state.header.table or name in state.others:
        state.header.names_unique = False
        duplicate(state, name, pos, ())
        return True
    return False


# Tensor entries -------------------------------------------------------------


def entry(state: Scan, name: str, pos: int, *, repeated: bool) -> int:
    """Judge the entry value at ``pos``; return its end."""
    src = state.src
    text = src.text
    if text[pos : pos + 1] != "{":
        return not_an_entry(state, name, pos, skip(src, pos, 1, (name,)))
    entry_pos = pos
    fields: dict[str, tuple[int, object, array[int] | None]] = {}
    seen: set[str] = set()
    pos, more = opening(text, pos, "}")
    while more:
        key_pos = pos
        pos, key = member_name(src, pos, (name,))
        path = (name, key)
        if key in seen:
            duplicate(state, key, key_pos, (name,))
            pos = skip(src, pos, 2, path)
        elif key in FIELDS:
            seen.add(key)
            pos = read_field(state, key, pos, path, fields)
        else:
            seen.add(key)
            pos = unknown_member(state, name, key, pos)
        pos, more = next_member(text, pos, "}")
    judge_fields(state, name, entry_pos, fields, repeated=repeated)
    return pos


def read_field(
    state: Scan,
    key: str,
    pos: int,
    path: Path,
    fields: dict[str, tuple[int, object, array[int] | None]],
) -> int:
    """Parse a field's value with its elements' positions into ``fields``."""
    elements = None if key == "dtype" else array(ARRAY)
    end, item = value(state.src, pos, 2, path, elements=elements)
    fields[key] = (pos, item, elements)
    return end


def unknown_member(state: Scan, name: str, key: str, pos: int) -> int:
    """Report an entry member other than the three fields; return its end."""
    path = (name, key)
    if not state.report.full("ENTRY-UNKNOWN", pos):
        state.fault(
            "ENTRY-UNKNOWN",
            pos,
            f"tensor {shown(name)} has unknown member {shown(key)}, "
            "expected only dtype, shape and data_offsets",
            path,
        )
    return skip(state.src, pos, 2, path)


def not_an_entry(state: Scan, name: str, pos: int, end: int) -> int:
    """Report the entry value at ``pos`` (ending at ``end``) that is no object."""
    state.fault(
        "ENTRY-OBJECT",
        pos,
        f"tensor {shown(name)} is {kind(state.src.text, pos)}, expected an object "
        "with dtype, shape and data_offsets",
        (name,),
    )
    state.header.layout_ready = False
    state.others.add(name)
    return end


def judge_fields(
    state: Scan,
    name: str,
    entry_pos: int,
    fields: dict[str, tuple[int, object, array[int] | None]],
    *,
    repeated: bool,
) -> None:
    """Check an entry's fields, alone and together; add it to the table.

    ``fields`` maps each field found to its position, its value and the
    positions of its elements.
    """
    missing = [key for key in ("dtype", "shape", "data_offsets") if key not in fields]
    if missing:
        state.fault(
            "ENTRY-FIELDS",
            entry_pos,
            f"tensor {shown(name)} lacks {', '.join(missing)}",
            (name,),
        )
    dtype = None
    if "dtype" in fields:
        dtype_pos, item, _ = fields["dtype"]
        if type(item) is str and item in BITS:
            dtype = item
        else:
            dtype_fault(state, name, item, dtype_pos)
    shape = None
    shape_pos = -1
    if "shape" in fields:
        shape_pos, item, elements = fields["shape"]
        shape = state.judge_integers((name, "shape"), shape_pos, item, elements)
    offsets = None
    offsets_pos = -1
    if "data_offsets" in fields:
        offsets_pos, item, elements = fields["data_offsets"]
        path = (name, "data_offsets")
        pair = state.judge_integers(path, offsets_pos, item, elements)
        if pair is not None:
            offsets = (pair[0], pair[1])
    finish(
        state,
        name,
        dtype,
        shape,
        offsets,
        (shape_pos, offsets_pos + 1),
        repeated=repeated,
    )


def integers(
    state: Scan, path: Path, pos: int, item: object, elements: array[int]
) -> tuple[int, ...] | None:
    """Check a shape or data_offsets value; return its integers if all are fine.

    ``elements`` holds the position of each element of ``item``.
    """
    field = path[1]
    rule = "SHAPE-ARRAY" if field == "shape" else "OFFSETS-PAIR"
    if type(item) is not list or (field == "data_offsets" and len(item) != 2):
        if field == "shape":
            msg = f"shape is {_kind(item)}, expected an array of integers"
        else:
            what = f"an array of {len(item)}" if type(item) is list else _kind(item)
            msg = f"data_offsets is {what}, expected an array of two integers"
        state.fault(rule, pos, msg, path)
        return None
    good = True
    for position, element in enumerate(item):
        if type(element) is int and element <= U64_MAX:
            continue
        good = False
        at = elements[position]
        if type(element) is int:
            too_big(state, at, (*path, position), element)
        elif isinstance(element, Number):
            not_integer(state, at, (*path, position), element)
        elif not state.report.full(rule, at):
            state.fault(
                rule,
                at,
                f"element is {_kind(element)}, expected an integer",
                (*path, position),
            )
    return tuple(item) if good else None


def not_integer(state: Scan, pos: int, path: Path, number: Number) -> None:
    """Report a number that is no plain integer in 0..2^64-1."""
    if number.is_integer_token:
        digits = len(number.token)
        what = number.token if digits <= 40 else f"a {digits}-digit integer"
        if not state.report.full("NUM-RANGE", pos):
            state.fault("NUM-RANGE", pos, f"{what} exceeds 2^64-1", path)
    elif not state.report.full("NUM-INTEGER", pos):
        state.fault(
            "NUM-INTEGER",
            pos,
            f"number {number.token[:40]} is not a plain non-negative integer",
            path,
        )


def too_big(state: Scan, pos: int, path: Path, number: int) -> None:
    """Report an integer above 2^64-1 (NUM-RANGE)."""
    state.fault("NUM-RANGE", pos, f"{number} is not an integer in 0..2^64-1", path)


def dtype_fault(state: Scan, name: str, dtype: object, pos: int) -> None:
    """Report a dtype that is not one of the dtype names (DTYPE-NAME)."""
    if not state.report.full("DTYPE-NAME", pos):
        what = shown(dtype) if type(dtype) is str else _kind(dtype)
        state.fault(
            "DTYPE-NAME",
            pos,
            f"dtype {what} is not one of the 22 dtype names",
            (name, "dtype"),
        )


def finish(  # noqa: PLR0913, PLR0917 - the fields of one entry
    state: Scan,
    name: str,
    dtype: str | None,
    shape: tuple[int, ...] | None,
    offsets: tuple[int, int] | None,
    where: tuple[int, int],
    *,
    repeated: bool,
) -> None:
    """Run the checks that need several fields; then add the entry to the table."""
    header = state.header
    if offsets is None:
        header.layout_ready = False
        state.others.add(name)
        return
    offsets_after = where[1]
    begin, end = offsets
    in_order = begin <= end
    if not in_order:
        header.reversed = True
        state.fault(
            "OFFSETS-ORDER",
            offsets_after - 1,
            f"data_offsets begin {begin} exceeds end {end}",
            (name, "data_offsets"),
        )
    if dtype is not None and shape is not None:
        # A reversed pair states no size to compare (SPEC §12.1: SIZE-MATCH
        # applies only when begin <= end).
        _check_size(state, name, dtype, shape, end - begin if in_order else None, where)
    if repeated:
        return
    # The entry still claims its bytes: keeping it in the tiling means one
    # fault in an entry does not also show up as a hole (see layout.py).
    header.table.add(name, dtype or "BOOL", shape or (), begin, end)
    header.where_kept.append(offsets_after)


def _check_size(  # noqa: PLR0913, PLR0917 - the fields of one entry
    state: Scan,
    name: str,
    dtype: str,
    shape: tuple[int, ...],
    nbytes: int | None,
    where: tuple[int, int],
) -> None:
    """Check the size rules of SPEC §7 in order (``nbytes`` None: no SIZE-MATCH)."""
    bits = _bit_count(dtype, shape)
    shape_pos, offsets_after = where
    if bits is None:
        if not state.report.full("SIZE-OVERFLOW", shape_pos):
            state.fault(
                "SIZE-OVERFLOW",
                shape_pos,
                f"{dtype} tensor of shape {_short(shape)} needs more than 2^64-1 bits",
                (name, "shape"),
            )
    elif bits % 8:
        if not state.report.full("SIZE-BITS", shape_pos):
            state.fault(
                "SIZE-BITS",
                shape_pos,
                f"{dtype} tensor of shape {_short(shape)} holds {bits} bits, "
                "expected a multiple of 8",
                (name, "shape"),
            )
    elif (
        nbytes is not None
        and bits // 8 != nbytes
        and not state.report.full("SIZE-MATCH", offsets_after - 1)
    ):
        state.fault(
            "SIZE-MATCH",
            offsets_after - 1,
            f"data_offsets span {nbytes} bytes, expected {bits // 8} for "
            f"{dtype} {_short(shape)}",
            (name, "data_offsets"),
        )


def _bit_count(dtype: str, shape: tuple[int, ...]) -> int | None:
    """Return the exact bit count, or None above 2^64-1 (spec SIZE-OVERFLOW).

    A zero dimension makes the tensor empty whatever the others are; ones
    change nothing; any other dimension at least doubles the count, so the
    loop stops within 64 steps and never builds a huge integer.
    """
    if 0 in shape:
        return 0
    count = BITS[dtype]
    for dim in filter((1).__ne__, shape):
        count *= dim
        if count > U64_MAX:
            return None
    return count


def _short(shape: tuple[int, ...]) -> str:
    text = str(list(shape[:20]))
    return text if len(text) <= 80 else text[:77] + "..."


def _kind(item: object) -> str:
    """Name a parsed JSON value's type the way the spec does."""
    if item is None:
        return "null"
    if isinstance(item, bool):
        return "a boolean"
    if isinstance(item, (int, Number)):
        return "a number"
    if isinstance(item, str):
        return "a string"
    if isinstance(item, list):
        return "an array"
    return "an object"


# __metadata__ ---------------------------------------------------------------


def metadata(state: Scan, pos: int, *, keep: bool) -> int:
    """Judge the ``__metadata__`` value at ``pos``; return its end."""
    src = state.src
    text = src.text
    if text[pos : pos + 1] != "{":
        return not_metadata(state, pos, skip(src, pos, 1, (METADATA_KEY,)))
    found: dict[str, str] = {}
    others: set[str] = set()  # names whose value is not a string
    pos, more = opening(text, pos, "}")
    while more:
        pos = metadata_member(state, pos, found, others)
        pos, more = next_member(text, pos, "}")
    if keep:
        state.header.metadata = found
    return pos


def not_metadata(state: Scan, pos: int, end: int) -> int:
    """Report the ``__metadata__`` value at ``pos`` (ending at ``end``): no object."""
    text = state.src.text
    path = (METADATA_KEY,)
    if text[pos : pos + 1] == "n" and end == pos + 4:
        state.fault("META-NULL", pos, "__metadata__ is null, expected an object", path)
    else:
        state.fault(
            "META-OBJECT",
            pos,
            f"__metadata__ is {kind(text, pos)}, expected an object of strings",
            path,
        )
    return end


def metadata_member(
    state: Scan, pos: int, metadata: dict[str, str], others: set[str]
) -> int:
    """Judge one metadata member the general way; return the end of its value."""
    src = state.src
    text = src.text
    path = (METADATA_KEY,)
    key_pos = pos
    pos, key = member_name(src, pos, path)
    repeated = key in metadata or key in others
    if repeated:
        duplicate(state, key, key_pos, path)
    if text[pos : pos + 1] == '"':
        value_pos = pos
        pos, item = string(src, pos)
        check_surrogates(src, item, value_pos, (METADATA_KEY, key))
        if not repeated:
            metadata[key] = item
        return pos
    others.add(key)
    if not state.report.full("META-STRING", pos):
        state.fault(
            "META-STRING",
            pos,
            f"metadata value for {shown(key)} is {kind(text, pos)}, expected a string",
            (METADATA_KEY, key),
        )
    return skip(src, pos, 2, (METADATA_KEY, key))
