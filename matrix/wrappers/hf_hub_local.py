"""huggingface_hub's own header parser on a local file.

``parse_local_safetensors_file_metadata(path)``, the local twin of the Hub's
``parse_safetensors_file_metadata``: N from the prefix, ``json.loads`` of the
header and a ``SafetensorsFileMetadata`` of ``TensorInfo`` objects.
Header-only.  Its ``SafetensorsParsingError`` is a rejection; anything else
it raises (a TypeError on an entry that is not an object) is a crash.
"""

from __future__ import annotations

from typing import Final

import huggingface_hub
from _spec import Tensors
from huggingface_hub import parse_local_safetensors_file_metadata
from huggingface_hub.errors import SafetensorsParsingError

NAME: Final = "huggingface_hub parse_local_safetensors_file_metadata"
VERSION: Final = str(huggingface_hub.__version__)
# It reads an absent __metadata__ as {}.
# hf_api.py refuses a header above constants.SAFETENSORS_MAX_HEADER_LENGTH
# (25_000_000 bytes: "safetensors header is too big").
CAPABILITIES: Final = {
    "header_only": True,
    "metadata_presence": False,
    "max_header_size": 25_000_000,
}
REJECTS: Final = (SafetensorsParsingError,)


def load(path: str) -> tuple[Tensors, dict[str, str] | None]:
    """Names, dtypes, shapes and metadata as the Hub client parses them."""
    parsed = parse_local_safetensors_file_metadata(path)
    # the shape as the library returns it: it keeps a `null`, `true` or `1`
    # shape (TensorInfo counts it as 1 parameter), which the suite reports as a
    # malformed answer to an accepted file; list() would raise here instead
    tensors: Tensors = {
        name: (info.dtype, info.shape) for name, info in parsed.tensors.items()
    }
    # as the library gives it: None for "__metadata__": null, {} when absent
    return tensors, parsed.metadata
