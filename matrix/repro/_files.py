"""Tiny hostile files for the reproducers (standard library only)."""

from __future__ import annotations

import json
import tempfile
from typing import Any

__all__ = ["make", "raw"]


def raw(data: bytes) -> str:
    """Write ``data`` to a new ``.safetensors`` file; its path."""
    with tempfile.NamedTemporaryFile(suffix=".safetensors", delete=False) as f:
        f.write(data)
    return f.name


def make(header: str | dict[str, Any], data: bytes = b"") -> str:
    """A file from header text (kept as written) or a dict, padded to 8."""
    text = (header if isinstance(header, str) else json.dumps(header)).encode()
    text += b" " * (-len(text) % 8)
    return raw(len(text).to_bytes(8, "little") + text + data)
