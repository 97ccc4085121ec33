"""The safetensors conformance suite: a pytest plugin, adapters and strategies.

Run it with ``pytest conformance --impl=X`` from a checkout, or with
``pytest --pyargs stspec_conformance --impl=X`` once installed; ``X`` is
``reference``, ``safetensors``, an importable module, a ``.py`` file or
``cmd:PROGRAM ARGS...``.  docs/reference/python-adapter.md is the contract; the
``*Adapter`` protocols type a Python adapter module.
"""

from __future__ import annotations

from stspec_conformance._contract import (
    ClassifyingAdapter,
    DeclaringAdapter,
    LoadResult,
    ReaderAdapter,
    ReadRejectsAdapter,
    RejectsAdapter,
    TensorEntry,
    WriterAdapter,
    WriteRejectsAdapter,
)

__all__ = [
    "SUITE_VERSION",
    "ClassifyingAdapter",
    "DeclaringAdapter",
    "LoadResult",
    "ReadRejectsAdapter",
    "ReaderAdapter",
    "RejectsAdapter",
    "TensorEntry",
    "WriteRejectsAdapter",
    "WriterAdapter",
    "__version__",  # noqa: F822 - from __getattr__
]

SUITE_VERSION = "1"


def __getattr__(name: str) -> str:
    # One version for the whole distribution (stspec.__version__), looked up
    # lazily: pytest imports this package in every run (the pytest11 entry
    # point), and importing stspec costs more than everything else it needs.
    if name == "__version__":
        from stspec import __version__  # noqa: PLC0415

        return __version__
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
