"""torch 2.13 distributed checkpoint: ``_get_safetensors_file_metadata``.

The header reader that ``torch.distributed.checkpoint``'s Hugging Face
storage reader and ``_consolidate_hf_safetensors`` use: ``struct.unpack`` of
N, ``read(N)`` and ``json.loads``, no checks.  Header-only.
"""

from __future__ import annotations

from typing import Final

import torch
from _spec import Tensors
from torch.distributed.checkpoint import _hf_utils

NAME: Final = "torch.distributed.checkpoint (HF header reader)"
VERSION: Final = str(torch.__version__)
CAPABILITIES: Final = {"header_only": True}


def load(path: str) -> tuple[Tensors, dict[str, str] | None]:
    """The header as torch reads it; every entry is taken as a tensor."""
    with open(path, "rb") as file:
        header, _ = _hf_utils._get_safetensors_file_metadata(file)  # noqa: SLF001
    metadata = header.pop("__metadata__", None)
    tensors: Tensors = {
        name: (entry["dtype"], list(entry["shape"])) for name, entry in header.items()
    }
    return tensors, metadata
