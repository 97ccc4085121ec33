"""tinygrad 0.14.0: ``nn.state.safe_load`` / ``safe_save`` on the CPU device.

``safe_load`` parses the header with ``json.loads`` and gives lazy tensors
sliced from the file (``bitcast`` + ``reshape``).  The bytes of tensors up
to 1 MiB come from one batched ``Tensor.realize`` of copies on the CPU
device: realising tensors one at a time (as ``load_state_dict`` does)
schedules each one separately, several milliseconds of CPU per tensor,
about twice the batch's cost on 2,000 tensors.  A larger tensor is read
alone, so the wrapper never holds two copies of a large one.  Its dtype
table has 15 names (no F8_E8M0, FNUZ F8s, F4, F6, C64).
"""

from __future__ import annotations

from typing import Any, Final

import numpy as np
from _spec import REFUSALS, Refused, Tensors, refusing_exactly
from tinygrad import Device, Tensor, dtypes
from tinygrad.nn.state import safe_dtypes, safe_load, safe_load_metadata, safe_save

NAME: Final = "tinygrad"
VERSION: Final = "0.14.0"
_DTYPES: Final = sorted(safe_dtypes)
CAPABILITIES: Final = {"read_dtypes": _DTYPES, "write_dtypes": _DTYPES}
# its own checks raise ValueError or RuntimeError ("shape must be int"); the
# KeyError of a dtype missing from its table is an unexpected exception
READ_REJECTS: Final = (Refused, *REFUSALS)
# tensors up to this many bytes are realised together: scheduling each one
# alone costs milliseconds of CPU, and a file may hold thousands; a larger
# tensor is copied out alone, so no second copy of it is held at once
_BATCHED_UP_TO: Final = 1 << 20


@refusing_exactly(RuntimeError)
def load(path: str) -> tuple[Tensors, dict[str, str] | None]:
    """``safe_load``; small tensors copied to the CPU in one batch, large ones alone."""
    loaded = safe_load(path)
    _, _, header = safe_load_metadata(path)
    inverse = {v: k for k, v in safe_dtypes.items()}
    small = {
        name: t.to(Device.DEFAULT)
        for name, t in loaded.items()
        if 0 < t.nbytes() <= _BATCHED_UP_TO
    }
    if small:
        Tensor.realize(*small.values())

    def raw(name: str, tensor: Any) -> bytes | memoryview:  # noqa: ANN401 - untyped
        if tensor.numel() == 0:
            return b""
        if name in small:  # realised: one copy out of its CPU buffer
            return bytes(small.pop(name).uop.buffer.as_memoryview(allow_zero_copy=True))
        # data() is already a copy of its own (a bytearray): no second one
        view: memoryview = tensor.flatten().bitcast(dtypes.uint8).data()
        return view

    tensors: Tensors = {
        name: (inverse[t.dtype], list(t.shape), raw(name, t))
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
