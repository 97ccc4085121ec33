"""pure-safetensors 0.3.2 writes files with a hole before the first tensor.

    .matrix/pure-safetensors/venv/bin/python matrix/repro/puresafe_writer_holes.py

Its writer page-aligns tensor data inside the data buffer and leaves the
bytes before it unclaimed (LAYOUT-HOLE).  Readers that check the layout,
HF safetensors among them ("invalid offset for tensor"), cannot load what it
writes.
"""

import json
import os
import tempfile
import warnings

import pure_safetensors as ps

warnings.simplefilter("ignore")  # "module sparsefile not available"
path = os.path.join(tempfile.mkdtemp(), "w.safetensors")
with ps.SafeTensors(path, "w+") as st:
    st.as_buffer().update({"a": (bytes(range(8)), ps.dtypes["U8"], (8,))})
with open(path, "rb") as file:
    n = int.from_bytes(file.read(8), "little")
    header = json.loads(file.read(n))
size = os.path.getsize(path)
begin, end = header["a"]["data_offsets"]
print(f"file {size} bytes, header {n} bytes, data buffer {size - 8 - n} bytes")
print(f"tensor 'a' U8[8] at [{begin}, {end}]: bytes 0..{begin} belong to no tensor")
