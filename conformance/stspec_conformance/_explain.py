"""Saying how written bytes differ from the canonical form (WRITE-CANONICAL).

The first difference is located and named by what it is: the length prefix,
padding, member or field order, metadata key order, string escaping,
whitespace, data offsets, or the tensor bytes, with the bytes around it.
"""

from __future__ import annotations

import json
import struct
from typing import Any, Final

__all__ = ["canonical_difference"]

CONTEXT: Final = 24
PREFIX: Final = 8


def _header(data: bytes) -> tuple[bytes, bytes] | None:
    """(header bytes, buffer) by the file's own length prefix, if it has one."""
    if len(data) < PREFIX:
        return None
    (size,) = struct.unpack("<Q", data[:PREFIX])
    if PREFIX + size > len(data):
        return None
    return data[PREFIX : PREFIX + size], data[PREFIX + size :]


def _pairs(text: bytes) -> Any:  # noqa: ANN401 - JSON
    return json.loads(text, object_pairs_hook=list)


def _around(data: bytes, at: int) -> str:
    """The text around ``at`` as written (escapes shown once, controls escaped)."""
    start = max(0, at - CONTEXT)
    text = data[start : at + CONTEXT].decode("utf-8", "replace")
    shown = "".join(c if c.isprintable() else repr(c)[1:-1] for c in text)
    return ("..." if start else "") + f"`{shown}`..."


def _first_difference(one: bytes, two: bytes) -> int:
    for index, (a, b) in enumerate(zip(one, two, strict=False)):
        if a != b:
            return index
    return min(len(one), len(two))


def _order(written: Any, canonical: Any, where: str) -> str | None:  # noqa: ANN401
    """Name the first place where the same members come in another order."""
    if not (isinstance(written, list) and isinstance(canonical, list)):
        return None
    if written and isinstance(written[0], tuple):  # an object, as pairs
        keys_w = [k for k, _ in written]
        keys_c = [k for k, _ in canonical]
        if sorted(keys_w) == sorted(keys_c) and keys_w != keys_c:
            what = {
                "the header": "member order (__metadata__ first, then tensors by "
                "descending dtype, then name)",
                "__metadata__": "metadata keys not in sorted order",
            }.get(where, f"field order in {where} (dtype, shape, data_offsets)")
            return f"{what}: wrote {keys_w[:6]}, canonical {keys_c[:6]}"
        for (key, value_w), (_, value_c) in zip(written, canonical, strict=False):
            inner = "__metadata__" if key == "__metadata__" else f"entry {key!r}"
            found = _order(value_w, value_c, inner if where == "the header" else where)
            if found:
                return found
    return None


def _values(written: Any, canonical: Any) -> str | None:  # noqa: ANN401
    """Name the first value that differs (offsets, dtypes, shapes, metadata)."""
    as_dict_w = {k: dict(v) if isinstance(v, list) else v for k, v in written}
    as_dict_c = {k: dict(v) if isinstance(v, list) else v for k, v in canonical}
    for key, value_c in as_dict_c.items():
        if key not in as_dict_w:
            return f"member {key!r} is missing"
        value_w = as_dict_w[key]
        if value_w != value_c:
            if isinstance(value_w, dict) and isinstance(value_c, dict):
                for field in value_c:
                    if value_w.get(field) != value_c[field]:
                        return (
                            f"{key!r} {field}: wrote {value_w.get(field)!r}, "
                            f"canonical {value_c[field]!r}"
                        )
            return f"{key!r}: wrote {value_w!r:.80}, canonical {value_c!r:.80}"
    extra = [key for key in as_dict_w if key not in as_dict_c]
    return f"unexpected member(s) {extra[:3]}" if extra else None


def _text(written: bytes, canonical: bytes) -> str:
    """Same JSON values in the same order: the spelling differs."""
    at = _first_difference(written, canonical)
    w_piece, c_piece = written[at : at + 8], canonical[at : at + 8]
    if w_piece[:1] in b" \t\r\n" or c_piece[:1] in b" \t\r\n":
        what = "whitespace between JSON tokens (the canonical JSON has none)"
    elif w_piece.startswith(b"\\") or c_piece.startswith(b"\\"):
        what = (
            "string escaping (the canonical form escapes only the quote, the "
            "backslash and characters below U+0020; everything else is raw UTF-8)"
        )
    else:
        what = "number or string spelling"
    return (
        f"{what}, at header byte {at}: wrote {_around(written, at)} where the "
        f"canonical header has {_around(canonical, at)}"
    )


def _headers(head_w: bytes, head_c: bytes) -> str:
    body_w, body_c = head_w.rstrip(b" "), head_c.rstrip(b" ")
    if body_w == body_c:
        return (
            f"padding: the header is {len(head_w)} bytes with "
            f"{len(head_w) - len(body_w)} trailing spaces; canonical: "
            f"{len(head_c)} bytes, padded with 0x20 so that 8 + N is a multiple of 8"
        )
    try:
        parsed_w = _pairs(body_w)
    except ValueError:
        at = _first_difference(body_w, body_c)
        return (
            f"the header is not one JSON object near byte {at}: {_around(body_w, at)}"
        )
    parsed_c = _pairs(body_c)
    found = _values(parsed_w, parsed_c) or _order(parsed_w, parsed_c, "the header")
    return found or _text(body_w, body_c)


def canonical_difference(written: bytes, canonical: bytes) -> str:
    """One line saying where and how ``written`` differs from ``canonical``."""
    split_w, split_c = _header(written), _header(canonical)
    if split_c is None:  # pragma: no cover - the reference writes valid files
        return "the canonical bytes are not a file"
    if split_w is None:
        return (
            f"the file is {len(written)} bytes and its length prefix does not fit "
            f"it: starts {written[:16]!r}"
        )
    (head_w, buffer_w), (head_c, buffer_c) = split_w, split_c
    if head_w != head_c:
        return _headers(head_w, head_c)
    if buffer_w == buffer_c:  # pragma: no cover - callers compare first
        return "no difference"
    at = _first_difference(buffer_w, buffer_c)
    if at == len(buffer_c):
        return f"{len(buffer_w) - at} bytes after the last tensor (canonical: none)"
    return (
        f"tensor bytes differ at buffer byte {at}: wrote {_around(buffer_w, at)}, "
        f"canonical {_around(buffer_c, at)}"
    )
