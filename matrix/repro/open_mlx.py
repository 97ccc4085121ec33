"""mlx: ``mx.load`` a safetensors file with its metadata.

    .matrix/mlx/venv/bin/python matrix/repro/open_mlx.py FILE

Prints each array's dtype and shape, then "accepted"; whatever it raises is left
uncaught.
"""

import sys

import mlx.core as mx

arrays, metadata = mx.load(sys.argv[1], format="safetensors", return_metadata=True)
for name, array in arrays.items():
    print(f"{name}: {array.dtype} {list(array.shape)}")
print(f"metadata: {metadata}")
print("accepted")
