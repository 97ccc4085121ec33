"""gguf 0.19.0 SafetensorsLocal (llama.cpp's converter) checks only N.

    .matrix/gguf/venv/bin/python matrix/repro/gguf_no_checks.py

Overlapping tensors, a shape whose element count is 2^64 over zero bytes,
and a dtype that is not a string all load; __metadata__ is never read.
"""

from pathlib import Path
from typing import Any

from _files import make
from gguf.utility import SafetensorsLocal

FILES: dict[str, tuple[dict[str, Any], bytes]] = {
    "a and b overlap (bytes 4..8 shared)": (
        {
            "a": {"dtype": "F32", "shape": [2], "data_offsets": [0, 8]},
            "b": {"dtype": "F32", "shape": [2], "data_offsets": [4, 12]},
        },
        bytes(12),
    ),
    "U8[2, 2^63] over 0 bytes": (
        {"a": {"dtype": "U8", "shape": [2, 2**63], "data_offsets": [0, 0]}},
        b"",
    ),
    'dtype {"F32": null}': (
        {"a": {"dtype": {"F32": None}, "shape": [1], "data_offsets": [0, 4]}},
        bytes(4),
    ),
}
for what, (header, data) in FILES.items():
    path = make(header, data)
    try:
        with SafetensorsLocal(Path(path)) as tensors:
            shown = {
                name: (t.dtype, t.shape, t.data_range.offset, t.data_range.size)
                for name, t in tensors.items()
            }
        print(f"{what}: loaded {shown}")
    except Exception as exc:  # noqa: BLE001 - shown
        print(f"{what}: rejected ({exc})")
