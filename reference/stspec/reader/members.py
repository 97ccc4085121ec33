"""The shortcuts' member judges: entries and metadata the plain way, faster.

FastScan extends the plain path's Scan with what the shortcuts and
read()'s first-violation mode need; its judge_* hooks take an entry or
the metadata with the recognisers (recognise.py) and the C decoder
(values.py) where they can, member by member where they cannot.
"""

from __future__ import annotations

from functools import cache
from itertools import islice
from operator import eq, gt

from stspec.dtypes import BITS, bit_count
from stspec.reader import strict_json
from stspec.reader.first import FirstViolation, decided
from stspec.reader.header import (
    FIELDS,
    METADATA_KEY,
    Header,
    Scan,
    duplicate,
    judge_fields,
    metadata_member,
    not_an_entry,
    not_metadata,
    read_field,
    unknown_member,
)
from stspec.reader.recognise import (
    between_names,
    control_chars,
    fields_head,
    int_array,
    last_member,
    offsets_value,
    one_flat_object,
    over_u64,
    plain_member,
    plain_run,
    string_pair,
)
from stspec.reader.strict_json import (
    PLAIN_STRING,
    Number,
    Path,
    Text,
    check_surrogates,
    member_name,
    next_member,
    opening,
    skip,
    string,
    syntax,
    trailing_comma,
)
from stspec.reader.values import (
    Doubt,
    FastText,
    array_to_count,
    entry_decoder,
)
from stspec.rules import U64_MAX

# No typing at run time (start-up cost, see stspec/record.py); mypy reads this as True.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from array import array
    from types import ModuleType
    from typing import Final

    from stspec.reader.report import Report


__all__ = [
    "BULK_MIN_LENGTH",
    "FastHeader",
    "FastScan",
    "count_more",
    "element_rule",
    "load_bulk",
    "saturated",
]


# Headers shorter than this (three or four entries) go member by member:
# the bulk way would not pay for loading it (a module and three patterns,
# about 2 % of a one-file check's start-up).
BULK_MIN_LENGTH: Final = 256


@cache
def load_bulk() -> ModuleType:
    """Import reader/bulk.py on first use (start-up cost)."""
    from stspec.reader import bulk  # noqa: PLC0415 - on first use (start-up)

    return bulk


_FEW_MEMBERS: Final = 5
# Unknown members are split this many characters at a time: the pieces of a
# chunk, not of the whole entry, are held at once.
_SPLIT_CHUNK: Final = 1 << 16
# How many names of a chunk are checked against those before them at once.
_ADDED_AT_ONCE: Final = 8192
# Stretches of members shorter than this (characters) that end an entry go
# chunk by chunk all the same: their names are few, and a small set is cheap.
_CLOSING_MIN: Final = 1 << 16
# Names in fewer ascending runs than this are sorted to find a repeat: the
# merge costs a few passes over them, less than a hash table's cache miss
# per name (see _Distinct).
_FEW_RUNS: Final = 8
# The fields' names as they appear in a text with no escape.
_QUOTED_FIELDS: Final = tuple(f'"{field}"' for field in FIELDS)


class FastHeader(Header):
    """A Header whose entries taken in bulk find their positions when asked."""

    __slots__ = ("bulk_runs",)

    def __init__(self) -> None:
        super().__init__()
        # Positions of the entries taken one by one; 0 for those taken in
        # bulk, whose positions are found again only if asked for (a tensor
        # that ends past the buffer): (text, first row, rows, text position).
        self.bulk_runs: list[tuple[str, int, int, int]] = []

    @property
    def where(self) -> array[int]:
        """Per table entry, a position just past its data_offsets' ``[``."""
        where = self.where_kept
        for text, row, rows, pos in self.bulk_runs:
            where[row : row + rows] = load_bulk().positions(text, pos, rows)
        self.bulk_runs.clear()
        return where


class FastScan(Scan):
    """The state of one scan, with what the shortcuts and read() need."""

    __slots__ = (
        "bulk_from",
        "first",
        "first_only",
        "shortcuts",
        "split_close",
        "split_from",
    )
    header: FastHeader

    def __init__(
        self, src: Text, report: Report, buffer_length: int, *, first_only: bool
    ) -> None:
        super().__init__(src, report, FastHeader())
        # What read()'s first-violation mode follows (reader/first.py).
        self.first = FirstViolation(report, self.header.table, buffer_length)
        self.first_only = first_only
        # Without the shortcuts (a plain Text), the scan goes the plain way
        # member by member, for read()'s first violation.
        self.shortcuts = isinstance(src, FastText)
        # Before this position, taking entries in bulk is not tried again.
        length = len(src.text)
        self.bulk_from = 0 if length >= BULK_MIN_LENGTH else length + 1
        # Before this position, splitting unknown members is not tried again.
        self.split_from = 0
        # Where the stretch of members being split ends (its first "}").
        self.split_close = 0

    def judge_entry(self, name: str, pos: int, *, repeated: bool) -> int:
        """Judge the tensor entry value at ``pos``; return its end."""
        src = self.src
        if not repeated and isinstance(src, FastText):
            end = _sound_entry(self, src, name, pos)
            if end >= 0:
                return end
        return _entry(self, name, pos, repeated=repeated)

    def judge_metadata(self, pos: int, *, keep: bool) -> int:
        """Judge the ``__metadata__`` value at ``pos``; return its end."""
        return _metadata(self, pos, keep=keep)

    def judge_integers(
        self, path: Path, pos: int, item: object, elements: array[int] | None
    ) -> tuple[int, ...] | None:
        """Judge a shape or data_offsets value at ``pos`` (see header.integers).

        Without ``elements`` the array was read without positions (see
        _counted_only): its bad elements are only counted.
        """
        if (
            elements is not None
            or type(item) is not list
            or (path[1] == "data_offsets" and len(item) != 2)
        ):
            return super().judge_integers(path, pos, item, elements)
        rule = "SHAPE-ARRAY" if path[1] == "shape" else "OFFSETS-PAIR"
        good = True
        for element in item:
            if type(element) is not int or element > U64_MAX:
                good = False
                count_more(self.report, element_rule(element, rule), 1)
        return tuple(item) if good else None


def _entry(state: FastScan, name: str, pos: int, *, repeated: bool) -> int:
    """Judge the entry value at ``pos`` as header.entry does; return its end."""
    src = state.src
    text = src.text
    report = state.report
    if text[pos : pos + 1] != "{":
        # A fault inside the value is no first violation: ENTRY-OBJECT at
        # the value and the name's surrogate come before it, found after.
        state.first.in_entry = True
        end = skip(src, pos, 1, (name,))
        state.first.in_entry = False
        return not_an_entry(state, name, pos, end)
    entry_pos = pos
    state.first.in_entry = True
    fields: dict[str, tuple[int, object, array[int] | None]] = {}
    seen: set[str] = set()
    bulk_from = pos  # where a run of plain members may be taken in one go
    pos, more = opening(text, pos, "}")
    pos = _fields_first(state, entry_pos, fields, seen) or pos
    while more:
        if (
            pos >= bulk_from
            # Runs worth taking in bulk are long: an entry with one or two
            # unknown members (nested values, say) goes member by member.
            and len(seen) > _FEW_MEMBERS
            and state.shortcuts
            and saturated(report, "ENTRY-UNKNOWN", pos)
        ):
            bulk_from = _plain_members(state, seen, pos)
            if bulk_from < 0:
                pos = -bulk_from
                continue
        key_pos = pos
        pos, key = member_name(src, pos, (name,))
        path = (name, key)
        if key in seen:
            duplicate(state, key, key_pos, (name,))
            pos = skip(src, pos, 2, path)
        elif key in FIELDS:
            seen.add(key)
            plain = _plain_field(text, pos, key) if state.shortcuts else None
            if (
                plain is None
                and key != "dtype"
                and isinstance(src, FastText)
                and _counted_only(report, pos, key)
            ):
                plain = array_to_count(src, pos)
                if plain is not None and _numbers_to_locate(report, pos, plain[1]):
                    plain = None
            if plain is not None:
                end, item = plain
                fields[key] = (pos, item, None)
                pos = end
            else:
                pos = read_field(state, key, pos, path, fields)
        else:
            seen.add(key)
            pos = unknown_member(state, name, key, pos)
        pos, more = next_member(text, pos, "}")
    state.first.in_entry = False
    judge_fields(state, name, entry_pos, fields, repeated=repeated)
    return pos


def _fields_first(
    state: FastScan,
    pos: int,
    fields: dict[str, tuple[int, object, array[int] | None]],
    seen: set[str],
) -> int:
    """Read the entry's three fields at once when they come first, canonical.

    For an entry with more members after them (unknown ones, a repeat):
    the fields hold no fault of their own when the pattern takes them (a
    plain dtype, integers up to 2^64-1), so they go into ``fields`` as
    _plain_field would put them.  Returns where the next member starts,
    or 0 when the entry starts otherwise (or the shortcuts are off).
    """
    text = state.src.text
    # The arrays are the third level (header, entry, field), as in _plain_field.
    deep_enough = state.shortcuts and strict_json.MAX_DEPTH >= 3
    found = fields_head().match(text, pos) if deep_enough else None
    if found is None or text[found.end() : found.end() + 1] in ("}", ""):
        return 0  # a trailing comma, or the text's end, is the parser's to report
    dtype, shape, begin, end = found.groups()
    over = over_u64()
    if (
        (len(shape) >= 20 and over.search(shape))
        or over.fullmatch(begin)
        or over.fullmatch(end)
    ):
        return 0
    fields["dtype"] = (found.start(1) - 1, dtype, None)
    sizes = list(map(int, shape.split(","))) if shape else []
    fields["shape"] = (text.rfind("[", 0, found.start(2)), sizes, None)
    offsets = [int(begin), int(end)]
    fields["data_offsets"] = (text.rfind("[", 0, found.start(3)), offsets, None)
    seen.update(FIELDS)
    return found.end()


def _sound_entry(state: FastScan, src: FastText, name: str, pos: int) -> int:
    """Take an entry that breaks no rule, its fields in any order, or return -1.

    For entries the canonical pattern misses: fields in another order
    (json.dumps(sort_keys=True)) or names spelt with escapes.  The C decoder
    reads the object; an entry is taken only when it holds exactly the
    three fields, once each, a dtype name, integers in 0..2^64-1, two
    offsets in order whose span is the tensor's size: every check of
    header.entry passes.  Anything else (-1) goes header.entry's way, which
    reports it.
    """
    text = src.text
    # The cheap test first: the nesting bound reads the whole header.
    if text[pos : pos + 1] != "{" or not one_flat_object(text, pos) or not src.shallow:
        return -1
    try:
        pairs, end = entry_decoder().raw_decode(text, pos)
    except (ValueError, RecursionError, Doubt):
        return -1
    fields = dict(pairs)
    if len(pairs) != 3 or fields.keys() != FIELDS:
        return -1
    dtype, shape, offsets = fields["dtype"], fields["shape"], fields["data_offsets"]
    if (
        type(dtype) is not str
        or dtype not in BITS
        or type(shape) is not list
        or type(offsets) is not list
        or len(offsets) != 2
        or not all(type(n) is int and n <= U64_MAX for n in (*shape, *offsets))
    ):
        return -1
    begin, stop = offsets
    bits = bit_count(dtype, shape)
    if begin > stop or bits > U64_MAX or bits & 7 or bits >> 3 != stop - begin:
        return -1
    header = state.header
    header.table.add(name, dtype, shape, begin, stop)
    header.where_kept.append(offsets_value(text, pos, end) + 1)
    return end


def element_rule(element: object, rule: str) -> str:
    """Name the rule a bad array element breaks: a number's, else ``rule``."""
    if type(element) is int:
        return "NUM-RANGE"
    if isinstance(element, Number):
        return "NUM-RANGE" if element.is_integer_token else "NUM-INTEGER"
    return rule


def saturated(report: Report, rule: str, key: int) -> bool:
    """Whether no violation of ``rule`` at ``key`` or later would be kept."""
    return report.counts.get(rule, 0) >= report.limit and key >= report.worst[rule]


def count_more(report: Report, rule: str, count: int) -> None:
    """Count violations of a saturated rule that need no record."""
    report.counts[rule] += count


def _counted_only(report: Report, pos: int, key: str) -> bool:
    """Whether no element at ``pos`` on of the wrong type would be kept."""
    return saturated(report, "SHAPE-ARRAY" if key == "shape" else "OFFSETS-PAIR", pos)


def _numbers_to_locate(report: Report, pos: int, item: list[object]) -> bool:
    """Whether some number in ``item`` breaks a rule that still keeps faults."""
    return any(
        ((type(element) is int and element > U64_MAX) or type(element) is Number)
        and not saturated(report, element_rule(element, ""), pos)
        for element in item
    )


def _plain_field(text: str, pos: int, key: str) -> tuple[int, object] | None:
    """Read a field value that can hold no fault of its own, or return None.

    A dtype without escapes, or an array of integers none of which exceeds
    2^64-1 (two for data_offsets): the faults left (a wrong dtype, a size)
    need no element positions.
    """
    if key == "dtype":
        found = PLAIN_STRING.match(text, pos)
        return None if found is None else (found.end(), found.group(1))
    # The array is the third level (header, entry, field), as JSON-DEPTH counts.
    found = int_array().match(text, pos) if strict_json.MAX_DEPTH >= 3 else None
    if found is None or over_u64().search(text, *found.span(1)):
        return None
    tokens = found.group(1)
    numbers = list(map(int, tokens.split(","))) if tokens else []
    if key == "data_offsets" and len(numbers) != 2:
        return None
    return found.end(), numbers


def _plain_members(state: FastScan, seen: set[str], pos: int) -> int:
    """Count a run of plain unknown members at ``pos``.

    Returns minus the position after the run when it was taken; else the
    position from which to try again (the run holds a field or a repeated
    name, so its members go one by one).
    """
    text = state.src.text
    taken = _scalar_members(state, seen, pos)
    if taken is not None:
        return taken
    run = plain_run().match(text, pos)
    if run is None:
        return pos + 1
    end = run.end()
    if text[end : end + 1] == "}":
        # The run's last comma is a trailing one: the members go one by one,
        # so that the parser reports it as it would (JSON-SYNTAX).
        return end
    if state.first_only and decided(state.report):
        # read() wants neither the count nor repeats among these (a repeat
        # lies after the first violation; should a later fault void that,
        # the file is checked again in full): only whether a field hides here.
        chunk = text[pos:end]
        field = '"dtype"' in chunk or '"shape"' in chunk or '"data_offsets"' in chunk
        return end if field else -end
    names = plain_member().findall(text, pos, end)
    fresh = set(names)
    if len(fresh) != len(names) or not seen.isdisjoint(fresh) or fresh & FIELDS:
        return end
    seen |= fresh
    count_more(state.report, "ENTRY-UNKNOWN", len(names))
    return -end


def _scalar_members(state: FastScan, seen: set[str], pos: int) -> int | None:
    """Take unknown members from ``pos`` on at C speed, a chunk at a time.

    For members whose values are numbers, true, false or null, the common
    hostile shape (millions of them in one entry): the text up to the first
    ``}`` is split at its quotes, _SPLIT_CHUNK characters at a time, so that
    the names and what lies between them come out of string methods, not of
    a regular expression per member.  The last member before the ``}`` is
    left to the caller, which ends the object.  Returns what _plain_members
    does, or None when the text is anything else (a string value, an
    escape, a nested value, a field, a repeat), for the regular expressions
    to take; a stretch is not tried again after that.  A stretch that ends
    the entry is first tried whole (_closing_run).
    """
    text = state.src.text
    if pos < state.split_from:
        return None
    if pos >= state.split_close:
        found = text.find("}", pos)
        state.split_close = found if found >= 0 else len(text)
        if state.split_close - pos >= _CLOSING_MIN and not (
            state.first_only and decided(state.report)
        ):
            taken = _closing_run(state, seen, pos, state.split_close)
            if taken is not None:
                return taken
    close = state.split_close
    # Up to the opening quote of a member: the pieces stay whole.
    end = text.rfind(',"', pos, min(close, pos + _SPLIT_CHUNK)) + 1
    taken = _split_run(state, seen, pos, end) if end > pos else None
    if taken is None:
        state.split_from = close
    return taken


def _closing_run(state: FastScan, seen: set[str], pos: int, close: int) -> int | None:
    """Take the members from ``pos`` to the entry's end but the last, or return None.

    When the stretch up to ``close`` (its first ``}``) holds only members
    _plain_names takes, and a last one with a plain name and a scalar,
    ``close`` ends the entry: after that last member, whose name the caller
    reads, no name is looked up in ``seen``.  So the names, the last one's
    included, are checked for a repeat all at once (_Distinct) and stay out
    of ``seen``.  Returns what _plain_members does, or None for _split_run
    to take the stretch chunk by chunk (a repeat among them included).
    """
    text = state.src.text
    last = text.rfind(',"', pos, close) + 1
    tail = last_member().fullmatch(text, last, close) if last > pos else None
    if tail is None or tail.group(1) in FIELDS:
        return None
    names = _Distinct()
    at = pos
    while at < last:
        # Up to the opening quote of a member, as in _scalar_members.
        end = text.rfind(',"', at, min(last + 1, at + _SPLIT_CHUNK)) + 1
        some = _plain_names(text, at, end) if end > at else None
        if some is None or not names.add(some):
            return None
        at = end
    if not names.add([tail.group(1)]) or not names.none_in(seen):
        return None
    count_more(state.report, "ENTRY-UNKNOWN", names.count - 1)
    return -last


class _Distinct:
    """Names none of which repeats, held as cheaply as their order allows.

    While they come in a few ascending runs (as a counter writes them: ``k9``
    before ``k10``), they are listed, and sorting merges the runs at a few
    passes over them; after that, they go into a set, which costs a cache
    miss per name once it is large, several times what the merge costs.
    """

    __slots__ = ("count", "hashed", "listed", "runs")

    def __init__(self) -> None:
        self.listed: list[str] = []
        self.hashed: set[str] | None = None
        self.runs = 1
        self.count = 0

    def add(self, names: list[str]) -> bool:
        """Add ``names``; False when one repeats (listed ones: see none_in)."""
        self.count += len(names)
        listed, hashed = self.listed, self.hashed
        if hashed is not None:
            before = len(hashed)
            hashed.update(names)
            return len(hashed) - before == len(names)
        if listed and names and listed[-1] > names[0]:
            self.runs += 1
        self.runs += sum(map(gt, names, islice(names, 1, None)))
        listed += names
        if self.runs < _FEW_RUNS:
            return True
        self.hashed = set(listed)
        self.listed = []
        return len(self.hashed) == self.count

    def none_in(self, seen: set[str]) -> bool:
        """Whether no name is in ``seen`` and, when listed, none repeats."""
        if self.hashed is not None:
            return self.hashed.isdisjoint(seen)
        from bisect import bisect_left  # noqa: PLC0415 - on first use (start-up)

        names = self.listed
        names.sort()
        if any(map(eq, names, islice(names, 1, None))):
            return False
        for name in seen:
            at = bisect_left(names, name)
            if at < len(names) and names[at] == name:
                return False
        return True


def _split_run(state: FastScan, seen: set[str], pos: int, end: int) -> int | None:
    """Take the members in ``pos..end`` for _scalar_members, or return None.

    ``text[end]`` is the opening quote of the member after them; each of
    them ends with its comma.  ``seen`` receives their names.
    """
    names = _plain_names(state.src.text, pos, end)
    if names is None:
        return None
    if state.first_only and decided(state.report):
        # As in _plain_members: only whether a field hides here.
        return -end
    if not _add_new(seen, names):
        return None
    count_more(state.report, "ENTRY-UNKNOWN", len(names))
    return -end


def _plain_names(text: str, pos: int, end: int) -> list[str] | None:
    """Return the names of the members in ``pos..end`` (see _split_run).

    None when one is not an unknown member with a plain name and a scalar.
    """
    if text[pos] != '"':  # pragma: no cover - callers start at a member's quote
        return None
    # The text from the first name on, with the quote after the last comma:
    # name, what follows it (with the next quote), name, ...
    body = text[pos + 1 : end + 1]
    if "\\" in body or "{" in body or "[" in body or control_chars(body):
        return None
    names = _names(body)
    if names is None:
        return None
    if "\t" in body or "\n" in body or "\r" in body:
        joined = "".join(names)
        if "\t" in joined or "\n" in joined or "\r" in joined:
            return None  # whitespace allowed between the tokens, not in a name
    # No quote is left but around the names: a field is among them exactly
    # when its quoted name is in the text.
    if any(text.find(field, pos, end + 1) >= 0 for field in _QUOTED_FIELDS):
        return None
    return names


def _add_new(seen: set[str], names: list[str]) -> bool:
    """Add ``names`` to ``seen`` if none repeats; else leave ``seen`` as it was.

    Checked, then added, a few thousand at a time: the part of ``seen`` the
    check touches is still in the cache when they are added.
    """
    for at in range(0, len(names), _ADDED_AT_ONCE):
        some = names[at : at + _ADDED_AT_ONCE]
        if not seen.isdisjoint(some):
            seen.difference_update(names[:at])
            return False
        before = len(seen)
        seen.update(some)
        if len(seen) - before != len(some):
            # Repeated among these, none of which was in ``seen``.
            seen.difference_update(names[: at + len(some)])
            return False
    return True


def _names(body: str) -> list[str] | None:
    """Split ``body`` (see _split_run) into the names, or return None.

    What follows each name must be ``:``, a scalar and ``,`` (with any
    whitespace).  Hostile headers repeat one such piece (``":0,"``):
    splitting at it yields the names alone, and when every quote went with
    a separator, there was no other piece.
    """
    close = body.find('"')
    after = body.find('"', close + 1)
    if after < 0:  # pragma: no cover - text[end] is a member's opening quote
        return None
    separator = body[close : after + 1]
    names = body.split(separator)
    # Each name brings two quotes (the body holds the first one's closing
    # quote and the next member's opening one), so a single separator
    # accounts for them all; members with different pieces between them
    # (other values, other spacing) are left to the regular expressions.
    if names[-1] != "" or body.count('"') != 2 * (len(names) - 1):
        return None
    names.pop()
    return names if between_names().fullmatch(separator[1:-1]) else None


def _metadata(state: FastScan, pos: int, *, keep: bool) -> int:  # noqa: C901
    """Judge the ``__metadata__`` value at ``pos`` as header.metadata does."""
    src = state.src
    text = src.text
    path = (METADATA_KEY,)
    char = text[pos : pos + 1]
    if char != "{":
        state.first.in_entry = True  # META-OBJECT/-NULL come first, found after
        end = skip(src, pos, 1, path)
        state.first.in_entry = False
        return not_metadata(state, pos, end)
    metadata: dict[str, str] = {}
    others: set[str] = set()  # names whose value is not a string
    pos, more = opening(text, pos, "}")
    while more:
        found = string_pair(src, pos) if state.shortcuts else None
        if found is not None:
            key, item, item_pos, comma, end = found
            if "\\" in key:
                key = string(src, pos)[1]
            if key in metadata or key in others:
                found = None  # the general way reports the repeat
        if found is None:
            pos = metadata_member(state, pos, metadata, others)
            pos, more = next_member(text, pos, "}")
            continue
        check_surrogates(src, key, pos, path)
        check_surrogates(src, item, item_pos, (METADATA_KEY, key))
        metadata[key] = item
        pos = end
        if not comma:
            if text[pos : pos + 1] != "}":
                raise syntax(text, pos, "',' or '}'")
            pos += 1
            break
        if text[pos : pos + 1] == "}":
            raise trailing_comma(pos, "}")
    if keep:
        state.header.metadata = metadata
    return pos
