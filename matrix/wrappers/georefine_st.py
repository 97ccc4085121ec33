"""georefine-verify 1.1.2: its HTTP-Range reader and its streaming exporter.

Read as its range mode reads a parent checkpoint (``--reference-mode range``,
verify.py): ``HttpFile(url)`` and ``read_safetensors_header`` (sources.py:259:
N, then the header by a ``Range`` request, N above 512 MiB refused, a byte
count checked against dtype x shape for its 15 dtypes), then each tensor's
bytes by Range requests in ``RAW_CHUNK`` (64 MiB) pieces at the absolute
offset it computed.  The server is ``_range_server`` on 127.0.0.1, the one
hf-hub-py-http uses.  ``__metadata__`` is read as ``pop(...) or {}``, so an
absent one, ``null`` and ``{}`` are the same to it (sources.py:266, declared).

Its ``http_get`` (sources.py:122) retries every failed request six times,
with sleeps of 1 to 32 s (63 s in all), before it raises ``SourceError``; the
loopback server answers a retry exactly as it answered the first request, so
the wrapper sets ``sources._RETRIES`` to 1: the same outcome, one second
instead of a minute.  Each tensor is a request of its own (a new connection
each): 50,000 one-byte tensors take about 18 s of the client's CPU alone.

Written as ``georefine_verify.export.export`` writes a model: from a bundle
whose tensors are all of kind ``raw`` (stored as they are in the bundle's
codec shard, which the wrapper writes with the standard library), it writes
the header (``_header``: tensors sorted by name, space padding to 8) and
copies each tensor's bytes.  It has no way to write ``__metadata__``, so a
request with metadata (even ``{}``) is refused.

``SourceError`` (the library's own, a ``RuntimeError``), ``json``'s
``ValueError`` and ``OSError`` reject or refuse; anything else escaping is
an unexpected exception.
"""

from __future__ import annotations

import hashlib
import json
import os
import struct
import tempfile
from importlib.metadata import version
from pathlib import Path
from typing import Final

from _range_server import FILE_PATH, endpoint, serve_file
from _spec import REFUSALS, Tensors
from georefine_verify import sources
from georefine_verify.export import export
from georefine_verify.sources import HttpFile, SourceError, read_safetensors_header
from georefine_verify.verify import RAW_CHUNK

NAME: Final = "georefine-verify (HTTP Range reader, exporter)"
VERSION: Final = version("georefine-verify")
# Its one limit (sources.py:262, N above 512 MiB) is above the format's own
# 100,000,000 bytes, so there is no implementation limit to declare.
CAPABILITIES: Final = {"metadata_presence": False}
REJECTS: Final = (SourceError, *REFUSALS)

sources._RETRIES = 1  # noqa: SLF001 - see the module docstring


class NoMetadataWriter(Exception):  # noqa: N818 - the refusal, not an error
    """The exporter writes no ``__metadata__``: the request is refused."""


WRITE_REJECTS: Final = (SourceError, NoMetadataWriter, *REFUSALS)


def _bytes_of(src: HttpFile, offset: int, size: int) -> bytearray:
    """A tensor's bytes read as verify.py reads them, RAW_CHUNK at a time.

    Grown as the pieces arrive, never sized from the header's claim: a claim
    past the file fails at the first short answer, as in verify.py.
    """
    data = bytearray()
    for at in range(0, size, RAW_CHUNK):
        data += src.read(offset + at, min(RAW_CHUNK, size - at))
    return data


def load(path: str) -> tuple[Tensors, dict[str, str] | None]:
    """The header and every tensor's bytes, over HTTP Range requests."""
    serve_file(path)
    src = HttpFile(endpoint() + FILE_PATH)
    entries, metadata, _start = read_safetensors_header(src)
    tensors: Tensors = {
        name: (e.dtype, list(e.shape), _bytes_of(src, e.offset, e.nbytes))
        for name, e in entries.items()
    }
    return tensors, metadata


def _codec_shard(path: Path, tensors: Tensors) -> None:
    """The bundle's shard: the tensors stored as they are (kind ``raw``)."""
    header, offset = {}, 0
    for name, (dtype, shape, data) in tensors.items():
        header[name] = {
            "dtype": dtype,
            "shape": list(shape),
            "data_offsets": [offset, offset + len(data)],
        }
        offset += len(data)
    text = json.dumps(header, separators=(",", ":")).encode()
    text += b" " * (-len(text) % 8)
    with path.open("wb") as file:
        file.write(struct.pack("<Q", len(text)) + text)
        for _dtype, _shape, data in tensors.values():
            file.write(data)


def save(path: str, tensors: Tensors, metadata: dict[str, str] | None) -> None:
    """``export`` of a bundle that holds the request's tensors as raw tensors."""
    if metadata is not None:
        raise NoMetadataWriter("georefine-verify's exporter takes no __metadata__")
    with tempfile.TemporaryDirectory() as scratch:
        bundle = Path(scratch, "bundle")
        bundle.mkdir()
        shard = bundle / "codec-00000.safetensors"
        _codec_shard(shard, tensors)
        manifest = {
            "format": "georefine.tbe.serve.v1",
            "shards": [
                {
                    "file": shard.name,
                    "bytes": shard.stat().st_size,
                    "sha256": hashlib.sha256(shard.read_bytes()).hexdigest(),
                }
            ],
            "tensors": [
                {
                    "name": name,
                    "shard": 0,
                    "kind": "raw",
                    "dtype": dtype,
                    "shape": list(shape),
                    "original_bytes": len(data),
                }
                for name, (dtype, shape, data) in tensors.items()
            ],
            "sidecars": [],
        }
        (bundle / "serve_manifest.json").write_text(json.dumps(manifest))
        out = Path(scratch, "out")
        export(str(bundle), out, work_dir=Path(scratch, "work"))
        os.replace(out / "model-00001-of-00001.safetensors", path)
