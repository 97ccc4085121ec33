"""pure-safetensors 0.3.2: ``SafeTensors(path, "r")`` reads, ``"w+"`` writes.

Its parser is Python (``json`` + a marshmallow schema); tensor bytes are
memory-mapped views.  It knows 13 dtypes (no F8, F6, F4, C64).  It refuses a
file with its ``SafeTensorError`` s, marshmallow's ``ValidationError`` (its
header schema) or ``ValueError``; the ``KeyError`` an unknown dtype raises is
an unexpected exception.
"""

from __future__ import annotations

from typing import Any, Final

import pure_safetensors as ps
from _spec import REFUSALS
from marshmallow import ValidationError
from pure_safetensors.exc import SafeTensorError

NAME: Final = "pure-safetensors"
VERSION: Final = "0.3.2"
_DTYPES: Final = sorted(ps.dtypes)
CAPABILITIES: Final = {"read_dtypes": _DTYPES, "write_dtypes": _DTYPES}
READ_REJECTS: Final = (SafeTensorError, ValidationError, *REFUSALS)

Tensors = dict[str, tuple[str, list[int], bytes]]


def load(path: str) -> tuple[Tensors, dict[str, str] | None]:
    """Map the file; each tensor's bytes are copied out of its mapping."""
    with ps.SafeTensors(path, "r") as st:
        out: Tensors = {}
        for name, info in st.tensors.items():
            _, mapping = st.get_memory_mapping_for_tensor(name)
            out[name] = (info.dtype.name, list(info.shape), bytes(mapping.buffer))
        metadata: Any = st.metadata
        return out, metadata


def save(path: str, tensors: Tensors, metadata: dict[str, str] | None) -> None:
    """Create the file, set the metadata, then fill each tensor's buffer."""
    with ps.SafeTensors(path, "w+") as st:
        if metadata is not None:
            st.metadata = metadata
        with_buffers = st.as_buffer()
        with_buffers.update(
            {
                name: (data, ps.dtypes[dtype], tuple(shape))
                for name, (dtype, shape, data) in tensors.items()
            }
        )


__all__ = [
    "CAPABILITIES",
    "NAME",
    "READ_REJECTS",
    "VERSION",
    "SafeTensorError",
    "load",
    "save",
]
