"""Which corpus case a file is, by its bytes (the suite hides names from readers).

The test implementations misbehave on chosen cases; the suite hands them a
private copy called ``input.safetensors``, so they recognise a case by the
size and sha256 the manifest gives for it.
"""

from __future__ import annotations

import functools
import hashlib
import json
from pathlib import Path

MANIFEST = Path(__file__).resolve().parents[3] / "corpus" / "manifest.json"


@functools.cache
def _by_size() -> dict[int, list[tuple[str, str]]]:
    cases = json.loads(MANIFEST.read_text(encoding="utf-8"))
    cases = cases["cases"] if isinstance(cases, dict) else cases
    found: dict[int, list[tuple[str, str]]] = {}
    for case in cases:
        if isinstance(case.get("size"), int) and isinstance(case.get("sha256"), str):
            found.setdefault(case["size"], []).append((case["id"], case["sha256"]))
    return found


def is_case(path: str, suffix: str) -> bool:
    """Whether ``path`` holds a case whose ``ID.safetensors`` ends with ``suffix``."""
    if path.endswith(suffix):
        return True
    size = Path(path).stat().st_size
    named = [
        (i, d)
        for i, d in _by_size().get(size, [])
        if f"{i}.safetensors".endswith(suffix)
    ]
    if not named:
        return False
    with Path(path).open("rb") as file:
        digest = hashlib.file_digest(file, "sha256").hexdigest()
    return any(d == digest for _, d in named)
