"""Strict JSON for the header, one value at a time, with character positions.

It accepts exactly RFC 8259 and reports the faults the spec names at the JSON
level: syntax (JSON-SYNTAX), nesting (JSON-DEPTH), unpaired surrogate escapes
(JSON-SURROGATE) and repeated member names (KEY-UNIQUE).  The parser is
iterative, so no input can exhaust the stack, and it never converts a number
token of more than 20 digits to an int.  Values nobody reads (unknown entry
members) are checked by the C decoder when the whole header is known to nest
shallowly enough for it: that bound is proved before it sees any text.
"""

from __future__ import annotations

import re
from functools import cache

from stspec.errors import shown
from stspec.rules import MAX_DEPTH

# No typing at run time (start-up cost, see stspec/record.py); mypy reads this as True.
TYPE_CHECKING = False
Path = tuple[str | int, ...]

if TYPE_CHECKING:
    import json
    from array import array
    from collections.abc import Callable
    from typing import Final

    # Reports a fault that does not stop the parse: (rule, position, message,
    # path).  An annotation only: subscripting Callable costs start-up time.
    FaultSink = Callable[[str, int, str, Path], None]

WS: Final = re.compile(r"[ \t\n\r]*+")
INT: Final = r"(?:0|[1-9][0-9]{0,19})"
SURROGATE_ESCAPE: Final = re.compile(r"\\u[dD][89a-fA-F]")
# A string without escapes or control characters: its value is its text.
PLAIN_STRING: Final = re.compile(r'"([^"\\\x00-\x1f]*+)"')
_LITERALS: Final = (("true", True), ("false", False), ("null", None))


# The patterns below are compiled on first use: compiling costs start-up
# time, and the headers writers emit need none of them.
@cache
def _number() -> re.Pattern[str]:
    return re.compile(r"-?(?:0|[1-9][0-9]*)(\.[0-9]+)?([eE][-+]?[0-9]+)?")


@cache
def _plain_int() -> re.Pattern[str]:
    return re.compile(INT)


@cache
def _surrogate() -> re.Pattern[str]:
    return re.compile("[\ud800-\udfff]")


class Number:
    """A number token that is not a plain integer of at most 20 digits."""

    __slots__ = ("token",)

    def __init__(self, token: str) -> None:
        self.token = token

    @property
    def is_integer_token(self) -> bool:
        """Whether the token is a non-negative integer (only too long)."""
        return self.token.isdigit()


class JsonStop(Exception):  # noqa: N818 - a verdict, not an accident
    """A fault after which the rest of the text cannot be parsed."""

    def __init__(self, rule: str, pos: int, msg: str) -> None:
        super().__init__(rule, pos, msg)
        self.rule = rule
        self.pos = pos
        self.msg = msg


class Text:
    """The header text and what a look at the whole of it established.

    surrogates: some string may hold a surrogate escape (else none is checked),
        found by one search of the whole text, made when first asked
    shortcuts: whether C-speed shortcuts may be taken (off: every value goes
        through the position-tracking parser; the tests compare both)
    raw: the header bytes, for the nesting bound (computed when first needed)
    """

    __slots__ = ("_shallow", "_surrogates", "fault", "raw", "shortcuts", "text")

    def __init__(
        self,
        text: str,
        fault: FaultSink,
        raw: memoryview,
        *,
        shortcuts: bool = True,
    ) -> None:
        self.text = text
        self.fault = fault
        self.raw = raw
        self.shortcuts = shortcuts
        self._shallow: bool | None = None
        # Headers as writers emit them never need it (see check_surrogates).
        self._surrogates: bool | None = None

    @property
    def surrogates(self) -> bool:
        """Whether some string may hold a surrogate escape."""
        if self._surrogates is None:
            self._surrogates = SURROGATE_ESCAPE.search(self.text) is not None
        return self._surrogates

    @property
    def shallow(self) -> bool:
        """Whether nothing nests deeper than MAX_DEPTH (a recursive decoder is safe)."""
        if self._shallow is None:
            self._shallow = nests_shallowly(self.raw)
        return self._shallow


def ws(text: str, pos: int) -> int:
    """Return the position after the JSON whitespace at ``pos``."""
    return WS.match(text, pos).end()  # type: ignore[union-attr]


def syntax(text: str, pos: int, expected: str) -> JsonStop:
    """Build the JSON-SYNTAX fault for an unexpected character."""
    found = repr(text[pos]) if pos < len(text) else "the end of the header"
    return JsonStop("JSON-SYNTAX", pos, f"unexpected {found}, expected {expected}")


def string(src: Text, pos: int) -> tuple[int, str]:
    """Read the string whose quote is at ``pos``; return (end, value)."""
    plain = PLAIN_STRING.match(src.text, pos)
    if plain is not None:
        return plain.end(), plain.group(1)
    # json (a tenth of the command's start-up) is loaded for the first string
    # with escapes, or a fault: most headers have none.
    import json  # noqa: PLC0415

    try:
        # The C string scanner behind json; typeshed does not declare it.
        value, end = json.decoder.scanstring(src.text, pos + 1, True)  # type: ignore[attr-defined]
    except json.JSONDecodeError as exc:
        raise JsonStop("JSON-SYNTAX", exc.pos, f"bad string: {exc.msg}") from None
    return end, value


def check_surrogates(src: Text, value: str, pos: int, path: Path) -> None:
    """Report a string that holds an unpaired surrogate (from an escape)."""
    # An ASCII string holds no surrogate (a constant-time test): the search
    # of the whole text is made only for a header with other characters.
    if not value.isascii() and src.surrogates and _surrogate().search(value):
        src.fault(
            "JSON-SURROGATE",
            pos,
            "string holds an unpaired surrogate escape, expected only Unicode "
            "scalar values",
            path,
        )


def member_name(src: Text, pos: int, path: Path | None) -> tuple[int, str]:
    """Read ``"name" :`` at ``pos``; return the value's position and the name.

    ``path`` locates the object, for a surrogate in the name (None: the
    caller checks).
    """
    text = src.text
    if text[pos : pos + 1] != '"':
        raise syntax(text, pos, "a member name")
    end, name = string(src, pos)
    if path is not None:
        check_surrogates(src, name, pos, path)
    end = ws(text, end)
    if text[end : end + 1] != ":":
        raise syntax(text, end, "':'")
    return ws(text, end + 1), name


def next_member(text: str, pos: int, closer: str) -> tuple[int, bool]:
    """Step past a value: return the next member's position and whether one follows.

    After the last member the position is just past ``closer``.
    """
    pos = ws(text, pos)
    char = text[pos : pos + 1]
    if char == ",":
        pos = ws(text, pos + 1)
        if text[pos : pos + 1] == closer:
            raise trailing_comma(pos, closer)
        return pos, True
    if char == closer:
        return pos + 1, False
    raise syntax(text, pos, f"',' or {closer!r}")


def trailing_comma(pos: int, closer: str) -> JsonStop:
    """Build the JSON-SYNTAX fault for a comma just before ``closer``."""
    return JsonStop(
        "JSON-SYNTAX", pos, f"trailing comma before {closer!r}, expected a value"
    )


def opening(text: str, pos: int, closer: str) -> tuple[int, bool]:
    """Step into a container: return the first member's position, if any."""
    pos = ws(text, pos + 1)
    if text[pos : pos + 1] == closer:
        return pos + 1, False
    return pos, True


def scalar(src: Text, pos: int) -> tuple[int, object]:
    """Read a string, literal or number at ``pos`` (the caller checks surrogates)."""
    text = src.text
    char = text[pos : pos + 1]
    if char == '"':
        return string(src, pos)
    for word, literal in _LITERALS:
        if text.startswith(word, pos):
            return pos + len(word), literal
    match = _number().match(text, pos)
    if match is None:
        raise syntax(text, pos, "a JSON value")
    token = match.group()
    if _plain_int().fullmatch(token):
        return match.end(), int(token)
    return match.end(), Number(token)


def nests(levels: int) -> bool:
    """Whether containers may nest ``levels`` deep (the bound of JSON-DEPTH)."""
    return levels <= MAX_DEPTH


def too_deep(pos: int) -> JsonStop:
    """Build the JSON-DEPTH fault for a container opened at ``pos``."""
    return JsonStop("JSON-DEPTH", pos, f"nesting exceeds {MAX_DEPTH} levels")


def value(  # noqa: C901, PLR0912, PLR0913, PLR0915 - one loop keeps it iterative
    src: Text,
    pos: int,
    depth: int,
    path: Path,
    *,
    build: bool = True,
    elements: array[int] | None = None,
) -> tuple[int, object]:
    """Parse the value at ``pos`` inside ``depth`` open containers.

    Returns (end, value); with ``build`` False containers are checked but not
    built (the value is None).  ``elements`` receives the position of every
    element of the value when it is an array.  Objects keep the first of
    repeated names (the repeat is reported as KEY-UNIQUE).
    """
    text = src.text
    char = text[pos : pos + 1]
    if char not in ("{", "["):
        end, result = scalar(src, pos)
        if type(result) is str:
            check_surrogates(src, result, pos, path)
        return end, result
    if depth >= MAX_DEPTH:
        raise too_deep(pos)
    # A frame: [container or None, member names (None for arrays), its key in
    # the parent, elements so far].  Paths are built only for a fault.
    root: object = ({} if char == "{" else []) if build else None
    stack: list[list[object]] = [
        [root, (root if build else set()) if char == "{" else None, None, 0]
    ]
    pos, more = opening(text, pos, "}" if char == "{" else "]")
    while True:
        frame = stack[-1]
        names = frame[1]
        closer = "]" if names is None else "}"
        if not more:
            stack.pop()
            if not stack:
                return pos, root
            pos, more = next_member(text, pos, "]" if stack[-1][1] is None else "}")
            continue
        key: object
        keep = True
        if names is None:
            key = frame[3]
            frame[3] = key + 1  # type: ignore[operator]
            if elements is not None and len(stack) == 1:
                elements.append(pos)
        else:
            key_pos = pos
            pos, key = member_name(
                src, pos, _path_of(path, stack) if src.surrogates else None
            )
            if key in names:  # type: ignore[operator]
                src.fault(
                    "KEY-UNIQUE",
                    key_pos,
                    f"member name {shown(key)} appears twice in one object",
                    _path_of(path, stack),
                )
                keep = False
            elif not build:
                names.add(key)  # type: ignore[attr-defined]
        char = text[pos : pos + 1]
        if char in ("{", "["):
            if depth + len(stack) >= MAX_DEPTH:
                raise too_deep(pos)
            child: object = ({} if char == "{" else []) if build else None
            if keep:
                _attach(frame, key, child)
            stack.append(
                [child, (child if build else set()) if char == "{" else None, key, 0]
            )
            pos, more = opening(text, pos, "}" if char == "{" else "]")
            continue
        item_pos = pos
        pos, item = scalar(src, pos)
        if type(item) is str:
            check_surrogates(
                src,
                item,
                item_pos,
                (*_path_of(path, stack), key),  # type: ignore[arg-type]
            )
        if keep:
            _attach(frame, key, item)
        pos, more = next_member(text, pos, closer)


def _attach(frame: list[object], key: object, item: object) -> None:
    container = frame[0]
    if type(container) is list:
        container.append(item)
    elif type(container) is dict:
        container[key] = item


def _path_of(path: Path, stack: list[list[object]]) -> Path:
    keys = [frame[2] for frame in stack[1:]]
    return (*path, *keys)  # type: ignore[arg-type]


class _Doubt(Exception):  # noqa: N818 - internal signal, never escapes
    pass


def _distinct(pairs: list[tuple[str, object]]) -> None:
    if len({name for name, _ in pairs}) != len(pairs):
        raise _Doubt


def _refuse(_token: str) -> None:
    raise _Doubt


@cache
def _skipper() -> json.JSONDecoder:
    """Check a value without keeping it.

    Numbers become their length, objects are only looked at for repeated
    names.  Made on first use, as _counter(): json costs start-up time.
    """
    import json  # noqa: PLC0415

    return json.JSONDecoder(
        object_pairs_hook=_distinct,
        parse_int=len,
        parse_float=len,
        parse_constant=_refuse,
    )


def _int_token(token: str) -> object:
    # What the parser makes of a number token: an int only when plain.
    return int(token) if len(token) <= 20 and token[0] != "-" else Number(token)


def _checked_object(pairs: list[tuple[str, object]]) -> dict[str, object]:
    _distinct(pairs)
    return {}


@cache
def _counter() -> json.JSONDecoder:
    """Decode an array whose elements will only be counted, not located."""
    import json  # noqa: PLC0415 - see _skipper()

    return json.JSONDecoder(
        object_pairs_hook=_checked_object,
        parse_int=_int_token,
        parse_float=Number,
        parse_constant=_refuse,
    )


def array_to_count(src: Text, pos: int) -> tuple[int, list[object]] | None:
    """Decode the array at ``pos`` at C speed, or None when in doubt.

    Objects inside become empty dicts: the caller only counts what is wrong.
    """
    if not (src.shortcuts and src.text[pos : pos + 1] == "[" and src.shallow):
        return None
    try:
        item, end = _counter().raw_decode(src.text, pos)
    except (ValueError, RecursionError, _Doubt):
        return None
    if src.surrogates and SURROGATE_ESCAPE.search(src.text, pos, end):
        return None
    return end, item


def skip(src: Text, pos: int, depth: int, path: Path) -> int:
    """Check the value at ``pos`` without building it; return its end.

    The C decoder does it when the header nests shallowly (it recurses) and
    the value needs nothing it cannot see; anything it doubts, the parser
    redoes, to report the fault where it is.
    """
    if src.text[pos : pos + 1] not in ("[", "{"):
        # A scalar needs no decoder, nor the nesting bound.
        end, item = scalar(src, pos)
        if type(item) is str:
            check_surrogates(src, item, pos, path)
        return end
    if src.shortcuts and src.shallow:
        try:
            _, end = _skipper().raw_decode(src.text, pos)
        except (ValueError, RecursionError, _Doubt):
            pass
        else:
            if not (src.surrogates and SURROGATE_ESCAPE.search(src.text, pos, end)):
                return end
    end, _ = value(src, pos, depth, path, build=False)
    return end


def kind(text: str, pos: int) -> str:
    """Name the JSON type of the value at ``pos`` the way the spec does."""
    char = text[pos : pos + 1]
    if char == "{":
        return "an object"
    if char == "[":
        return "an array"
    if char == '"':
        return "a string"
    if char == "n":
        return "null"
    if char in ("t", "f"):
        return "a boolean"
    return "a number"


def nests_shallowly(raw: memoryview) -> bool:
    """Whether no container in the header text nests deeper than MAX_DEPTH.

    An upper bound computed with byte operations only: escaped backslashes
    and quotes are removed, then everything but quotes and brackets, then the
    quoted runs; what is left is the bracket structure.  Up to the first
    syntax error it matches what a parser sees, which is all a decoder ever
    reads.  Removing every ``[]`` pair lowers the deepest nesting by at most
    one, so after k such passes the depth is at most k plus the depth of
    what is left, counted run by run.
    """
    parts = []
    start = 0
    while start < len(raw):
        end = min(start + _CHUNK, len(raw))
        # A run of backslashes and the byte it escapes stay in one chunk.
        while end < len(raw) and raw[end - 1] == _BACKSLASH:
            end += 1
        chunk = raw[start:end].tobytes().replace(b"\\\\", b"").replace(b'\\"', b"")
        chunk = chunk.translate(_BRACKETS, _NOT_STRUCTURE)
        if b"[" * (MAX_DEPTH + 1) in chunk:
            # Too deep already, or brackets inside a string: either way the
            # parser, which needs no bound, decides (a nesting bomb stops here).
            return False
        parts.append(chunk)
        start = end
    data = _quoted().sub(b"", b"".join(parts))
    passes = 0
    # Each pass that runs shrinks the data by an eighth at least, so all of
    # them cost a few times one; the runs left are few enough to count.
    while data.count(b"[]") * 16 > len(data) and passes <= MAX_DEPTH:
        data = data.replace(b"[]", b"")
        passes += 1
    depth = deepest = 0
    for run in _runs().finditer(data):
        if run.group()[0] == ord("["):
            depth += len(run.group())
            deepest = max(deepest, depth)
        else:
            # Never below zero: stray closers (only after a syntax error) must
            # not hide the openers that follow them.
            depth = max(depth - len(run.group()), 0)
    return passes + deepest <= MAX_DEPTH


_CHUNK: Final = 1 << 20
_BACKSLASH: Final = ord("\\")
_BRACKETS: Final = bytes.maketrans(b"{}", b"[]")
_NOT_STRUCTURE: Final = bytes(set(range(256)) - set(b'"[]{}'))


@cache
def _quoted() -> re.Pattern[bytes]:
    # Adjacent strings (their separators are gone) are removed in one match.
    return re.compile(rb'(?:"[^"]*+")++')


@cache
def _runs() -> re.Pattern[bytes]:
    return re.compile(rb"\[++|\]++")
