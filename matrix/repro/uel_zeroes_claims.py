"""unifiedefficientloader 0.5.4 zero-fills the size a tensor claims.

    .matrix/unifiedefficientloader/venv/bin/python matrix/repro/uel_zeroes_claims.py

``get_tensor`` (low-memory mode) makes ``bytearray(end - begin)`` and then
``readinto``s it, without comparing the range with the file or counting the
bytes read.  ``bytearray(n)`` writes n zeros, so the claim becomes resident
memory: a 92-byte file whose U8[2^30] claims [0, 2^30] over a 4-byte buffer
raises the peak resident memory by 1 GiB and loads as a 1 GiB tensor, its
first 4 bytes from the file and the rest zeros.  The header read differs:
``f.read(N)`` on a 10-byte file claiming N = 2^32 only reserves N, returns
the 2 bytes there are, and the file is accepted with the peak unchanged.
"""

import os
import resource
from typing import Any

from _files import make, raw
from unifiedefficientloader import UnifiedSafetensorsLoader


def peak_mib() -> float:
    """The process's peak resident memory so far, in MiB."""
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def load(path: str) -> dict[str, Any]:
    """Every tensor, as the loader's users read them; the file is removed."""
    try:
        with UnifiedSafetensorsLoader(path, low_memory=True) as loader:
            return {key: loader.get_tensor(key) for key in loader.keys()}  # noqa: SIM118
    finally:
        os.unlink(path)


load(make({"a": {"dtype": "U8", "shape": [4], "data_offsets": [0, 4]}}, b"\1\2\3\4"))
print(f"a valid 4-byte tensor: peak {peak_mib():,.0f} MiB")
count = len(load(raw((1 << 32).to_bytes(8, "little") + b"{}")))
print(
    f"N = 2^32 in a 10-byte file: accepted, {count} tensors; peak {peak_mib():,.0f} MiB"
)
claim = 1 << 30
header = {"a": {"dtype": "U8", "shape": [claim], "data_offsets": [0, claim]}}
a = load(make(header, b"\1\2\3\4"))["a"]
print(
    f"U8[2^30] over 4 bytes: accepted, {a.nbytes:,} bytes, first 4 {a[:4].tolist()}, "
    f"{int(a[4:].count_nonzero())} nonzero after them; peak {peak_mib():,.0f} MiB"
)
