"""A strict, position-tracking JSON parser for the header (the authoritative path).

It accepts exactly RFC 8259 and reports, with character positions, the faults
the spec names at the JSON level: syntax (JSON-SYNTAX), nesting (JSON-DEPTH),
unpaired surrogate escapes (JSON-SURROGATE) and repeated member names
(KEY-UNIQUE).  It is iterative, so no input can exhaust the Python stack, and
it never converts a number token of more than 20 digits to an int.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import TYPE_CHECKING, Final

from stspec._rules import MAX_DEPTH

if TYPE_CHECKING:
    from collections.abc import Callable

Path = tuple[str | int, ...]

_WS: Final = re.compile(r"[ \t\n\r]*")
_NUMBER: Final = re.compile(r"-?(?:0|[1-9][0-9]*)(\.[0-9]+)?([eE][-+]?[0-9]+)?")
_SURROGATE: Final = re.compile("[\ud800-\udfff]")
# The C string scanner behind json; typeshed does not declare it.
_scanstring: Callable[[str, int, bool], tuple[str, int]] = json.decoder.scanstring  # type: ignore[attr-defined]
_LITERALS: Final = {"true": True, "false": False, "null": None}
# A tensor entry exactly as canonical writers emit it.  Matching it in one go
# keeps the strict path fast on large headers; anything else (whitespace,
# escapes, other field orders, long numbers) takes the general path, which
# accepts the same entries.
# A plain integer token of at most 20 digits: the only number converted to int.
_INT: Final = r"(?:0|[1-9][0-9]{0,19})"
_PLAIN_INT: Final = re.compile(_INT)
_CANONICAL_ENTRY: Final = re.compile(
    rf'\{{"dtype":"(?P<dtype>[^"\\\x00-\x1f]*)",'
    rf'"shape":\[(?P<shape>(?:{_INT}(?:,{_INT})*)?)\],'
    rf'"data_offsets":\[(?P<begin>{_INT}),(?P<end>{_INT})\]\}}'
)
# Positions are recorded for values this deep: the top-level members (1), the
# fields of an entry or metadata values (2) and the elements of shape and
# data_offsets (3).  Nothing deeper is ever reported.
_RECORDED_DEPTH: Final = 3


@dataclass(frozen=True, slots=True)
class Number:
    """A number token that is not a plain integer of at most 20 digits."""

    token: str

    @property
    def is_integer_token(self) -> bool:
        """Whether the token is a non-negative integer (only too long)."""
        return self.token.isdigit()


@dataclass(frozen=True, slots=True)
class Fault:
    """A JSON-level rule violation at a character position of the text."""

    rule: str
    pos: int
    msg: str
    path: Path = ()


@dataclass(slots=True)
class Parsed:
    """The result of parsing the header object.

    members: the top-level (name, value) pairs in file order, duplicates kept
    positions: character position of every recorded value, keyed by path;
        top-level paths start with the member index, e.g. (3, "shape", 0)
    text: the header text; positions inside canonical entries are not
        recorded but derived from it on demand (see :meth:`position`)
    faults: JSON-level violations, in text order
    end: position just past the closing brace (0 if parsing stopped)
    complete: False when a fault stopped the parse (the model is partial)
    """

    members: list[tuple[str, object]]
    positions: dict[Path, int]
    text: str
    faults: list[Fault]
    end: int = 0
    complete: bool = True

    def position(self, path: Path) -> int:
        """Return the character position of the value at ``path``."""
        if path in self.positions:
            return self.positions[path]
        # Inside a canonical entry: matched again, only for the values a
        # violation names, so that clean entries cost no bookkeeping.
        entry = _CANONICAL_ENTRY.match(self.text, self.positions[path[:1]])
        assert entry is not None  # noqa: S101 - it matched while parsing
        field = path[1]
        if field == "dtype":
            return entry.start("dtype") - 1
        if field == "shape":
            if len(path) == 2:
                return entry.start("shape") - 1
            dims = entry.group("shape").split(",")
            index = path[2]
            assert isinstance(index, int)  # noqa: S101 - shape elements are indexed
            return entry.start("shape") + sum(len(dim) + 1 for dim in dims[:index])
        if len(path) == 2:
            return entry.start("begin") - 1
        return entry.start("end") if path[2] else entry.start("begin")


class _Stop(Exception):  # noqa: N818 - internal control flow, never escapes
    pass


class _Parser:
    def __init__(self, text: str, start: int) -> None:
        self.text = text
        self.start = start
        self.result = Parsed([], {}, text, [])

    def fault(self, rule: str, pos: int, msg: str, path: Path = ()) -> None:
        self.result.faults.append(Fault(rule, pos, msg, path))

    def stop(self, rule: str, pos: int, msg: str) -> _Stop:
        self.fault(rule, pos, msg)
        self.result.complete = False
        return _Stop()

    def ws(self, pos: int) -> int:
        match = _WS.match(self.text, pos)
        assert match is not None  # noqa: S101 - the pattern matches the empty string
        return match.end()

    def string(self, pos: int, path: Path) -> tuple[int, str]:
        try:
            value, end = _scanstring(self.text, pos + 1, True)
        except json.JSONDecodeError as exc:
            raise self.stop("JSON-SYNTAX", exc.pos, f"bad string: {exc.msg}") from None
        if _SURROGATE.search(value):
            self.fault(
                "JSON-SURROGATE",
                pos,
                "string holds an unpaired surrogate escape, expected only "
                "Unicode scalar values",
                path,
            )
        return end, value

    def number(self, pos: int) -> tuple[int, object]:
        match = _NUMBER.match(self.text, pos)
        if match is None:
            raise self.stop(
                "JSON-SYNTAX",
                pos,
                f"unexpected {self.text[pos : pos + 1]!r}, expected a JSON value",
            )
        token = match.group()
        if _PLAIN_INT.fullmatch(token):
            return match.end(), int(token)
        return match.end(), Number(token)

    def scalar(self, pos: int, path: Path) -> tuple[int, object]:
        char = self.text[pos : pos + 1]
        if char == '"':
            return self.string(pos, path)
        for word, value in _LITERALS.items():
            if self.text.startswith(word, pos):
                return pos + len(word), value
        return self.number(pos)

    def parse(self) -> Parsed:
        """Parse the object that starts at position 0 (the caller checked `{`)."""
        try:
            self.result.end = self._parse_object_tree()
        except _Stop:
            self.result.end = 0
        return self.result

    def _parse_object_tree(self) -> int:
        text = self.text
        root = self.result.members
        # A frame is (container, its path, the member names seen so far); the
        # names are None for arrays.  The root object is a list of pairs so that
        # repeated tensor names survive for the reader to judge.
        stack: list[tuple[list[object] | dict[str, object], Path, set[str] | None]]
        stack = [(root, (), set())]  # type: ignore[list-item]
        pos = self.start + 1
        first = True
        while stack:
            container, path, seen = stack[-1]
            closer = "]" if seen is None else "}"
            pos = self.ws(pos)
            char = text[pos : pos + 1]
            if char == closer:
                stack.pop()
                pos += 1
                first = False
                continue
            if not first:
                pos = self.separator(pos, closer)
            first = False
            key = None
            if seen is None:
                child_path: Path = (*path, len(container))
            else:
                pos, key, child_path = self.member_name(pos, path, seen)
            if len(child_path) <= _RECORDED_DEPTH:
                self.result.positions.setdefault(child_path, pos)
            char = text[pos : pos + 1]
            if char == "{" and not path:
                entry = _CANONICAL_ENTRY.match(text, pos)
                if entry is not None:
                    _attach(container, key, _canonical_value(entry))
                    pos = entry.end()
                    continue
            if char in ("{", "["):
                if len(stack) >= MAX_DEPTH:
                    raise self.stop(
                        "JSON-DEPTH", pos, f"nesting exceeds {MAX_DEPTH} levels"
                    )
                child: list[object] | dict[str, object] = {} if char == "{" else []
                _attach(container, key, child)
                stack.append((child, child_path, set() if char == "{" else None))
                pos += 1
                first = True
                continue
            pos, value = self.scalar(pos, child_path)
            _attach(container, key, value)
        return pos

    def separator(self, pos: int, closer: str) -> int:
        """Step over the ',' between two values; return the next value's start."""
        text = self.text
        char = text[pos : pos + 1]
        if char != ",":
            raise self.stop(
                "JSON-SYNTAX", pos, f"unexpected {char!r}, expected ',' or {closer!r}"
            )
        pos = self.ws(pos + 1)
        if text[pos : pos + 1] == closer:
            raise self.stop(
                "JSON-SYNTAX",
                pos,
                f"trailing comma before {closer!r}, expected a value",
            )
        return pos

    def member_name(
        self, pos: int, path: Path, seen: set[str]
    ) -> tuple[int, str, Path]:
        """Parse ``"name":`` and return the position of the value after it."""
        text = self.text
        if text[pos : pos + 1] != '"':
            raise self.stop(
                "JSON-SYNTAX",
                pos,
                f"unexpected {text[pos : pos + 1]!r}, expected a member name",
            )
        # Top-level members are addressed by index: names may repeat there.
        child_path = path or (len(self.result.members),)
        key_pos = pos
        pos, key = self.string(pos, child_path)
        if key in seen:
            self.fault(
                "KEY-UNIQUE",
                key_pos,
                f"member name {key!r} appears twice in one object",
                path,
            )
        seen.add(key)
        pos = self.ws(pos)
        if text[pos : pos + 1] != ":":
            raise self.stop(
                "JSON-SYNTAX",
                pos,
                f"unexpected {text[pos : pos + 1]!r}, expected ':'",
            )
        if path:
            child_path = (*path, key)
        return self.ws(pos + 1), key, child_path


def _canonical_value(entry: re.Match[str]) -> dict[str, object]:
    """Build the value of a matched canonical entry (positions are derived)."""
    dims = entry.group("shape")
    return {
        "dtype": entry.group("dtype"),
        "shape": [int(dim) for dim in dims.split(",")] if dims else [],
        "data_offsets": [int(entry.group("begin")), int(entry.group("end"))],
    }


def _attach(
    container: list[object] | dict[str, object], key: str | None, value: object
) -> None:
    if isinstance(container, list):
        container.append(value if key is None else (key, value))
    elif key not in container:
        # Inside entries and metadata the first occurrence is kept; the repeat
        # was already reported as KEY-UNIQUE.
        container[key] = value  # type: ignore[index]


def parse_object(text: str, start: int = 0) -> Parsed:
    """Parse the JSON object whose ``{`` is at ``text[start]``.

    Parsing stops at the object's closing brace; the caller judges what follows.
    """
    return _Parser(text, start).parse()
