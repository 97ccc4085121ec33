"""A verdict looked up instead of judged: the cheap normal forms of a file.

The corpus and its manifest ship with the suite, so a reader can read every
committed file once and remember each verdict under forms a per-run variant
might not change: the file itself, its header with the trailing padding
taken off, its header with every JSON whitespace byte outside strings taken
out, and its buffer alone.  :func:`looked_up` answers a verdict when one of
the input's forms was seen with a single verdict ("valid", "invalid" or
"tolerated"), and None when no form was.
"""

from __future__ import annotations

import functools
import hashlib
import json
import re
from pathlib import Path

CORPUS = Path(__file__).resolve().parents[3] / "corpus"

# a string (escapes skipped whole), or a byte of anything else
_PIECE = re.compile(rb'"(?:[^"\\]|\\.)*"|[\s\S]', re.DOTALL)
_JSON_WHITESPACE = frozenset(b" \t\n\r")


def _squeezed(header: bytes) -> bytes:
    """``header`` without JSON whitespace outside strings."""
    return b"".join(
        piece
        for piece in _PIECE.findall(header)
        if len(piece) > 1 or piece[0] not in _JSON_WHITESPACE
    )


def forms(data: bytes) -> list[str]:
    """The digests a lookup compares: the file, then its cheap normal forms."""
    out = [b"file:" + data]
    stated = int.from_bytes(data[:8], "little") if len(data) >= 8 else -1
    if 0 <= stated <= len(data) - 8:
        header, buffer = data[8 : 8 + stated], data[8 + stated :]
        out += [
            b"unpadded:" + header.rstrip(b" "),
            b"squeezed:" + _squeezed(header),
            b"buffer:" + buffer,
        ]
    return [hashlib.sha256(form).hexdigest() for form in out]


@functools.cache
def _table() -> dict[str, str]:
    """Each form's verdict, for forms seen with one verdict only."""
    manifest = json.loads((CORPUS / "manifest.json").read_text(encoding="utf-8"))
    seen: dict[str, set[str]] = {}
    for case in manifest["cases"]:
        if "file" in case:
            for form in forms((CORPUS / case["file"]).read_bytes()):
                seen.setdefault(form, set()).add(case["verdict"])
    return {form: next(iter(v)) for form, v in seen.items() if len(v) == 1}


def looked_up(data: bytes) -> str | None:
    """The verdict a form of ``data`` was seen with, or None."""
    table = _table()
    for form in forms(data):
        if form in table:
            return table[form]
    return None
