"""Broken on purpose: checks only the 8 bytes after the header's `}`
(HEADER-TRAILING); junk further into the padding is ignored."""

import json
import struct
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from _common import Loaded, strict_load

import stspec

__all__ = ["load"]

WHITESPACE = " \t\n\r"


def load(path: str) -> Loaded:
    try:
        return strict_load(path)
    except stspec.SafetensorsError as exc:
        if exc.rule != "HEADER-TRAILING":
            raise
        data = Path(path).read_bytes()
        (n,) = struct.unpack("<Q", data[:8])
        text = data[8 : 8 + n].decode("utf-8")
        start = len(text) - len(text.lstrip(WHITESPACE))
        _, end = json.JSONDecoder().raw_decode(text, start)
        if text[end : end + 8].strip(WHITESPACE):
            raise
        # the rest of the header read as if it were all padding
        kept = text[:end].encode()
        return strict_load(data[:8] + kept + b" " * (n - len(kept)) + data[8 + n :])
