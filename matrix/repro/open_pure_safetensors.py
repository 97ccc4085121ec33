"""pure-safetensors: ``SafeTensors(path, "r")`` and map every tensor.

    .matrix/pure-safetensors/venv/bin/python matrix/repro/open_pure_safetensors.py FILE

Prints each tensor's dtype, shape and the length of its mapping, then
"accepted"; whatever it raises is left uncaught.
"""

import sys

import pure_safetensors as ps

with ps.SafeTensors(sys.argv[1], "r") as st:
    for name, info in st.tensors.items():
        _, mapping = st.get_memory_mapping_for_tensor(name)
        size = len(bytes(mapping.buffer))
        print(f"{name}: {info.dtype.name} {list(info.shape)}, {size} bytes")
print("accepted")
