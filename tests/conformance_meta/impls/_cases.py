"""Which corpus case a file is, by its bytes (the suite hides names from readers).

The test implementations misbehave on chosen cases; the suite hands them a
private copy called ``input.safetensors``, with the run's padding after the
header (stspec_conformance._variants), so they recognise a case by the size
and sha256 the manifest gives for it once that padding is taken off.
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


def _unpadded(data: bytes) -> list[bytes]:
    """``data`` and each form of it with 8, 16, ... trailing header spaces removed."""
    forms = [data]
    if len(data) < 8:
        return forms
    stated = int.from_bytes(data[:8], "little")
    end = 8 + stated
    if end > len(data):
        return forms
    for extra in range(8, min(stated, 512) + 1, 8):
        if data[end - extra : end] != b" " * extra:
            break
        forms.append(
            (stated - extra).to_bytes(8, "little") + data[8 : end - extra] + data[end:]
        )
    return forms


def is_case(path: str, suffix: str) -> bool:
    """Whether ``path`` holds a case whose ``ID.safetensors`` ends with ``suffix``."""
    if path.endswith(suffix):
        return True
    size = Path(path).stat().st_size
    sizes = {size - extra for extra in range(0, 513, 8)}
    if not any(
        f"{i}.safetensors".endswith(suffix)
        for known in sizes
        for i, _ in _by_size().get(known, [])
    ):
        return False  # not even the size fits (and a 4 GiB case is never read)
    data = Path(path).read_bytes()
    for form in _unpadded(data):
        named = [
            d
            for i, d in _by_size().get(len(form), [])
            if f"{i}.safetensors".endswith(suffix)
        ]
        if named and hashlib.sha256(form).hexdigest() in named:
            return True
    return False
