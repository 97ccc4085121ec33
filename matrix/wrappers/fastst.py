"""fastsafetensors 0.5.0 on the CPU (``nogds=True``): ``fastsafe_open``.

Its header parser is Python (``SafeTensorsMetadata``), the copy to the device
C++.  Absent metadata comes back as ``""`` (reported as None); ``{}`` as
``{}``.
"""

from __future__ import annotations

from importlib.metadata import version
from typing import Final

from _spec import Tensors
from _torchbytes import as_spec
from fastsafetensors import fastsafe_open

NAME: Final = "fastsafetensors"
VERSION: Final = version("fastsafetensors")


def load(path: str) -> tuple[Tensors, dict[str, str] | None]:
    """Copy the file to a CPU buffer and take every tensor from it."""
    with fastsafe_open(path, framework="pt", device="cpu", nogds=True) as handle:
        (metadata,) = handle.metadata().values()
        names = handle.keys()  # a method of the handle, not of a dict
        tensors: Tensors = {name: as_spec(handle.get_tensor(name)) for name in names}
    return tensors, dict(metadata) if metadata != "" else None
