"""compressed-tensors 0.20.0: ``get_safetensors_header``.

The header reader of vLLM's and llm-compressor's quantised-checkpoint library
(``compressed_tensors.utils.safetensors_load``, in its ``__all__``), which
``get_weight_mappings`` calls on every checkpoint file it maps: ``struct``
unpacks N, ``read(N)`` with no limit, ``json.loads``, and the decoded JSON is
returned as it is (safetensors_load.py:302-313).  Header-only: no tensor
bytes are read.  Its refusals are Python's (``json``'s ``ValueError``s for bad
UTF-8 or JSON, ``OSError``); the ``struct.error`` of a file shorter than 8
bytes, an ``OverflowError`` and a ``RecursionError`` are the runtime's
errors, unexpected exceptions.  Whatever it returns is passed on unchanged
(an entry that is not an object has no shape), so the wrapper never turns a
header it accepted into an error of its own.
"""

from __future__ import annotations

from importlib.metadata import version
from typing import Any, Final

from _spec import REFUSALS, Tensors
from compressed_tensors.utils.safetensors_load import get_safetensors_header

NAME: Final = "compressed-tensors get_safetensors_header"
VERSION: Final = version("compressed-tensors")
CAPABILITIES: Final = {"header_only": True}
REJECTS: Final = REFUSALS


def _entry(entry: Any) -> tuple[Any, Any]:  # noqa: ANN401 - raw JSON
    if isinstance(entry, dict):
        return entry.get("dtype"), entry.get("shape")
    return entry, None


def load(path: str) -> tuple[Tensors, dict[str, str] | None]:
    """The header as ``get_weight_mappings`` reads it: every other key a tensor."""
    header = get_safetensors_header(path)
    if not isinstance(header, dict):
        return {}, None  # accepted: JSON that is not an object
    metadata = header.pop("__metadata__", None)
    return {name: _entry(entry) for name, entry in header.items()}, metadata
