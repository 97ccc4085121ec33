"""Broken on purpose: looks verdicts up by layout, judges nothing.

The per-run variants change each committed file's bytes, names, metadata and
whitespace, so this reader fingerprints what they used to leave alone: the
sorted entries (dtype, shape and data_offsets, names and metadata dropped)
and the buffer's length; a header that is no JSON object by its bytes without
whitespace.  It rejects a file whose fingerprint the committed corpus gives
to invalid files only, and loads anything else with Python's json, checking
nothing (``_common.naive_load``): without the lookup it is that naive reader.
"""

import functools
import json
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).parent))
from _common import Loaded, naive_load
from _lookup import CORPUS


def fingerprint(data: bytes) -> tuple[Any, ...]:
    """What the file's layout is, without its names, metadata and bytes."""
    if len(data) < 8:
        return ("short", data)
    stated = int.from_bytes(data[:8], "little")
    header, rest = data[8 : 8 + stated], max(0, len(data) - 8 - stated)
    try:
        parsed = json.loads(header)
    except (ValueError, RecursionError):
        squeezed = bytes(b for b in header if b not in b" \t\r\n")
        return ("raw", squeezed, rest)
    if not isinstance(parsed, dict):
        return ("not an object", json.dumps(parsed, sort_keys=True))
    entries = sorted(
        json.dumps(entry, sort_keys=True)
        for name, entry in parsed.items()
        if name != "__metadata__"
    )
    return ("entries", tuple(entries), rest)


@functools.cache
def _invalid() -> frozenset[tuple[Any, ...]]:
    """The fingerprints the committed corpus gives to invalid files only."""
    manifest = json.loads((CORPUS / "manifest.json").read_text(encoding="utf-8"))
    seen: dict[tuple[Any, ...], set[str]] = {}
    for case in manifest["cases"]:
        if "file" in case:
            data = (CORPUS / case["file"]).read_bytes()
            seen.setdefault(fingerprint(data), set()).add(case["verdict"])
    return frozenset(f for f, verdicts in seen.items() if verdicts == {"invalid"})


def load(path: str) -> Loaded:
    if fingerprint(Path(path).read_bytes()) in _invalid():
        raise ValueError("invalid, says the corpus")
    return naive_load(path)
