"""Helpers the Python wrappers share: spec dtype names and byte access.

Imported by the wrappers as a top-level module (the runner puts this folder on
``PYTHONPATH``); it needs only the standard library.
"""

from __future__ import annotations

import functools
import json
import mmap
import re
import struct
from typing import TYPE_CHECKING, Any, Final, TypeVar

if TYPE_CHECKING:
    from collections.abc import Callable

__all__ = [
    "DTYPES",
    "DTYPES_BUT_F6_FNUZ",
    "INT64_DIMENSIONS",
    "REFUSALS",
    "Refused",
    "Tensors",
    "header_of",
    "mapped_slices",
    "refusing_exactly",
]

DTYPES: Final = (
    "BOOL", "F4", "F6_E2M3", "F6_E3M2", "U8", "I8", "F8_E5M2", "F8_E4M3",
    "F8_E8M0", "F8_E4M3FNUZ", "F8_E5M2FNUZ", "I16", "U16", "F16", "BF16",
    "I32", "U32", "F32", "C64", "F64", "I64", "U64",
)  # fmt: skip
# the 18 a table without the F6 and FNUZ F8 types reads (torch's, onnx_ir's)
DTYPES_BUT_F6_FNUZ: Final = tuple(
    d for d in DTYPES if not d.startswith("F6_") and not d.endswith("FNUZ")
)

# The largest dimension a shape of int64 holds: torch's sizes are int64_t
# (c10::IntArrayRef) and numpy's npy_intp is 64 bits here, so a library that
# builds its tensors with either declares this max_dimension (SPEC 1.6).
INT64_DIMENSIONS: Final = 2**63 - 1

# How a Python library without an error type of its own refuses a file: a
# bad value (json's JSONDecodeError and UnicodeDecodeError are ValueErrors) or
# a failed read.  The runtime's own errors for code that went wrong
# (TypeError, KeyError, IndexError, OverflowError, struct.error, ...) are
# never a refusal: see "Errors and outcomes" in
# docs/howto/read-the-results-matrix.md, the one rule every wrapper follows.
REFUSALS: Final = (ValueError, OSError, EOFError)

_Load = TypeVar("_Load", bound="Callable[..., Any]")


class Refused(Exception):  # noqa: N818 - it is the verdict, not an error
    """The library refused with a general type it raises itself (see below)."""


# torch's allocator refusing a size the file claimed raises a plain
# RuntimeError ("DefaultCPUAllocator: can't allocate memory: you tried to
# allocate 17179869184 bytes"): the runtime ran out of memory, which is no
# judgement on the file, so it leaves as a MemoryError (the suite's resource).
_ALLOCATION_FAILED: Final = re.compile(
    r"can(?:no|')t allocate memory|out of memory|bad_alloc|allocation failed"
)


def refusing_exactly(*general: type[Exception]) -> Callable[[_Load], _Load]:
    """Decorate ``load``: an exception of exactly one of ``general`` is a refusal.

    Unless its message says an allocation failed: that is a MemoryError.

    A library that refuses with ``raise RuntimeError(...)`` (a native layer's
    error, torch's) or a bare ``raise Exception(...)`` cannot be told apart
    by ``isinstance`` from the runtime's own subclasses of those types
    (``RecursionError`` is a ``RuntimeError``).  The exact type is the
    library's refusal and is raised again as :class:`Refused`, which the
    wrapper lists in ``REJECTS``; a subclass escapes as it is.
    """

    def decorate(load: _Load) -> _Load:
        @functools.wraps(load)
        def judged(*args: Any, **kwargs: Any) -> Any:  # noqa: ANN401 - load's own
            try:
                return load(*args, **kwargs)
            except Exception as exc:
                if type(exc) in general:
                    said = f"{type(exc).__name__}: {exc}"
                    if _ALLOCATION_FAILED.search(str(exc)):
                        raise MemoryError(said) from exc
                    raise Refused(said) from exc
                raise

        return judged  # type: ignore[return-value]

    return decorate


# name -> (dtype, shape, bytes), or (dtype, shape) from a header-only validator
Tensors = dict[str, tuple[Any, ...]]


def header_of(path: str) -> dict[str, Any]:
    """The header JSON of a file another reader has already accepted."""
    with open(path, "rb") as file:
        (length,) = struct.unpack("<Q", file.read(8))
        header: dict[str, Any] = json.loads(file.read(length))
        return header


def mapped_slices(path: str, names: list[str]) -> dict[str, memoryview]:
    """Each tensor's bytes as a view of a read-only mapping of the file.

    Used only after the implementation accepted the file, for readers whose
    API gives no raw bytes of a huge tensor without copying gigabytes.
    """
    header = header_of(path)
    with open(path, "rb") as file:
        (length,) = struct.unpack("<Q", file.read(8))
        whole = memoryview(mmap.mmap(file.fileno(), 0, access=mmap.ACCESS_READ))
    base = 8 + length
    out = {}
    for name in names:
        entry = header[name]
        begin, end = entry["data_offsets"]
        out[name] = whole[base + begin : base + end]
    return out
