"""safetensors-streaming 0.1.1: its Rust header parser, on local files (CPU).

``safe_open(path)`` gives ``keys``, ``get_tensor`` (torch) and ``metadata``,
which is ``{}`` whether ``__metadata__`` is absent or empty (declared:
``metadata_presence`` false).
"""

from __future__ import annotations

from typing import Final

import safetensors_streaming as sst
from _spec import Tensors
from _torchbytes import as_spec

NAME: Final = "safetensors-streaming"
VERSION: Final = str(sst.__version__)
CAPABILITIES: Final = {"metadata_presence": False}


def load(path: str) -> tuple[Tensors, dict[str, str] | None]:
    """Every tensor through ``get_tensor``; ``{}`` metadata means none."""
    with sst.safe_open(path) as handle:
        names = handle.keys()  # a method of the handle, not of a dict
        tensors: Tensors = {name: as_spec(handle.get_tensor(name)) for name in names}
        metadata = dict(handle.metadata() or {})
    return tensors, metadata or None
