"""reminis 0.34.0 reads the size a tensor claims before comparing it.

    .matrix/reminis/venv/bin/python matrix/repro/reminis_reads_claims.py

``safetensors_to_sqlite`` reads each tensor with ``f.read(end - begin)`` and
compares the count read with the range only afterwards.  ``f.read(n)``
reserves n bytes and fills only those the file holds, so a claim the system
can reserve (1 GiB, 8 GiB over a 4-byte buffer) is refused with reminis's
own ``ValueError`` ("ends early") and the peak resident memory stays where
it was; a claim it cannot (2^40 and up) escapes as ``MemoryError``.
"""

import os
import resource
import tempfile
from pathlib import Path

from _files import make
from reminis.safetensors_io import safetensors_to_sqlite


def peak_mib() -> float:
    """The process's peak resident memory so far, in MiB."""
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


for power in (2, 30, 33, 40, 53):
    claim = 1 << power
    header = {"a": {"dtype": "U8", "shape": [claim], "data_offsets": [0, claim]}}
    path = make(header, b"\1\2\3\4")
    try:
        with tempfile.TemporaryDirectory() as folder:
            safetensors_to_sqlite(path, str(Path(folder) / "m.db"), verbose=False)
        said = "accepted"
    except (ValueError, MemoryError) as exc:
        # the message after the temporary file's name
        said = f"{type(exc).__name__} {str(exc).partition(': ')[2]}".strip()
    finally:
        os.unlink(path)
    print(f"U8[2^{power}] over 4 bytes: {said}; peak {peak_mib():,.0f} MiB")
