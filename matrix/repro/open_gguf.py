"""gguf (llama.cpp's converter): ``SafetensorsLocal`` on a file.

    .matrix/gguf/venv/bin/python matrix/repro/open_gguf.py FILE

Prints each tensor's dtype, shape and the length of the bytes it maps, then
"accepted"; whatever it raises is left uncaught.
"""

import sys
from pathlib import Path

from gguf.utility import SafetensorsLocal

with SafetensorsLocal(Path(sys.argv[1])) as tensors:
    for name, tensor in tensors.items():
        size = len(memoryview(tensor.mmap_bytes()))
        print(f"{name}: {tensor.dtype} {list(tensor.shape)}, {size} bytes mapped")
print("accepted")
