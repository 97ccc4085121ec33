"""runai-model-streamer allocates the header size a file claims, before any check.

    .matrix/runai-model-streamer/venv/bin/python matrix/repro/runai_allocates_n.py FILE

Gives the read the memory the process already has plus 64 MiB (the
allowance safetensors-spec's conformance suite gives a reader of a small
file), then streams FILE as ``open_runai.py`` does.  On a 10-byte file that
claims a 100,000,001-byte header, ``SafetensorsStreamer`` asks for the whole
claimed header at once and fails with ``MemoryError``; a reader that compares
the claim with the file's size rejects the file within the allowance.
"""

import os
import resource
import sys

from runai_model_streamer import SafetensorsStreamer

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
with SafetensorsStreamer() as streamer:
    streamer.stream_file(sys.argv[1], device="cpu")
    for name, tensor in streamer.get_tensors():
        print(f"{name}: {tensor.dtype} {list(tensor.shape)}, {tensor.nbytes} bytes")
print("accepted")
