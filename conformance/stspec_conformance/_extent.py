"""How far a valid file reaches: what the implementation limits of SPEC 1.6 measure.

A reader may set limits below the format's own (fewer tensors, shorter names,
lower rank, a smaller number range, a smaller header or file) and refuse
larger files as unsupported.  The suite compares a declared limit with the
:class:`Extent` of the file a reader refused; only a valid file is measured,
with the strict reference reader, so nothing the file claims is trusted.
"""

from __future__ import annotations

import os
import struct
from dataclasses import dataclass
from typing import TYPE_CHECKING

import stspec

if TYPE_CHECKING:
    from pathlib import Path

__all__ = ["Extent", "extent_of"]


@dataclass(frozen=True, slots=True)
class Extent:
    """The sizes a valid file reaches, one per declarable limit."""

    file: int  # bytes
    header: int  # N, the header's length
    tensor: int  # bytes of the largest tensor
    tensors: int = 0  # how many tensors
    name: int = 0  # UTF-8 bytes of the longest tensor name
    rank: int = 0  # dimensions of the highest-rank tensor
    dimension: int = 0  # the largest single dimension
    number: int = 0  # the largest integer of the header (dimensions, offsets)


def _header_length(data: bytes | None, path: str | Path | None) -> int:
    if data is not None:
        prefix = data[:8]
    else:
        assert path is not None  # noqa: S101 - one of the two is given
        with open(path, "rb") as file:
            prefix = file.read(8)
    return int(struct.unpack("<Q", prefix)[0]) if len(prefix) == 8 else 0


def extent_of(source: str | Path | bytes) -> Extent | None:
    """Measure a valid file (a path or its bytes); None if the reference rejects it."""
    data = source if isinstance(source, bytes) else None
    path = None if isinstance(source, bytes) else source
    size = len(data) if data is not None else os.stat(str(path)).st_size
    try:
        with stspec.read(source if data is None else data) as st:
            infos = list(st.tensors.values())
    except (stspec.SafetensorsError, OSError):
        return None
    dims = [dim for info in infos for dim in info.shape]
    offsets = [value for info in infos for value in (info.begin, info.end)]
    return Extent(
        file=size,
        header=_header_length(data, path),
        tensor=max((info.nbytes for info in infos), default=0),
        tensors=len(infos),
        name=max(
            (len(info.name.encode("utf-8", "surrogatepass")) for info in infos),
            default=0,
        ),
        rank=max((len(info.shape) for info in infos), default=0),
        dimension=max(dims, default=0),
        number=max([*dims, *offsets], default=0),
    )
