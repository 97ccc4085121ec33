"""tinygrad: ``safe_load`` a file and realise every tensor on the CPU.

    .matrix/tinygrad/venv/bin/python matrix/repro/open_tinygrad.py FILE

Prints each tensor's dtype, shape and the length of its bytes, then "accepted";
whatever it raises is left uncaught.
"""

import sys

from tinygrad.nn.state import safe_load

for name, tensor in safe_load(sys.argv[1]).items():
    size = len(tensor.numpy().tobytes())
    print(f"{name}: {tensor.dtype} {list(tensor.shape)}, {size} bytes")
print("accepted")
