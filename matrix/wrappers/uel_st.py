"""unifiedefficientloader 0.5.4 in its low-memory (streaming) mode.

``UnifiedSafetensorsLoader(path, low_memory=True)`` is the mode with a parser
of its own (the default mode preloads through HF's ``safe_open``): it reads N
and ``json.loads`` the header, then ``get_tensor`` reads each range from the
file and views it as dtype x shape.  18 dtypes (no F6, no FNUZ F8).  An
absent ``__metadata__`` comes back as ``{}``.  It has no error type of its
own: ``ValueError`` and torch's ``RuntimeError`` are its refusals; a
``TypeError``, ``KeyError``, ``OverflowError`` or ``struct.error`` is an
unexpected exception.
"""

from __future__ import annotations

from importlib.metadata import version
from typing import Final

from _spec import (
    DTYPES_BUT_F6_FNUZ,
    INT64_DIMENSIONS,
    REFUSALS,
    Refused,
    Tensors,
    refusing_exactly,
)
from _torchbytes import as_spec
from unifiedefficientloader import UnifiedSafetensorsLoader

NAME: Final = "unifiedefficientloader (low_memory=True)"
VERSION: Final = version("unifiedefficientloader")
REJECTS: Final = (Refused, *REFUSALS)
CAPABILITIES: Final = {
    "read_dtypes": list(DTYPES_BUT_F6_FNUZ),
    "metadata_presence": False,
    "max_dimension": INT64_DIMENSIONS,  # torch reshape(shape)
}


@refusing_exactly(RuntimeError)
def load(path: str) -> tuple[Tensors, dict[str, str] | None]:
    """Every key's ``get_tensor`` in streaming mode."""
    with UnifiedSafetensorsLoader(path, low_memory=True) as loader:
        names = loader.keys()  # a method of the loader, not of a dict
        tensors: Tensors = {key: as_spec(loader.get_tensor(key)) for key in names}
        metadata = loader.metadata()
    return tensors, metadata
