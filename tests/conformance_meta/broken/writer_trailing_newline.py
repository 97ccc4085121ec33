"""Broken on purpose: a writer that ends every file with a newline (an invalid file)."""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from _common import strict_load

import stspec

load = strict_load


def save(
    path: str,
    tensors: dict[str, tuple[str, list[int], bytes]],
    metadata: dict[str, str] | None,
) -> None:
    Path(path).write_bytes(stspec.serialize(tensors, metadata) + b"\n")
