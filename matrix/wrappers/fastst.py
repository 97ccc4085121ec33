"""fastsafetensors 0.5.0 on the CPU (``nogds=True``): ``fastsafe_open``.

Its header parser is Python (``SafeTensorsMetadata``), the copy to the device
C++.  Absent metadata comes back as ``""`` (reported as None); ``{}`` as
``{}``.  It reads the dtypes of its ``DType`` enum (17: no C64, F6 or FNUZ
F8; ``DType("C64")`` is a ValueError).  It refuses a file with a bare
``Exception("validate(...)")`` of its own, or ``ValueError``; any other
exception type escaping is unexpected, so only an exception of exactly the
type ``Exception`` counts as its refusal.
"""

from __future__ import annotations

from importlib.metadata import version
from typing import Final

from _spec import INT64_DIMENSIONS, REFUSALS, Refused, Tensors, refusing_exactly
from _torchbytes import as_spec
from fastsafetensors import fastsafe_open
from fastsafetensors.st_types import DType

NAME: Final = "fastsafetensors"
VERSION: Final = version("fastsafetensors")
CAPABILITIES: Final = {
    "read_dtypes": sorted(d.value for d in DType if d is not DType.AUTO),
    "max_dimension": INT64_DIMENSIONS,  # torch.empty(shape)
}


# its own Exception(...), and torch's RuntimeError for a shape it cannot make
REJECTS: Final = (Refused, *REFUSALS)


@refusing_exactly(Exception, RuntimeError)
def load(path: str) -> tuple[Tensors, dict[str, str] | None]:
    """Copy the file to a CPU buffer and take every tensor from it."""
    with fastsafe_open(path, framework="pt", device="cpu", nogds=True) as handle:
        (metadata,) = handle.metadata().values()
        names = handle.keys()  # a method of the handle, not of a dict
        tensors: Tensors = {name: as_spec(handle.get_tensor(name)) for name in names}
    return tensors, dict(metadata) if metadata != "" else None
