"""safetensors-streaming allocates a tensor's claimed size before checking its bytes.

    .matrix/safetensors-streaming/venv/bin/python \
        matrix/repro/sstreaming_allocates.py FILE

Gives the loads the memory the process already has plus 64 MiB (the allowance
safetensors-spec's conformance suite gives a reader of a small file), then
loads every tensor as ``open_safetensors_streaming.py`` does.  On a 69-byte
file that declares U8[2^30] over no bytes, ``get_tensor`` asks torch for the
whole 1 GiB and fails ("can't allocate memory"); a reader that compares the
shape's byte size with ``data_offsets`` first rejects the file within the
allowance.
"""

import os
import resource
import sys

import safetensors_streaming as sst
import torch

ALLOWANCE = 64 << 20


def data_size() -> int:
    """The process's data segment now (VmData), in bytes."""
    with open("/proc/self/status", encoding="ascii") as status:
        for line in status:
            if line.startswith("VmData:"):
                return int(line.split()[1]) << 10
    raise RuntimeError("no VmData in /proc/self/status")


limit = data_size() + ALLOWANCE
resource.setrlimit(resource.RLIMIT_DATA, (limit, resource.RLIM_INFINITY))
print(f"file of {os.path.getsize(sys.argv[1])} bytes, {ALLOWANCE >> 20} MiB allowed")
with sst.safe_open(sys.argv[1]) as handle:
    for name in handle.keys():  # noqa: SIM118 - the library's own API
        tensor = handle.get_tensor(name).contiguous()
        head = tensor.flatten().view(torch.uint8)[:16].numpy().tobytes()
        print(f"{name}: {tensor.dtype} {list(tensor.shape)}, bytes {head.hex()}")
print("accepted")
