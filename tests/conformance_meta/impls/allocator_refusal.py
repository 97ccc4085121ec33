"""A reader whose own allocator refuses a claimed buffer with an ordinary error.

torch's CPU allocator reports a failed allocation as RuntimeError("...can't
allocate memory..."), not MemoryError; a reader that sizes a buffer by the
file's claim before checking it then fails with that message.
"""

from __future__ import annotations

import stspec

__all__ = ["load"]

# The claim of n_prefix_n_2pow32: N = 2^32 in a 10-byte file.
_CLAIM = 1 << 32


def load(
    path: str,
) -> tuple[dict[str, tuple[str, list[int], bytes]], dict[str, str] | None]:
    with open(path, "rb") as file:  # noqa: PTH123 - a plain path string
        prefix = file.read(8)
    if len(prefix) == 8 and int.from_bytes(prefix, "little") == _CLAIM:
        raise RuntimeError(
            "[enforce fail at alloc_cpu.cpp:127] DefaultCPUAllocator: can't allocate "
            f"memory: you tried to allocate {_CLAIM} bytes. Error code 12 "
            "(Cannot allocate memory)"
        )
    with stspec.read(path) as st:
        tensors = {
            name: (info.dtype, list(info.shape), bytes(st.tensor_bytes(name)))
            for name, info in st.tensors.items()
        }
    return tensors, st.metadata
