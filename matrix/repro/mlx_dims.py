"""mlx keeps shapes in 32-bit ints: a huge dimension wraps into another shape.

    .matrix/mlx/venv/bin/python matrix/repro/mlx_dims.py

mlx 0.32.4 loads U8[2^32+1] over one byte of data as U8[1]: the dimension
wraps modulo 2^32, so a file every checking reader rejects (SIZE-MATCH)
loads as a different, smaller tensor.  The valid empty U8[2^64-1, 0] loads
as shape (-1, 0).  F8 tensors come back as uint8: the dtype is lost.
"""

import os

import mlx.core as mx
from _files import make

cases = {
    "U8[2^64-1, 0] (valid, empty)": (
        {"t": {"dtype": "U8", "shape": [2**64 - 1, 0], "data_offsets": [0, 0]}},
        b"",
    ),
    "U8[2^32 + 1] over 1 byte (invalid)": (
        {"t": {"dtype": "U8", "shape": [2**32 + 1], "data_offsets": [0, 1]}},
        b"\x07",
    ),
    "F8_E4M3[2]": (
        {"t": {"dtype": "F8_E4M3", "shape": [2], "data_offsets": [0, 2]}},
        b"\x38\xb8",
    ),
}
for what, (entries, data) in cases.items():
    path = make(entries, data)
    try:
        loaded = mx.load(path)["t"]
        print(f"{what}: accepted as {loaded.dtype}{tuple(loaded.shape)}")
    except Exception as exc:  # noqa: BLE001 - shown
        print(f"{what}: rejected ({exc})")
    finally:
        os.unlink(path)
