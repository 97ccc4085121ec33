"""huggingface_hub's remote header reader against a real HTTP server on loopback.

``HfApi(endpoint=...).parse_safetensors_file_metadata(repo, filename)`` as its
users call it for a file on the Hub: a GET with ``Range: bytes=0-100000``,
then, when the header is longer than that first answer, a second GET for
``bytes=8-(N+7)``.  Here the endpoint is ``_range_server`` (a
``ThreadingHTTPServer`` on 127.0.0.1, started once per worker process), which
serves the file under test with the Hub's Range semantics, so a
range-boundary bug in the client shows.  Header-only.
``SafetensorsParsingError`` is a rejection, and so is the HTTP error the
client raises for a 416 (a file shorter than the range it asks).
"""

from __future__ import annotations

from typing import Final

import huggingface_hub
from _range_server import endpoint, serve_file
from _spec import Tensors
from huggingface_hub import HfApi
from huggingface_hub.errors import HfHubHTTPError, SafetensorsParsingError

NAME: Final = "huggingface_hub parse_safetensors_file_metadata (HTTP, loopback)"
VERSION: Final = str(huggingface_hub.__version__)
# hf_api.py refuses a header above constants.SAFETENSORS_MAX_HEADER_LENGTH
# (25_000_000 bytes: "safetensors header is too big").
CAPABILITIES: Final = {
    "header_only": True,
    "metadata_presence": False,
    "max_header_size": 25_000_000,
}
REJECTS: Final = (SafetensorsParsingError, HfHubHTTPError)


def load(path: str) -> tuple[Tensors, dict[str, str] | None]:
    """Names, dtypes, shapes and metadata read over HTTP Range requests."""
    serve_file(path)
    api = HfApi(endpoint=endpoint(), token=False)
    parsed = api.parse_safetensors_file_metadata("local/model", "model.safetensors")
    # the shape as the library returns it: it keeps a `null`, `true` or `1`
    # shape (TensorInfo counts it as 1 parameter), which the suite reports as a
    # malformed answer to an accepted file; list() would raise here instead
    tensors: Tensors = {
        name: (info.dtype, info.shape) for name, info in parsed.tensors.items()
    }
    # as the library gives it: None for "__metadata__": null, {} when absent
    return tensors, parsed.metadata
