"""runai-model-streamer 0.17.0, vLLM's streaming loader, on the CPU.

``SafetensorsStreamer().stream_file(path, device="cpu")`` parses the header
in Python (N, ``json``, the offsets: first tensor at 0, no gap, no overlap,
the file's exact length) and its C++ streamer reads the bytes; ``get_tensors``
yields torch tensors.  It has no API for ``__metadata__`` at all (vLLM never
reads it), so the wrapper answers None and declares ``metadata`` false: its
answers are compared on tensors, and files with invalid metadata must still
be rejected.  Its dtype table holds 18 names (no F6, no FNUZ F8).  It
refuses with ``ValueError`` (and torch with ``RuntimeError``); a
``TypeError``, ``KeyError`` or ``IndexError`` from its code is an unexpected
exception.
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
from runai_model_streamer import SafetensorsStreamer

NAME: Final = "runai-model-streamer SafetensorsStreamer"
VERSION: Final = version("runai-model-streamer")
REJECTS: Final = (Refused, *REFUSALS)
CAPABILITIES: Final = {
    "metadata": False,
    "read_dtypes": list(DTYPES_BUT_F6_FNUZ),
    "max_dimension": INT64_DIMENSIONS,  # torch tensors
}


@refusing_exactly(RuntimeError)
def load(path: str) -> tuple[Tensors, dict[str, str] | None]:
    """Stream the file to the CPU and take every tensor it yields."""
    with SafetensorsStreamer() as streamer:
        streamer.stream_file(path, device="cpu")
        tensors: Tensors = {
            name: as_spec(tensor) for name, tensor in streamer.get_tensors()
        }
    return tensors, None
