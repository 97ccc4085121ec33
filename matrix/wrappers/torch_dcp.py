"""torch 2.13 distributed checkpoint: ``_get_safetensors_file_metadata``.

The header reader that ``torch.distributed.checkpoint``'s Hugging Face
storage reader and ``_consolidate_hf_safetensors`` use: ``struct.unpack`` of
N, ``read(N)`` and ``json.loads``, no checks.  Header-only.  The
``ValueError`` it raises for undecodable text or bad JSON is its rejection;
the ``struct.error`` of a file shorter than 8 bytes and an ``OverflowError``
are the runtime's errors, unexpected exceptions; whatever it
returns is passed on as it is (an entry that is not an object, a dtype that
is not a string), so the wrapper never turns a header it accepted into an
exception of its own.
"""

from __future__ import annotations

from typing import Any, Final

import torch
from _spec import Tensors
from torch.distributed.checkpoint import _hf_utils

NAME: Final = "torch.distributed.checkpoint (HF header reader)"
VERSION: Final = str(torch.__version__)
CAPABILITIES: Final = {"header_only": True}


class Rejected(Exception):  # noqa: N818 - it is the verdict, not an error
    """The header reader raised ValueError (bad UTF-8 or JSON)."""


REJECTS: Final = (Rejected,)


def _entry(entry: Any) -> tuple[Any, Any]:  # noqa: ANN401 - raw JSON
    if isinstance(entry, dict):
        return entry.get("dtype"), entry.get("shape")
    return entry, []


def load(path: str) -> tuple[Tensors, dict[str, str] | None]:
    """The header as torch reads it; every entry is taken as a tensor."""
    with open(path, "rb") as file:
        try:
            header, _ = _hf_utils._get_safetensors_file_metadata(file)  # noqa: SLF001
        except ValueError as exc:
            raise Rejected(f"{type(exc).__name__}: {exc}") from exc
    if not isinstance(header, dict):
        return {}, None  # accepted: a header that is not an object
    metadata = header.pop("__metadata__", None)
    tensors: Tensors = {name: _entry(entry) for name, entry in header.items()}
    return tensors, metadata
