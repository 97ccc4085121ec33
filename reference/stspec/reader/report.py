"""Collect violations with a bounded memory: a few per rule, a count of the rest."""

from __future__ import annotations

from stspec.errors import HeaderPath, SafetensorsError, Violations
from stspec.rules import MAX_HEADER_SIZE

# No typing at run time (start-up cost, see stspec/record.py); mypy reads this as True.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Final

# Rules judged while parsing: a fault that stops the parse keeps these and
# drops everything else, since the structure seen so far is incomplete.
PARSE_RULES: Final = frozenset(
    ("HEADER-LEADING-WS", "JSON-SYNTAX", "JSON-DEPTH", "JSON-SURROGATE", "KEY-UNIQUE")
)

# A violation is located in one of two coordinate systems:
# * a position: a character index into the decoded header text, where the
#   parser finds nearly every fault (Report.add, Report.full).  Positions are
#   turned into byte offsets once, at the end, in a single sweep (OffsetMap);
# * an offset: an absolute byte offset in the file, for facts outside the
#   decoded text: the length prefix, bytes that are not UTF-8, the byte
#   buffer (Report.add_at_offset, Report.full_at_offset).
# Offsets sort after every position: the buffer follows the header, and a
# fault in the prefix or the UTF-8 ends the check before any position is
# recorded.  Violations at one place keep the order they were found in.

# Sort keys of offsets start here, past the end of any header text.
_PAST_TEXT: Final = MAX_HEADER_SIZE + 1

# One kept violation: (sort key, sequence number, rule, message, header path,
# file offset, or None for a position).  The key is the position, or
# _PAST_TEXT plus the offset.
Record = tuple[int, int, str, str, HeaderPath, int | None]


class Report:
    """The violations of one file, at most ``limit`` kept per rule.

    Every violation is counted; only the first ``limit`` of each rule (by
    position) are kept with their message, so a header with millions of faults
    costs a counter per fault, not an error object and a message.
    """

    __slots__ = ("counts", "kept", "limit", "sequence", "worst")

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self.counts: dict[str, int] = {}
        self.kept: dict[str, list[Record]] = {}
        # The largest key kept for each full rule, to place a late arrival.
        self.worst: dict[str, int] = {}
        self.sequence = 0

    def full(self, rule: str, position: int) -> bool:
        """Count a violation that cannot be kept; False if it should be added.

        ``position`` is where it is in the header text.  Callers use this to
        skip building a message nobody will read.
        """
        if self.counts.get(rule, 0) < self.limit or position < self.worst[rule]:
            return False
        self.counts[rule] += 1
        return True

    def full_at_offset(self, rule: str, offset: int) -> bool:
        """:meth:`full` for a violation at a file ``offset``."""
        return self.full(rule, _PAST_TEXT + offset)

    def add(self, rule: str, position: int, msg: str, path: HeaderPath) -> None:
        """Record a violation at ``position`` in the header text."""
        self._record(rule, position, msg, path, None)

    def add_at_offset(
        self, rule: str, offset: int, msg: str, path: HeaderPath = ()
    ) -> None:
        """Record a violation at ``offset`` in the file, outside the header text."""
        self._record(rule, _PAST_TEXT + offset, msg, path, offset)

    def _record(
        self, rule: str, key: int, msg: str, path: HeaderPath, at: int | None
    ) -> None:
        count = self.counts.get(rule, 0)
        self.counts[rule] = count + 1
        kept = self.kept.setdefault(rule, [])
        self.sequence += 1
        record = (key, self.sequence, rule, msg, path, at)
        if count < self.limit:
            kept.append(record)
            if count + 1 == self.limit:
                self.worst[rule] = max(kept, key=_rank)[0]
            return
        if key < self.worst[rule]:
            # Violations mostly arrive in position order; one that does not
            # replaces the last kept one.
            kept.remove(max(kept, key=_rank))
            kept.append(record)
            self.worst[rule] = max(kept, key=_rank)[0]

    def __bool__(self) -> bool:
        return bool(self.counts)

    def keep_parse_faults_only(self) -> None:
        """Forget structural findings: the parse stopped, the model is partial."""
        for rule in list(self.counts):
            if rule not in PARSE_RULES:
                del self.counts[rule]
                self.kept.pop(rule, None)

    def errors(self, to_offset: OffsetMap) -> Violations:
        """Return the kept violations sorted by offset, with the rest counted."""
        records = sorted(
            (record for kept in self.kept.values() for record in kept),
            key=lambda record: record[:2],
        )
        found = Violations(
            SafetensorsError(
                rule, to_offset.offset(key) if at is None else at, msg, path
            )
            for key, _, rule, msg, path, at in records
        )
        found.omitted = {
            rule: count - len(self.kept[rule])
            for rule, count in sorted(self.counts.items())
            if count > len(self.kept[rule])
        }
        return found


def _rank(record: Record) -> tuple[int, int]:
    return record[0], record[1]


class OffsetMap:
    """Character positions in the header text -> absolute byte offsets.

    Positions must be asked for in increasing order: each call encodes only
    the text since the previous one, so converting any number of positions
    costs one pass over the header at most.
    """

    __slots__ = ("_byte", "_char", "_text", "base")

    def __init__(self, text: str, base: int) -> None:
        self.base = base
        self._text = None if text.isascii() else text
        self._char = 0
        self._byte = 0

    def offset(self, position: int) -> int:
        """Return the file offset of the character at ``position``."""
        if self._text is None:
            return self.base + position
        self._byte += len(
            self._text[self._char : position].encode("utf-8", "surrogatepass")
        )
        self._char = position
        return self.base + self._byte
