"""cryptotensors: ``safe_open`` then ``deserialize`` on a file, as HF's binding.

    .matrix/cryptotensors/venv/bin/python matrix/repro/open_cryptotensors.py FILE

Prints the CPU time of each step and what it gives, then "accepted";
whatever it raises is left uncaught.
"""

import resource
import sys

import cryptotensors


def cpu() -> float:
    """CPU seconds this process has used."""
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


start = cpu()
with cryptotensors.safe_open(sys.argv[1], framework="numpy") as handle:
    names = list(handle.keys())
    print(f"safe_open: {len(names)} tensors, {cpu() - start:.1f} s CPU", flush=True)
    print(f"metadata: {str(handle.metadata())[:200]}")
with open(sys.argv[1], "rb") as file:
    data = file.read()
start = cpu()
tensors = cryptotensors.deserialize(data)
print(f"deserialize: {len(tensors)} tensors, {cpu() - start:.1f} s CPU")
for name, info in tensors[:20]:
    print(f"{name}: {info['dtype']} {info['shape']}, {len(info['data'])} bytes")
print("accepted")
