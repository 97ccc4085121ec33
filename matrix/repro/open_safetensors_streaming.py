"""safetensors-streaming: ``safe_open`` a file and load every tensor.

    .matrix/safetensors-streaming/venv/bin/python \
        matrix/repro/open_safetensors_streaming.py FILE

Prints each tensor's dtype, shape and first bytes as the library returns them,
then "accepted"; whatever it raises (a Rust panic is a ``PanicException``) is
left uncaught.
"""

import sys

import safetensors_streaming as sst
import torch

with sst.safe_open(sys.argv[1]) as handle:
    for name in handle.keys():  # noqa: SIM118 - the library's own API
        tensor = handle.get_tensor(name).contiguous()
        head = tensor.flatten().view(torch.uint8)[:16].numpy().tobytes()
        print(f"{name}: {tensor.dtype} {list(tensor.shape)}, bytes {head.hex()}")
print("accepted")
