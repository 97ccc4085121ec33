"""What a header-only validator accepted, listed for the suite.

A scanner answers "accepted" and nothing else; the suite compares names,
dtypes, shapes and metadata, so the wrapper lists them from the header with
standard ``json`` (what these scanners parse with).  When the scanner accepts
a file whose header cannot be listed that way (not JSON, not an object, an
entry that is not an object), the answer has no shape: the suite's
invalid-output, an acceptance of something that is not tensors, not a crash
of the library.
"""

from __future__ import annotations

import os
from typing import Any

from _spec import Tensors, header_of

__all__ = ["listing"]

_UNDESCRIBED: Any = (None, None)


def listing(path: str) -> tuple[Tensors, Any]:
    """Names, dtypes, shapes and ``__metadata__`` of an accepted file."""
    with open(path, "rb") as file:
        prefix = file.read(8)
    # never allocate from a claimed N: a scanner may accept what it parsed
    # as another format (grit takes a file starting with GGUF as GGUF)
    if len(prefix) < 8 or 8 + int.from_bytes(prefix, "little") > os.path.getsize(path):
        return {"": _UNDESCRIBED}, None
    try:
        header: object = header_of(path)
    except (ValueError, OSError):  # not JSON, not UTF-8
        return {"": _UNDESCRIBED}, None
    if not isinstance(header, dict):
        return {"": _UNDESCRIBED}, None
    metadata = header.pop("__metadata__", None)
    tensors: Tensors = {
        name: (entry.get("dtype"), entry.get("shape"))
        if isinstance(entry, dict)
        else _UNDESCRIBED
        for name, entry in header.items()
    }
    return tensors, metadata
