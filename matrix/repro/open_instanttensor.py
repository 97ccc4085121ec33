"""instanttensor: ``read_safetensors_metadata``, its loader's header parser.

    .matrix/instanttensor/venv/bin/python \
        matrix/repro/open_instanttensor.py FILE

``instanttensor.safe_open`` calls it for every file before copying to the
GPU.  Prints the tensors it lists, then "accepted"; whatever it raises is
left uncaught.
"""

import sys

from instanttensor._impl import read_safetensors_metadata

metadata, tensors, header_size = read_safetensors_metadata(sys.argv[1])
for name, info in list(tensors.items())[:20]:
    print(f"{name}: {info}")
print(f"metadata: {str(metadata)[:200]}; data starts at {header_size}")
print("accepted")
