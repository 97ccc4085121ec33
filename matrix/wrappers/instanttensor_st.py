"""instanttensor 0.2.2: its header parser, ``read_safetensors_metadata``.

The package's loader (``instanttensor.safe_open``) copies to a CUDA device,
so on a machine without a GPU only its header parser runs: the function the
loader calls for every file, documented with a usage example but not exported
(``instanttensor._impl``).  It reads N and the JSON and checks the *last*
tensor's offsets against the file's size.  Header-only.  Its documented
errors (``ValueError``, ``FileNotFoundError``) reject; anything else escaping
is a crash.  An entry that is not an object is answered with no shape (the
suite's invalid-output): the parser returned it as a tensor.
"""

from __future__ import annotations

from importlib.metadata import version
from typing import Any, Final

from _spec import Tensors
from instanttensor._impl import read_safetensors_metadata

NAME: Final = "instanttensor read_safetensors_metadata"
VERSION: Final = version("instanttensor")
CAPABILITIES: Final = {"header_only": True}
REJECTS: Final = (ValueError, OSError)


def _entry(info: Any) -> tuple[Any, Any]:  # noqa: ANN401 - what it returned
    if not isinstance(info, dict):
        return None, None
    return info.get("dtype"), info.get("shape")


def load(path: str) -> tuple[Tensors, dict[str, str] | None]:
    """The tensor table and file metadata the loader would use."""
    metadata, tensors, _header_size = read_safetensors_metadata(path)
    return {name: _entry(info) for name, info in tensors.items()}, metadata
