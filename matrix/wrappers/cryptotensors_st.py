"""cryptotensors, a fork of the HF crate (its own Rust crate, PyO3 binding).

Read as HF's binding is read: ``safe_open(framework="numpy")`` validates the
file and gives the metadata, ``deserialize`` every tensor's raw bytes (above
256 MiB, views of a mapping of the file instead of a copy).  Reader only: its
writer takes torch dtype names, not the spec's.  It lacks the two FNUZ F8
dtypes and reads ``"__metadata__": {}`` as absent.  Its ``SafetensorError``
and the OSError of a file it cannot map are rejections.
"""

from __future__ import annotations

import os
from importlib.metadata import version
from typing import Final

import cryptotensors
from _spec import DTYPES, Tensors, mapped_slices

NAME: Final = "cryptotensors (Python binding)"
VERSION: Final = version("cryptotensors")
CAPABILITIES: Final = {
    "read_dtypes": [d for d in DTYPES if not d.endswith("FNUZ")],
    "metadata_presence": False,
}
REJECTS: Final = (cryptotensors.SafetensorError, OSError)
_IN_MEMORY: Final = 256 << 20


def load(path: str) -> tuple[Tensors, dict[str, str] | None]:
    """Validate with ``safe_open``; take the bytes from ``deserialize``."""
    with cryptotensors.safe_open(path, framework="numpy") as handle:
        metadata = handle.metadata()
        if os.path.getsize(path) > _IN_MEMORY:
            names = list(handle.keys())
            views = mapped_slices(path, names)
            out: Tensors = {}
            for name in names:
                view = handle.get_slice(name)
                out[name] = (view.get_dtype(), list(view.get_shape()), views[name])
            return out, metadata
    with open(path, "rb") as file:
        data = file.read()
    tensors = {
        name: (str(info["dtype"]), list(info["shape"]), bytes(info["data"]))
        for name, info in cryptotensors.deserialize(data)
    }
    return tensors, metadata
