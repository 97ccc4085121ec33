"""The minimal valid file: the smoke gate's probe and the runtimes' warm-up load.

It sits below the adapters (they load it once to learn the runtime's own
memory) and below the smoke gate, which judges the implementation on it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Final

import stspec
from stspec_conformance._capabilities import DTYPE_ORDER
from stspec_conformance._model import Content

if TYPE_CHECKING:
    from stspec_conformance._capabilities import Capabilities

__all__ = ["minimal_file"]

_PREFERRED: Final = ("F32", "U8")


def minimal_file(caps: Capabilities) -> tuple[bytes, Content]:
    """A small valid file in a dtype the implementation reads, and its content."""
    dtype = next(
        (d for d in (*_PREFERRED, *DTYPE_ORDER) if caps.reads(d)), DTYPE_ORDER[0]
    )
    bits = stspec.DTYPES[DTYPE_ORDER.index(dtype)].bits
    # eight elements are whole bytes for every dtype (4-, 6- and 8k-bit)
    raw = bytes((17 * i + 3) % 256 for i in range(bits))
    tensors = {"weight": (dtype, (8,), raw)}
    # No metadata: a reader that drops or mishandles __metadata__ can still run,
    # and its metadata faults are judged case by case, not by stopping the run.
    data = stspec.serialize(tensors, None)
    return data, Content.from_raw(tensors, None)
