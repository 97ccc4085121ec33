"""What an auditor wants at a glance: counts, parameters, bytes per dtype."""

from __future__ import annotations

from stspec.audit.terminal import escape, human_bytes, share
from stspec.dtypes import DTYPES

# No typing at run time (start-up cost, see stspec/record.py); mypy reads this as True.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterable
    from typing import NamedTuple

    from stspec.reader.table import TensorTable
else:
    from stspec.record import NamedTuple

__all__ = ["Summary", "combine", "summarize"]


class Summary(NamedTuple):
    """Totals over one file, or over the files of one model.

    ``parameters`` counts elements (a scalar is one, a BOOL one per byte, an
    F4 two per byte).  ``header_bytes`` is 8 + N per file.
    """

    files: int
    tensors: int
    parameters: int
    dtype_bytes: dict[str, int]  # in the spec's dtype order
    header_bytes: int
    file_bytes: int
    metadata: dict[str, str] | None

    def as_dict(self) -> dict[str, object]:
        """Return the summary as plain JSON-ready data."""
        return {
            "files": self.files,
            "tensors": self.tensors,
            "parameters": self.parameters,
            "bytes_per_dtype": self.dtype_bytes,
            "header_bytes": self.header_bytes,
            "file_bytes": self.file_bytes,
            "header_share": (
                self.header_bytes / self.file_bytes if self.file_bytes else None
            ),
            "metadata": self.metadata,
        }

    def lines(self) -> list[str]:
        """Render the summary for a terminal, indented under the file's line."""
        dtypes = ", ".join(
            f"{name} {human_bytes(size)} ({share(size, self.data_bytes)})"
            for name, size in self.dtype_bytes.items()
        )
        if self.metadata is None:
            metadata = "none"
        else:
            metadata = ", ".join(
                f"{escape(key)}={escape(value)}" for key, value in self.metadata.items()
            )
        return [
            f"  tensors     {self.tensors:,} holding {self.parameters:,} parameters",
            f"  dtypes      {dtypes or 'none'}",
            f"  metadata    {metadata or '{}'}",
            (
                f"  header      {self.header_bytes:,} bytes, "
                f"{share(self.header_bytes, self.file_bytes)} of "
                f"{human_bytes(self.file_bytes)}"
            ),
        ]

    @property
    def data_bytes(self) -> int:
        """Bytes of tensor data (every dtype)."""
        return sum(self.dtype_bytes.values())


def summarize(
    tensors: TensorTable,
    metadata: dict[str, str] | None,
    data_start: int,
    file_length: int,
) -> Summary:
    """Summarise one valid file: its tensors, metadata, and where its buffer is."""
    _, codes, offsets, _, _ = tensors.columns
    if codes and not codes.strip(codes[:1]):
        # One dtype (strip takes every byte: faster than a set).  The tensors
        # of a valid file tile its buffer exactly (no hole, no overlap, no
        # trailing byte): that dtype holds all of it.
        sizes = {codes[0]: file_length - data_start}
    else:
        # Empty tensors hold no bytes, but their dtype is still in the file.
        sizes = dict.fromkeys(set(codes), 0)
        for tensor, code in enumerate(codes):
            sizes[code] += offsets[2 * tensor + 1] - offsets[2 * tensor]
    # SIZE-MATCH holds in a valid file, so each dtype's bytes are exactly its
    # element count times its bits: parameters follow without the shapes.
    dtype_bytes = {}
    parameters = 0
    for code in sorted(sizes):
        dtype = DTYPES[code]
        dtype_bytes[dtype.name] = sizes[code]
        parameters += sizes[code] * 8 // dtype.bits
    return Summary(
        files=1,
        tensors=len(codes),
        parameters=parameters,
        dtype_bytes=dtype_bytes,
        header_bytes=data_start,
        file_bytes=file_length,
        metadata=metadata,
    )


def combine(summaries: Iterable[Summary], metadata: dict[str, str] | None) -> Summary:
    """Add up the summaries of a model's files; ``metadata`` is the model's."""
    files = tensors = parameters = header = size = 0
    totals = dict.fromkeys((dtype.name for dtype in DTYPES), 0)
    seen: set[str] = set()
    for summary in summaries:
        files += summary.files
        tensors += summary.tensors
        parameters += summary.parameters
        header += summary.header_bytes
        size += summary.file_bytes
        seen.update(summary.dtype_bytes)
        for name, nbytes in summary.dtype_bytes.items():
            totals[name] += nbytes
    return Summary(
        files=files,
        tensors=tensors,
        parameters=parameters,
        dtype_bytes={name: nbytes for name, nbytes in totals.items() if name in seen},
        header_bytes=header,
        file_bytes=size,
        metadata=metadata,
    )
