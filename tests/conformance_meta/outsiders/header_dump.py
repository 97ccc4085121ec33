"""A header dump: ``json.loads`` of the header, shapes handed back as parsed.

Python's json reads ``1e400`` as infinity and ``1.0`` as a float; a reader
like this accepts such files and answers those shapes (a malformed answer).
"""

from __future__ import annotations

import json
import struct
from pathlib import Path
from typing import Any

CAPABILITIES = {"header_only": True}


def load(path: str) -> tuple[dict[str, Any], dict[str, str] | None]:
    data = Path(path).read_bytes()
    (n,) = struct.unpack("<Q", data[:8])
    if n > 100_000_000 or 8 + n > len(data):
        raise ValueError("bad header length")
    header = json.loads(data[8 : 8 + n])
    metadata = header.pop("__metadata__", None)
    return {k: (v["dtype"], v["shape"]) for k, v in header.items()}, metadata
