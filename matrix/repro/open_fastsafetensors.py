"""fastsafetensors: ``fastsafe_open`` a file on the CPU and load every tensor.

    .matrix/fastsafetensors/venv/bin/python matrix/repro/open_fastsafetensors.py FILE

Prints each tensor's dtype and shape, then "accepted"; whatever it raises is
left uncaught.
"""

import sys

from fastsafetensors import fastsafe_open

with fastsafe_open(sys.argv[1], framework="pt", device="cpu", nogds=True) as handle:
    for name in handle.keys():  # noqa: SIM118 - the library's own API
        tensor = handle.get_tensor(name)
        print(f"{name}: {tensor.dtype} {list(tensor.shape)}")
print("accepted")
