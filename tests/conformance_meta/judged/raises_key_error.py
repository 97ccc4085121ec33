"""A reader whose code breaks on a header without an expected member.

It indexes the header's entries without checking them, so a file whose entry
lacks ``data_offsets`` raises ``KeyError`` from the reader's own code: an
unexpected exception in a managed runtime (``exception``), not a rejection
and not a native crash.
"""

from __future__ import annotations

import json
import struct
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from _shared import Loaded, strict_load

__all__ = ["REJECTS", "load"]

import stspec

REJECTS = (stspec.SafetensorsError,)


def load(path: str) -> Loaded:
    data = Path(path).read_bytes()
    if len(data) >= 8:
        (n,) = struct.unpack("<Q", data[:8])
        try:
            header = json.loads(data[8 : 8 + n])
        except ValueError:
            header = None
        if isinstance(header, dict):
            for name, entry in header.items():
                if name != "__metadata__" and isinstance(entry, dict):
                    entry["data_offsets"][0]
    return strict_load(path)
