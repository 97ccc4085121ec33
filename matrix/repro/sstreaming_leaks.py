"""safetensors-streaming returns process memory for a tensor whose range is short.

    .matrix/safetensors-streaming/venv/bin/python matrix/repro/sstreaming_leaks.py

U8[64] declared over the 4-byte range [0, 4] ("ABCD") is accepted, and its
64 bytes are not the file's: they are heap memory of the loading process
(pointer values such as ``...7f0000`` that change from run to run), so a
crafted file leaks addresses and data into the tensor.  The spec rejects the
file (SIZE-MATCH).  F32[1] over [0, 8] loads the first 4 bytes while gguf,
torch and npm safetensors take the range's 8; a dimension written ``2e0``
loads as a scalar F32[] here and as F32[2] elsewhere.
"""

import struct
from typing import Any

import safetensors_streaming as sst
from _files import make

FILES: dict[str, tuple[str | dict[str, Any], bytes]] = {
    "U8[64] over [0, 4]": (
        {"a": {"dtype": "U8", "shape": [64], "data_offsets": [0, 4]}},
        b"ABCD",
    ),
    "F32[1] over [0, 8]": (
        {"a": {"dtype": "F32", "shape": [1], "data_offsets": [0, 8]}},
        struct.pack("<2f", 1.5, -2.0),
    ),
    "F32[2e0] over [0, 8]": (
        '{"a":{"dtype":"F32","shape":[2e0],"data_offsets":[0,8]}}',
        struct.pack("<2f", 1.5, -2.0),
    ),
}
for what, (header, data) in FILES.items():
    path = make(header, data)
    with sst.safe_open(path) as handle:
        loaded = handle.get_tensor("a")
    raw = loaded.contiguous().numpy().tobytes()
    print(f"{what}: shape {list(loaded.shape)}, bytes {raw.hex()}")
