r"""tinygrad's safe_load takes N on trust: its slices of the file clamp silently.

    PATH=.matrix/tinygrad/bin:$PATH DEV=CPU \
        .matrix/tinygrad/venv/bin/python matrix/repro/tinygrad_unchecked_n.py

N = 2^64-1 in a 10-byte file is accepted (an empty model whose data would
start at byte 2^64+7); so is N one past the end of the file.  Offsets past
the end are caught later, by ``reshape``, when the clamped slice is too short.
"""

import json
import os

from _files import raw
from tinygrad.nn.state import safe_load, safe_load_metadata

for n in (2**64 - 1, 3):
    path = raw(n.to_bytes(8, "little") + b"{}")
    _, start, header = safe_load_metadata(path)
    print(f"N = {n} in a 10-byte file: accepted, header {header}, data at {start}")
    os.unlink(path)

header = json.dumps({"w": {"dtype": "F32", "shape": [4], "data_offsets": [0, 16]}})
path = raw(len(header).to_bytes(8, "little") + header.encode() + b"\x00" * 4)
try:
    w = safe_load(path)["w"]
    got = w.flatten().data().tobytes()
    print(f"F32[4] with 4 of 16 bytes present: shape {w.shape}, {len(got)} bytes")
except Exception as exc:  # noqa: BLE001 - shown
    print(f"offsets past the end: {type(exc).__name__}: {exc}")
os.unlink(path)
