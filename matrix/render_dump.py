"""A corpus file's bytes as HTML: N, the header as text, the data in hex."""

from __future__ import annotations

import html
import json
from typing import Any, Final

from matrix import envs

__all__ = ["SHOWN_BYTES", "case_bytes", "dump_bytes"]

SHOWN_BYTES: Final = 384


def _header_text(header: bytes) -> str:
    parts = []
    text = header.decode("utf-8", errors="surrogateescape")
    for char in text:
        code = ord(char)
        if 0xDC80 <= code <= 0xDCFF:  # an undecodable byte
            parts.append(f'<span class="np">&lt;{code - 0xDC00:02X}&gt;</span>')
        elif code < 0x20 or code == 0x7F:
            parts.append(f'<span class="np">&lt;{code:02X}&gt;</span>')
        elif not char.isprintable():
            parts.append(f'<span class="np">&lt;U+{code:04X}&gt;</span>')
        else:
            parts.append(html.escape(char))
    return "".join(parts)


def dump_bytes(data: bytes, limit: int = SHOWN_BYTES) -> str:
    """HTML for a file's bytes: N as a number, the header as text, the rest hex.

    Non-printable bytes in the header are shown as ``<XX>`` in a marked span,
    so control characters, NULs and invalid UTF-8 are visible.
    """
    if len(data) < 8:
        return '<span class="np">' + data.hex(" ") + "</span> (shorter than 8 bytes)"
    length = int.from_bytes(data[:8], "little")
    parts = [f'<span class="n">N={length} [{data[:8].hex(" ")}]</span> ']
    end = min(len(data), 8 + min(length, limit))
    parts.append(_header_text(data[8:end]))
    if 8 + length > end:
        parts.append(
            f'<span class="more">… header continues to byte {8 + length}</span>'
        )
    rest = data[8 + length :] if 8 + length <= len(data) else b""
    if rest:
        shown = rest[:64].hex(" ")
        more = f" … ({len(rest)} bytes)" if len(rest) > 64 else ""
        parts.append(f'<br><span class="data">data: {shown}{more}</span>')
    elif 8 + length > len(data):
        parts.append(f'<br><span class="more">(file is {len(data)} bytes)</span>')
    return "".join(parts)


def case_bytes(case: dict[str, Any]) -> str:
    """HTML for a case: its file's bytes, or the recipe that builds it."""
    if "file" in case:
        path = envs.REPO / "corpus" / str(case["file"])
        with path.open("rb") as file:
            data = file.read(8 + 4 * SHOWN_BYTES + 64)
        return dump_bytes(data)
    recipe = case.get("recipe", {})
    params = dict(recipe.get("params", {}))
    header = params.pop("header", None)
    shown = html.escape(json.dumps(params, sort_keys=True)[:200])
    if isinstance(header, str):
        shown += "<br>header: " + html.escape(header[:SHOWN_BYTES])
    return (
        f'<span class="more">built at run time ({case.get("size")} bytes): recipe '
        f"{html.escape(str(recipe.get('name')))} {shown}</span>"
    )
