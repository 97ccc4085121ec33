"""compressed-tensors reads the header length a file claims, with no limit.

    .matrix/compressed-tensors/venv/bin/python \
        matrix/repro/ctensors_reads_n.py FILE

Gives the read the memory the process already has plus 64 MiB (the
allowance safetensors-spec's conformance suite gives a reader of a small
file), then calls ``get_safetensors_header`` on FILE and prints the
process's peak resident memory.  On a 10-byte file claiming an N of 2^32,
``f.read(N)`` asks for the claimed N at once and fails with
``MemoryError``; a reader that compares N with the file's size and the
format's limit rejects the file within the allowance.  Run without the
limit (``--no-limit``), the read is reserved, not touched: it returns the
2 bytes the file holds and the peak resident memory stays where it was.
"""

import os
import resource
import sys

from compressed_tensors.utils.safetensors_load import get_safetensors_header

ALLOWANCE = 64 << 20


def data_size() -> int:
    """The process's data segment now (VmData), in bytes."""
    with open("/proc/self/status", encoding="ascii") as status:
        for line in status:
            if line.startswith("VmData:"):
                return int(line.split()[1]) << 10
    raise RuntimeError("no VmData in /proc/self/status")


def peak_mib() -> float:
    """The process's peak resident memory so far, in MiB."""
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


path = sys.argv[-1]
if "--no-limit" not in sys.argv:
    limit = data_size() + ALLOWANCE
    resource.setrlimit(resource.RLIMIT_DATA, (limit, resource.RLIM_INFINITY))
    print(f"file of {os.path.getsize(path)} bytes, {ALLOWANCE >> 20} MiB allowed")
before = peak_mib()
try:
    header = get_safetensors_header(path)
finally:
    print(f"peak resident: {before:.0f} MiB before, {peak_mib():.0f} MiB after")
print(f"header: {str(header)[:200]}")
print("accepted")
