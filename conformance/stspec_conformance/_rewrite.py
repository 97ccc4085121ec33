"""A header's JSON as a tree of its own tokens, to write out in another layout.

The corpus variants (:mod:`._variants`) change how a committed header is
written, never what one of its tokens says: a string keeps its escapes, a
number its spelling (``1e2``, ``01``, 20 digits) and a key its duplicates.
So the tree holds each token's bytes as they are, and only the order of
object members, the whitespace between tokens and members the variant adds
or renames differ in what :func:`render` writes.

:func:`parse` reads a header only when its structure is plain JSON (braces,
brackets, colons and commas where JSON puts them, the object first byte,
nothing but 0x20 after it, at most :data:`DEEPEST` levels); anything else
is None, and the variant keeps the committed header text.  What a token
itself holds (a bad escape, ``NaN``, invalid UTF-8) is not checked: it is
copied.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Final

if TYPE_CHECKING:
    import random

__all__ = ["DEEPEST", "Array", "Member", "Object", "parse", "render"]

DEEPEST: Final = 200
_WHITESPACE: Final = (b" ", b"\t", b"\n", b"\r")
# A string (escapes skipped whole), a structural byte, a run of JSON
# whitespace, any other run (a number, a literal, or junk the reference
# judges), or one byte nothing else takes (a quote that never closes).
_TOKEN: Final = re.compile(
    rb'"(?:[^"\\]|\\.)*"|[{}\[\]:,]|[ \t\n\r]+|[^{}\[\]:," \t\n\r]+|.', re.DOTALL
)


@dataclass
class Member:
    """One object member: its key token and its value."""

    key: bytes
    value: Node


@dataclass
class Object:
    """A JSON object, its members in the order they are written."""

    members: list[Member] = field(default_factory=list)


@dataclass
class Array:
    """A JSON array."""

    items: list[Node] = field(default_factory=list)


Node = Object | Array | bytes


class _MalformedError(Exception):
    """The structure is not plain JSON: the header is left as it is."""


def parse(header: bytes) -> Object | None:
    """The header's object, or None when its structure is not plain JSON."""
    tokens = [t for t in _TOKEN.findall(header) if t[:1] not in _WHITESPACE]
    if not header.startswith(b"{"):
        return None  # leading whitespace or junk: the case is about it
    body = header.rstrip(b" ")
    if not body.endswith(b"}"):
        return None
    try:
        top, used = _value(tokens, 0, 0)
    except (_MalformedError, IndexError):
        return None
    if used != len(tokens) or not isinstance(top, Object):
        return None
    return top


def _value(tokens: list[bytes], at: int, depth: int) -> tuple[Node, int]:
    if depth > DEEPEST:
        raise _MalformedError
    token = tokens[at]
    if token == b"{":
        return _object(tokens, at + 1, depth + 1)
    if token == b"[":
        return _array(tokens, at + 1, depth + 1)
    if token in (b"}", b"]", b":", b",") or token == b'"':
        raise _MalformedError
    return token, at + 1


def _object(tokens: list[bytes], at: int, depth: int) -> tuple[Object, int]:
    node = Object()
    if tokens[at] == b"}":
        return node, at + 1
    while True:
        key = tokens[at]
        if not (key.startswith(b'"') and len(key) > 1) or tokens[at + 1] != b":":
            raise _MalformedError
        value, at = _value(tokens, at + 2, depth)
        node.members.append(Member(key, value))
        if tokens[at] == b"}":
            return node, at + 1
        if tokens[at] != b",":
            raise _MalformedError
        at += 1


def _array(tokens: list[bytes], at: int, depth: int) -> tuple[Array, int]:
    node = Array()
    if tokens[at] == b"]":
        return node, at + 1
    while True:
        value, at = _value(tokens, at, depth)
        node.items.append(value)
        if tokens[at] == b"]":
            return node, at + 1
        if tokens[at] != b",":
            raise _MalformedError
        at += 1


def _tokens(node: Node, out: list[bytes]) -> None:
    if isinstance(node, bytes):
        out.append(node)
        return
    if isinstance(node, Object):
        out.append(b"{")
        for i, member in enumerate(node.members):
            if i:
                out.append(b",")
            out += (member.key, b":")
            _tokens(member.value, out)
        out.append(b"}")
        return
    out.append(b"[")
    for i, item in enumerate(node.items):
        if i:
            out.append(b",")
        _tokens(item, out)
    out.append(b"]")


def render(top: Object, rng: random.Random, whitespace: int) -> bytes:
    """The tree's tokens with ``whitespace`` JSON whitespace bytes between them.

    Each byte (space, tab, LF or CR) goes into a gap ``rng`` picks; never
    before the first token or after the last (those are other rules'
    business: leading whitespace, padding).
    """
    tokens: list[bytes] = []
    _tokens(top, tokens)
    gaps = [b""] * (len(tokens) - 1)
    for _ in range(whitespace if gaps else 0):
        gaps[rng.randrange(len(gaps))] += rng.choice(_WHITESPACE)
    out = [tokens[0]]
    for gap, token in zip(gaps, tokens[1:], strict=True):
        out += (gap, token)
    return b"".join(out)
