"""tinygrad 0.14.0: ``nn.state.safe_load`` / ``safe_save`` on the CPU device.

``safe_load`` parses the header with ``json.loads`` and gives lazy tensors
sliced from the file (``bitcast`` + ``reshape``).  Their bytes come from one
batched ``Tensor.realize`` of copies on the CPU device, the cheapest way its
API offers to read them all: realising tensors one at a time (as
``load_state_dict`` does) schedules each one separately, several
milliseconds of CPU per tensor, about three times the batch's cost.  Its dtype table has
15 names (no F8_E8M0, FNUZ F8s, F4, F6, C64).
"""

from __future__ import annotations

from typing import Final

import numpy as np
from _spec import REFUSALS, Refused, Tensors, refusing_exactly
from tinygrad import Device, Tensor
from tinygrad.nn.state import safe_dtypes, safe_load, safe_load_metadata, safe_save

NAME: Final = "tinygrad"
VERSION: Final = "0.14.0"
_DTYPES: Final = sorted(safe_dtypes)
CAPABILITIES: Final = {"read_dtypes": _DTYPES, "write_dtypes": _DTYPES}
# its own checks raise ValueError or RuntimeError ("shape must be int"); the
# KeyError of a dtype missing from its table is an unexpected exception
READ_REJECTS: Final = (Refused, *REFUSALS)


@refusing_exactly(RuntimeError)
def load(path: str) -> tuple[Tensors, dict[str, str] | None]:
    """``safe_load``, then every tensor copied to the CPU in one batch."""
    loaded = safe_load(path)
    _, _, header = safe_load_metadata(path)
    inverse = {v: k for k, v in safe_dtypes.items()}
    # empty tensors have no buffer to realise
    copies = {
        name: t.to(Device.DEFAULT) for name, t in loaded.items() if t.numel() != 0
    }
    if copies:
        Tensor.realize(*copies.values())
    tensors: Tensors = {
        name: (
            inverse[t.dtype],
            list(t.shape),
            # the realised buffer's bytes, without scheduling anything more
            bytes(copies[name].uop.buffer.as_memoryview()) if name in copies else b"",
        )
        for name, t in loaded.items()
    }
    return tensors, header.get("__metadata__")


def save(path: str, tensors: Tensors, metadata: dict[str, str] | None) -> None:
    """``safe_save`` of CPU tensors made from the raw bytes."""
    made = {}
    for name, (dtype, shape, data) in tensors.items():
        raw = Tensor(np.frombuffer(bytes(data), dtype=np.uint8).copy())
        made[name] = raw.bitcast(safe_dtypes[dtype]).reshape(shape).realize()
    safe_save(made, path, metadata)
