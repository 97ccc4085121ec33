"""model-fingerprint 0.1.1: a content fingerprinter with its own header parser.

``parse_detect`` dispatches on the magic (a file that starts with ``GGUF`` is
parsed as GGUF) and ``parse_safetensors`` reads the header with ``json``;
``fingerprint`` then hashes every tensor's byte range, which is where a range
past the end of the file is noticed.  The wrapper answers each tensor with the
range the library hashed (``data_start + offset``, ``nbytes``), viewed through
a read-only mapping.  Its ``ModelError`` and ``OSError`` are what its command
line reports as "failed to parse"; anything else escaping is a crash.  It reads
a missing, empty or non-object ``__metadata__`` as ``{}``.
"""

from __future__ import annotations

import mmap
from importlib.metadata import version
from pathlib import Path
from typing import Final

import model_fingerprint as mfp
from _spec import Tensors

NAME: Final = "model-fingerprint"
VERSION: Final = version("model-fingerprint")
CAPABILITIES: Final = {"metadata_presence": False}
REJECTS: Final = (mfp.ModelError, OSError)


def load(path: str) -> tuple[Tensors, dict[str, str] | None]:
    """``parse_detect`` + ``fingerprint``; the ranges it hashed."""
    with mfp.FileReader(Path(path)) as reader:
        model = mfp.parse_detect(reader, Path(path))
        mfp.fingerprint(model, reader)
        whole = (
            memoryview(mmap.mmap(reader.f.fileno(), 0, access=mmap.ACCESS_READ))
            if model.file_size
            else memoryview(b"")
        )
    tensors: Tensors = {}
    for info in model.tensors:
        begin = model.data_start + info.offset
        tensors[info.name] = (
            info.dtype,
            list(info.dims),
            whole[begin : begin + info.nbytes],
        )
    return tensors, model.metadata
