"""A strict reader written from spec/SPEC.md alone, following §12.2 step by step.

It exists to test the specification, not to be used: it imports nothing from
the reference (``stspec``) or the corpus, takes the dtype table from SPEC.md
itself, and does what the numbered steps of §12.2 say, in their order,
stopping at the first MUST rule found.  tests/spec/test_precedence.py runs the
corpus through it with the judgement of the conformance suite's
``--check-rules``: a reader that follows the spec's own algorithm must name
the rule each invalid case names.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Final

SPEC: Final = Path(__file__).resolve().parents[2] / "spec" / "SPEC.md"
LIMIT: Final = 100_000_000
U64_MAX: Final = 2**64 - 1
DEEPEST: Final = 127
WHITESPACE: Final = " \t\n\r"
_WHITESPACE_CHARS: Final = frozenset(WHITESPACE)
FIELDS: Final = ("dtype", "shape", "data_offsets")
_ESCAPES: Final = {
    '"': '"',
    "\\": "\\",
    "/": "/",
    "b": "\b",
    "f": "\f",
    "n": "\n",
    "r": "\r",
    "t": "\t",
}
_PLAIN: Final = re.compile(r'[^"\\\x00-\x1f]*')
_NUMBER: Final = re.compile(r"-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?")
_INTEGER_TOKEN: Final = re.compile(r"0|[1-9][0-9]*")
_SPACES: Final = re.compile(r"[ \t\n\r]*")
_SIMPLE_STRING: Final = re.compile(r'"([^"\\\x00-\x1f]*)"')


@cache
def dtype_bits() -> dict[str, int]:
    """The dtype names and widths of SPEC.md §6's table."""
    section = SPEC.read_text("utf-8").split("## 6 Dtypes", 1)[1].split("\n## ", 1)[0]
    rows = re.findall(r"^\| `(\w+)` \| (\d+) \|", section, re.MULTILINE)
    return {name: int(bits) for name, bits in rows}


class Finding(Exception):  # noqa: N818 - a MUST finding, not an error of this code
    """The first MUST rule found: the reader stops here (§12.1)."""

    def __init__(self, rule: str) -> None:
        super().__init__(rule)
        self.rule = rule


@dataclass(frozen=True)
class Number:
    """A JSON number, kept as its token (NUM-INTEGER is lexical)."""

    token: str


class Members(list[tuple[str, object]]):
    """A JSON object: its members in header order (an array is a plain list)."""

    __slots__ = ()


@dataclass
class Result:
    """The first MUST rule found (None: not invalid) and the MAY rules found."""

    rule: str | None
    tolerated: list[str] = field(default_factory=list)

    @property
    def verdict(self) -> str:
        if self.rule is not None:
            return "invalid"
        return "tolerated" if self.tolerated else "valid"


@dataclass
class _Parser:
    text: str
    pos: int = 0

    def spaces(self) -> None:
        if self.text[self.pos : self.pos + 1] in _WHITESPACE_CHARS:
            self.pos = _SPACES.match(self.text, self.pos).end()  # type: ignore[union-attr]

    def value(self, depth: int) -> object:
        self.spaces()
        char = self.text[self.pos : self.pos + 1]
        if char in {"{", "["}:
            if depth + 1 > DEEPEST:
                raise Finding("JSON-DEPTH")
            return self.obj(depth + 1) if char == "{" else self.array(depth + 1)
        if char == '"':
            return self.string()
        for literal, meaning in (("true", True), ("false", False), ("null", None)):
            if self.text.startswith(literal, self.pos):
                self.pos += len(literal)
                return meaning
        match = _NUMBER.match(self.text, self.pos)
        if match is None:
            raise Finding("JSON-SYNTAX")
        self.pos = match.end()
        return Number(match.group())

    def obj(self, depth: int) -> Members:
        self.pos += 1  # the {
        members = Members()
        names: set[str] = set()
        self.spaces()
        if self.text.startswith("}", self.pos):
            self.pos += 1
            return members
        while True:
            self.spaces()
            if not self.text.startswith('"', self.pos):
                raise Finding("JSON-SYNTAX")
            name = self.string()
            if name in names:
                raise Finding("KEY-UNIQUE")
            names.add(name)
            self.spaces()
            if not self.text.startswith(":", self.pos):
                raise Finding("JSON-SYNTAX")
            self.pos += 1
            members.append((name, self.value(depth)))
            self.spaces()
            char = self.text[self.pos : self.pos + 1]
            self.pos += 1
            if char == "}":
                return members
            if char != ",":
                raise Finding("JSON-SYNTAX")

    def array(self, depth: int) -> list[object]:
        self.pos += 1  # the [
        items: list[object] = []
        self.spaces()
        if self.text.startswith("]", self.pos):
            self.pos += 1
            return items
        while True:
            items.append(self.value(depth))
            self.spaces()
            char = self.text[self.pos : self.pos + 1]
            self.pos += 1
            if char == "]":
                return items
            if char != ",":
                raise Finding("JSON-SYNTAX")

    def string(self) -> str:
        simple = _SIMPLE_STRING.match(self.text, self.pos)
        if simple:  # no escapes: the common case, in one step
            self.pos = simple.end()
            return simple.group(1)
        self.pos += 1  # the opening quote
        out: list[str] = []
        while True:
            match = _PLAIN.match(self.text, self.pos)
            if match:
                out.append(match.group())
                self.pos = match.end()
            char = self.text[self.pos : self.pos + 1]
            if char == '"':
                self.pos += 1
                return "".join(out)
            if char != "\\":  # end of text or a raw control character
                raise Finding("JSON-SYNTAX")
            out.append(self.escape())

    def escape(self) -> str:
        kind = self.text[self.pos + 1 : self.pos + 2]
        self.pos += 2
        if kind in _ESCAPES:
            return _ESCAPES[kind]
        if kind != "u":
            raise Finding("JSON-SYNTAX")
        unit = self.hex4()
        if 0xDC00 <= unit <= 0xDFFF:
            raise Finding("JSON-SURROGATE")
        if not 0xD800 <= unit <= 0xDBFF:
            return chr(unit)
        if not self.text.startswith("\\u", self.pos):
            raise Finding("JSON-SURROGATE")
        self.pos += 2
        low = self.hex4()
        if not 0xDC00 <= low <= 0xDFFF:
            raise Finding("JSON-SURROGATE")
        return chr(0x10000 + ((unit - 0xD800) << 10) + (low - 0xDC00))

    def hex4(self) -> int:
        digits = self.text[self.pos : self.pos + 4]
        if len(digits) != 4 or not all(c in "0123456789abcdefABCDEF" for c in digits):
            raise Finding("JSON-SYNTAX")
        self.pos += 4
        return int(digits, 16)


def read(data: bytes) -> Result:
    """Follow §12.1 on the bytes of one file."""
    found: list[str] = []
    try:
        tensors = _header_and_structure(data, found)
        _layout(tensors, len(data) - 8 - int.from_bytes(data[:8], "little"))
    except Finding as finding:
        return Result(finding.rule, found)
    return Result(None, found)


def _header_text(data: bytes) -> str:
    # Steps 1-3: the prefix, the limit, the bounds.
    if len(data) < 8:
        raise Finding("FILE-PREFIX")
    length = int.from_bytes(data[:8], "little")
    if length > LIMIT:
        raise Finding("HEADER-LIMIT")
    if 8 + length > len(data):
        raise Finding("HEADER-BOUNDS")
    # Step 4: the header is UTF-8 (Python's codec is strict per RFC 3629).
    try:
        text = data[8 : 8 + length].decode("utf-8")
    except UnicodeDecodeError:
        raise Finding("HEADER-UTF8") from None
    return text


def _header_and_structure(data: bytes, found: list[str]) -> list[tuple[int, int]]:
    text = _header_text(data)
    # Step 5: whitespace before the object is noted; then `{` or nothing.
    parser = _Parser(text)
    parser.spaces()
    if parser.pos:
        found.append("HEADER-LEADING-WS")
    if not text.startswith("{", parser.pos):
        raise Finding("HEADER-OBJECT")
    # Step 6: one object under §4.
    members = parser.obj(1)
    # Step 7: what follows the object.
    rest = text[parser.pos :]
    if rest.strip(WHITESPACE):
        raise Finding("HEADER-TRAILING")
    if rest.strip(" "):
        found.append("HEADER-PADDING")
    # Step 8: each top-level member, in header order.
    bits = dtype_bits()
    tensors = []
    for name, value in members:
        if name == "__metadata__":
            _metadata(value, found)
        else:
            tensors.append(_entry(value, bits, found))
    return tensors


def _metadata(value: object, found: list[str]) -> None:
    if value is None:
        found.append("META-NULL")
        return
    if not isinstance(value, Members):
        raise Finding("META-OBJECT")
    for _, item in value:
        if not isinstance(item, str):
            raise Finding("META-STRING")


def _entry(value: object, bits: dict[str, int], found: list[str]) -> tuple[int, int]:
    if not isinstance(value, Members):
        raise Finding("ENTRY-OBJECT")
    fields = dict(value)
    if any(name not in fields for name in FIELDS):
        raise Finding("ENTRY-FIELDS")
    if any(name not in FIELDS for name in fields):
        found.append("ENTRY-UNKNOWN")
    dtype = fields["dtype"]
    if not isinstance(dtype, str) or dtype not in bits:
        raise Finding("DTYPE-NAME")
    shape = _integers(fields["shape"], "SHAPE-ARRAY", None)
    begin, end = _integers(fields["data_offsets"], "OFFSETS-PAIR", 2)
    # The size rules of §7 in order, then the order of the pair, then its size.
    count = 0 if 0 in shape else 1
    for dim in shape:
        count *= dim
    total = count * bits[dtype]
    if total > U64_MAX:
        raise Finding("SIZE-OVERFLOW")
    if total % 8:
        raise Finding("SIZE-BITS")
    if begin > end:
        raise Finding("OFFSETS-ORDER")
    if end - begin != total // 8:
        raise Finding("SIZE-MATCH")
    return begin, end


def _integers(value: object, rule: str, length: int | None) -> list[int]:
    if type(value) is not list:
        raise Finding(rule)
    if length is not None and len(value) != length:
        raise Finding(rule)
    out = []
    for item in value:
        if not isinstance(item, Number):
            raise Finding(rule)
        if not _INTEGER_TOKEN.fullmatch(item.token):
            raise Finding("NUM-INTEGER")
        number = int(item.token) if len(item.token) <= 20 else U64_MAX + 1
        if number > U64_MAX:
            raise Finding("NUM-RANGE")
        out.append(number)
    return out


def _layout(tensors: list[tuple[int, int]], buffer_length: int) -> None:
    # Step 9: the layout algorithm of §8.1.
    for _, end in tensors:
        if end > buffer_length:
            raise Finding("LAYOUT-BOUNDS")
    cursor = 0
    for begin, end in sorted(tensors):
        if begin > cursor:
            raise Finding("LAYOUT-HOLE")
        if begin < cursor:
            raise Finding("LAYOUT-OVERLAP")
        cursor = max(cursor, end)
    if cursor != buffer_length:
        raise Finding("LAYOUT-TRAILING")
