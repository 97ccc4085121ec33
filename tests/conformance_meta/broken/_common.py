"""Shared pieces of the deliberately broken implementations.

``strict_load`` is the reference reader in the minimal adapter form;
``naive_load`` reads the header with Python's json (last duplicate wins) and
takes every tensor's bytes at its offsets, checking nothing.  Each broken
module is the strict reader except for one fault.
"""

from __future__ import annotations

import json
import struct
from pathlib import Path
from typing import TYPE_CHECKING, Any

import stspec

if TYPE_CHECKING:
    from collections.abc import Callable, Iterable

Loaded = tuple[dict[str, tuple[str, list[int], bytes]], dict[str, str] | None]


def strict_load(path: str | bytes) -> Loaded:
    with stspec.read(path) as st:
        tensors = {
            name: (info.dtype, list(info.shape), bytes(st.tensor_bytes(name)))
            for name, info in st.tensors.items()
        }
        return tensors, st.metadata


def naive_load(
    path: str,
    *,
    size_of: Callable[[str, list[int]], int] | None = None,
    errors: str = "strict",
) -> Loaded:
    data = Path(path).read_bytes()
    (n,) = struct.unpack("<Q", data[:8])
    header = json.loads(data[8 : 8 + n].decode("utf-8", errors))
    buffer = data[8 + n :]
    metadata = header.pop("__metadata__", None)
    if metadata is not None:
        metadata = {
            k: v if isinstance(v, str) else json.dumps(v) for k, v in metadata.items()
        }
    tensors: dict[str, tuple[str, list[int], bytes]] = {}
    for name, entry in header.items():
        begin, end = (int(v) for v in entry["data_offsets"])
        shape = [int(d) for d in entry["shape"]]
        if end > len(buffer) or begin > end:
            raise ValueError("offsets outside the buffer")
        if size_of is not None and size_of(entry["dtype"], shape) != end - begin:
            raise ValueError("size mismatch")
        tensors[name] = (entry["dtype"], shape, buffer[begin:end])
    return tensors, metadata


def forgiving(rules: Iterable[str], **naive: Any) -> Callable[[str], Loaded]:
    """Return the strict reader, loading naively what first breaks one of ``rules``."""
    forgiven = frozenset(rules)

    def load(path: str) -> Loaded:
        try:
            return strict_load(path)
        except stspec.SafetensorsError as exc:
            if exc.rule in forgiven:
                return naive_load(path, **naive)
            raise

    return load


def rewrite_header(
    data: bytes, change: Callable[[dict[str, Any]], dict[str, Any]]
) -> bytes:
    """The file with its header parsed by Python's json, changed and re-encoded."""
    (n,) = struct.unpack("<Q", data[:8])
    header = change(json.loads(data[8 : 8 + n].decode("utf-8")))
    return _padded(json.dumps(header, separators=(",", ":")).encode(), data[8 + n :])


def covered_end(data: bytes) -> int:
    """8 + N + the largest data_offsets end of the header (read with json)."""
    n = int.from_bytes(data[:8], "little")
    header = json.loads(data[8 : 8 + n].decode("utf-8"))
    ends = [
        int(entry["data_offsets"][1])
        for name, entry in header.items()
        if name != "__metadata__"
    ]
    return 8 + n + max(ends, default=0)


def classify(exc: BaseException) -> str | None:
    return getattr(exc, "rule", None)


Tensors = dict[str, tuple[str, list[int], bytes]]


def _padded(header: bytes, buffer: bytes) -> bytes:
    header += b" " * (-(8 + len(header)) % 8)
    return struct.pack("<Q", len(header)) + header + buffer


def lax_bytes(tensors: Tensors, metadata: dict[str, str] | None) -> bytes:
    """Encode a request in insertion order with Python's json, checking nothing."""
    header: dict[str, Any] = {} if metadata is None else {"__metadata__": metadata}
    buffer = b""
    for name, (dtype, shape, data) in tensors.items():
        # a double for every number, as JSON libraries without integers have
        dims = [int(float(d)) for d in shape]
        header[name] = {
            "dtype": dtype,
            "shape": dims,
            "data_offsets": [len(buffer), len(buffer) + len(data)],
        }
        buffer += bytes(data)
    return _padded(json.dumps(header, separators=(",", ":")).encode(), buffer)


def reordered_bytes(
    tensors: Tensors,
    metadata: dict[str, str] | None,
    key: Callable[[str], Any],
) -> bytes:
    """The canonical form, except tensors of one dtype are ordered by ``key``.

    Each member's text is the reference writer's, so only the order differs.
    """
    rank = {dt.name: i for i, dt in enumerate(stspec.DTYPES)}
    names = sorted(tensors, key=lambda n: (-rank[tensors[n][0]], key(n)))
    parts: list[bytes] = []
    if metadata is not None:
        parts.append(_members(stspec.serialize({}, metadata)))
    buffer = b""
    for name in names:
        dtype, shape, data = tensors[name]
        alone = _members(stspec.serialize({name: (dtype, shape, data)}, None))
        head, _ = alone.rsplit(b'"data_offsets":[', 1)
        end = len(buffer) + len(data)
        parts.append(head + b'"data_offsets":[%d,%d]}' % (len(buffer), end))
        buffer += bytes(data)
    return _padded(b"{" + b",".join(parts) + b"}", buffer)


def _members(data: bytes) -> bytes:
    (n,) = struct.unpack("<Q", data[:8])
    return data[8 : 8 + n].rstrip(b" ")[1:-1]
