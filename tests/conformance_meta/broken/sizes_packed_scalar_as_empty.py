"""Broken on purpose: a rank-0 F4/F6 tensor counts zero elements (SIZE-BITS),
so a packed scalar at [0,0] loads as an empty tensor."""

import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).parent))
from _common import Loaded, rewrite_header, strict_load

import stspec

__all__ = ["load"]

PACKED = {dt.name for dt in stspec.DTYPES if dt.bits < 8}


def _scalars_empty(header: dict[str, Any]) -> dict[str, Any]:
    for name, entry in header.items():
        if name != "__metadata__" and entry["dtype"] in PACKED and entry["shape"] == []:
            entry["shape"] = [0]
    return header


def load(path: str) -> Loaded:
    try:
        return strict_load(path)
    except stspec.SafetensorsError as exc:
        if exc.rule != "SIZE-BITS":
            raise
        data = Path(path).read_bytes()
        tensors, metadata = strict_load(rewrite_header(data, _scalars_empty))
        # reported with the shape the file gives
        shapes = {
            n: [] if s == [0] and d in PACKED else s for n, (d, s, _) in tensors.items()
        }
        return {n: (d, shapes[n], b) for n, (d, _, b) in tensors.items()}, metadata
