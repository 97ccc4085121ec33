"""The adapter module contract as ``typing.Protocol`` s, for mypy users.

A Python implementation is a module (or a ``.py`` file) with ``load`` and,
optionally, ``save``, ``classify``, ``CAPABILITIES`` and ``REJECTS``.  Each
protocol below names one part; a module satisfies it structurally, so a type
checker can check an adapter without running the suite::

    import my_adapter
    import stspec_conformance

    reader: stspec_conformance.ReaderAdapter = my_adapter
    writer: stspec_conformance.WriterAdapter = my_adapter  # if it has save()

The suite itself checks the same contract at run time (a usage error names
what is wrong), so the protocols are a convenience, never a requirement.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol, TypeAlias

if TYPE_CHECKING:
    import sys
    from collections.abc import Mapping, Sequence

    if sys.version_info >= (3, 12):
        from collections.abc import Buffer
    else:
        from typing_extensions import Buffer

__all__ = [
    "ClassifyingAdapter",
    "DeclaringAdapter",
    "LoadResult",
    "ReadRejectsAdapter",
    "ReaderAdapter",
    "RejectsAdapter",
    "TensorEntry",
    "WriteRejectsAdapter",
    "WriterAdapter",
]

# (dtype name as in the spec, shape, raw little-endian bytes exactly as stored:
# bytes, a memoryview of a mapping, a numpy array, any buffer); a declared
# header-only validator gives (dtype, shape) or (dtype, shape, None).
TensorEntry: TypeAlias = (
    "tuple[str, Sequence[int], Buffer] | tuple[str, Sequence[int]]"
    " | tuple[str, Sequence[int], None]"
)
# (tensors by name, the __metadata__ map or None)
LoadResult: TypeAlias = "tuple[Mapping[str, TensorEntry], Mapping[str, str] | None]"


class ReaderAdapter(Protocol):
    """A module with ``load(path) -> (tensors, metadata)``; raising rejects."""

    def load(self, path: str, /) -> LoadResult:
        """Read the file at ``path``; raise an exception to reject it."""
        ...


class WriterAdapter(ReaderAdapter, Protocol):
    """A reader that also writes: the writer tests run against ``save``."""

    def save(
        self,
        path: str,
        tensors: dict[str, tuple[str, tuple[int, ...], bytes]],
        metadata: dict[str, str] | None,
        /,
    ) -> None:
        """Write ``tensors`` (and ``metadata``) to ``path`` as a safetensors file."""
        ...


class ClassifyingAdapter(Protocol):
    """A module whose rejections name spec rule ids (``--check-rules``)."""

    def classify(self, exc: BaseException, /) -> str | None:
        """The rule id a rejection corresponds to, or None when unknown."""
        ...


class DeclaringAdapter(Protocol):
    """A module declaring what it does (docs/reference/capabilities.md)."""

    @property
    def CAPABILITIES(self) -> Mapping[str, object]:  # noqa: N802 - the module's name
        """``read_dtypes``, ``header_only``, ``metadata_presence``, ``write``, ..."""
        ...


class RejectsAdapter(Protocol):
    """A module naming the exception types that mean "rejected"."""

    @property
    def REJECTS(  # noqa: N802 - the module attribute's name
        self,
    ) -> type[BaseException] | tuple[type[BaseException], ...]:
        """Only these reject; any other exception is a crash."""
        ...


class ReadRejectsAdapter(Protocol):
    """A module naming the exception types that mean "rejected" when reading."""

    @property
    def READ_REJECTS(  # noqa: N802 - the module attribute's name
        self,
    ) -> type[BaseException] | tuple[type[BaseException], ...]:
        """Only these reject a file in ``load``; ``REJECTS`` when absent."""
        ...


class WriteRejectsAdapter(Protocol):
    """A module naming the exception types that mean "refused" when writing."""

    @property
    def WRITE_REJECTS(  # noqa: N802 - the module attribute's name
        self,
    ) -> type[BaseException] | tuple[type[BaseException], ...]:
        """Only these refuse a request in ``save``; ``REJECTS`` when absent."""
        ...
