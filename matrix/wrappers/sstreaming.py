"""safetensors-streaming 0.1.1: its Rust header parser, on local files (CPU).

``safe_open(path)`` gives ``keys``, ``get_tensor`` (torch) and ``metadata``,
which is ``{}`` whether ``__metadata__`` is absent or empty (declared:
``metadata_presence`` false).  It reads 10 dtypes (no unsigned type wider than
U8, no F8, F6, F4 or C64).  Its Rust errors arrive as ``RuntimeError`` (torch's
too); a Rust panic is a ``PanicException``, a native crash.
"""

from __future__ import annotations

from typing import Final

import safetensors_streaming as sst
from _spec import INT64_DIMENSIONS, REFUSALS, Refused, Tensors, refusing_exactly
from _torchbytes import as_spec

NAME: Final = "safetensors-streaming"
VERSION: Final = str(sst.__version__)
CAPABILITIES: Final = {
    "metadata_presence": False,
    # its core knows these 10; any other dtype is "core error: unknown dtype"
    "read_dtypes": [
        "BOOL", "U8", "I8", "I16", "F16", "BF16", "I32", "F32", "F64", "I64",
    ],
    "max_dimension": INT64_DIMENSIONS,  # torch tensors
}  # fmt: skip
REJECTS: Final = (Refused, *REFUSALS)


@refusing_exactly(RuntimeError)
def load(path: str) -> tuple[Tensors, dict[str, str] | None]:
    """Every tensor through ``get_tensor``; ``{}`` metadata means none."""
    with sst.safe_open(path) as handle:
        names = handle.keys()  # a method of the handle, not of a dict
        tensors: Tensors = {name: as_spec(handle.get_tensor(name)) for name in names}
        metadata = dict(handle.metadata() or {})
    return tensors, metadata or None
