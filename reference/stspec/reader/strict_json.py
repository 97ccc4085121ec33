"""Strict JSON for the header, one value at a time, with character positions.

It accepts exactly RFC 8259 and reports the faults the spec names at the JSON
level: syntax (JSON-SYNTAX), nesting (JSON-DEPTH), unpaired surrogate escapes
(JSON-SURROGATE) and repeated member names (KEY-UNIQUE).  The parser is
iterative, so no input can exhaust the stack, and it never converts a number
token of more than 20 digits to an int.
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
    from array import array
    from collections.abc import Callable
    from typing import Final

    # Reports a fault that does not stop the parse: (rule, position, message,
    # path).  An annotation only: subscripting Callable costs start-up time.
    FaultSink = Callable[[str, int, str, Path], None]

__all__ = [
    "INT",
    "MAX_DEPTH",
    "PLAIN_STRING",
    "WS",
    "JsonStop",
    "Number",
    "Path",
    "Text",
    "check_surrogates",
    "kind",
    "member_name",
    "next_member",
    "opening",
    "scalar",
    "skip",
    "string",
    "surrogate_escape",
    "syntax",
    "too_deep",
    "trailing_comma",
    "value",
    "ws",
]

WS: Final = re.compile(r"[ \t\n\r]*+")
INT: Final = r"(?:0|[1-9][0-9]{0,19})"
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
def surrogate_escape() -> re.Pattern[str]:
    r"""Match the start of an escaped surrogate (``\ud800`` to ``\udfff``)."""
    return re.compile(r"\\u[dD][89a-fA-F]")


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
    fault: where faults that do not stop the parse go
    """

    __slots__ = ("_surrogates", "fault", "text")

    def __init__(self, text: str, fault: FaultSink) -> None:
        self.text = text
        self.fault = fault
        # Headers as writers emit them never need it (see check_surrogates).
        self._surrogates: bool | None = None

    @property
    def surrogates(self) -> bool:
        """Whether some string may hold a surrogate escape."""
        if self._surrogates is None:
            self._surrogates = surrogate_escape().search(self.text) is not None
        return self._surrogates

    def skip_container(self, pos: int, depth: int, path: Path) -> int:
        """Check the array or object at ``pos`` without building it; return its end."""
        end, _ = value(self, pos, depth, path, build=False)
        return end


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


def too_deep(pos: int) -> JsonStop:
    """Build the JSON-DEPTH fault for a container opened at ``pos``."""
    return JsonStop("JSON-DEPTH", pos, f"nesting exceeds {MAX_DEPTH} levels")


class _Array:
    """An array the parser is inside.

    items: its elements so far (None when only checking)
    at: the index of the element being read
    """

    __slots__ = ("at", "items")
    closer = "]"

    def __init__(self, items: list[object] | None) -> None:
        self.items = items
        self.at = -1

    def keep(self, item: object) -> None:
        """Keep ``item`` as the element at ``at``."""
        if self.items is not None:
            self.items.append(item)


class _Object:
    """An object the parser is inside.

    items: its members so far (None when only checking)
    names: its members so far, for KEY-UNIQUE: ``items`` when building, else
        their names, each to None (values nobody reads are not kept)
    at: the name of the member being read
    """

    __slots__ = ("at", "items", "names")
    closer = "}"

    def __init__(self, items: dict[str, object] | None) -> None:
        self.items = items
        self.names: dict[str, object] = {} if items is None else items
        self.at = ""

    def keep(self, item: object) -> None:
        """Keep ``item`` as the value of the member named ``at``."""
        self.names[self.at] = item if self.items is not None else None


def value(  # noqa: C901, PLR0912, PLR0913 - one loop keeps it iterative
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
    # The open containers, innermost last: a list of its own rather than the
    # call stack, so that no input can exhaust the stack.
    root = (
        _Object({} if build else None) if char == "{" else _Array([] if build else None)
    )
    stack: list[_Array | _Object] = [root]
    pos, more = opening(text, pos, root.closer)
    while True:
        frame = stack[-1]
        if not more:
            stack.pop()
            if not stack:
                return pos, root.items
            pos, more = next_member(text, pos, stack[-1].closer)
            continue
        # 1. Step to the next element, or read the next member's name.
        keep = True
        if isinstance(frame, _Array):
            frame.at += 1
            if elements is not None and len(stack) == 1:
                elements.append(pos)
        else:
            name_pos = pos
            pos, name = member_name(
                src, pos, _path_of(path, stack[:-1]) if src.surrogates else None
            )
            frame.at = name
            if name in frame.names:
                src.fault(
                    "KEY-UNIQUE",
                    name_pos,
                    f"member name {shown(name)} appears twice in one object",
                    _path_of(path, stack[:-1]),
                )
                keep = False
        # 2. Its value: a container is opened, and the loop goes on inside it.
        char = text[pos : pos + 1]
        if char in ("{", "["):
            if depth + len(stack) >= MAX_DEPTH:
                raise too_deep(pos)
            child = (
                _Object({} if build else None)
                if char == "{"
                else _Array([] if build else None)
            )
            if keep:
                frame.keep(child.items)
            stack.append(child)
            pos, more = opening(text, pos, child.closer)
            continue
        item_pos = pos
        pos, item = scalar(src, pos)
        if type(item) is str and not item.isascii():
            # An ASCII string holds no surrogate: no path is built for it.
            check_surrogates(src, item, item_pos, _path_of(path, stack))
        if keep:
            frame.keep(item)
        # 3. A comma and the next member, or the end of the container.
        pos, more = next_member(text, pos, frame.closer)


def _path_of(path: Path, frames: list[_Array | _Object]) -> Path:
    """Return the path of the member the innermost of ``frames`` is at."""
    return (*path, *(frame.at for frame in frames))


def skip(src: Text, pos: int, depth: int, path: Path) -> int:
    """Check the value at ``pos`` without building it; return its end."""
    if src.text[pos : pos + 1] not in ("[", "{"):
        end, item = scalar(src, pos)
        if type(item) is str:
            check_surrogates(src, item, pos, path)
        return end
    return src.skip_container(pos, depth, path)


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
