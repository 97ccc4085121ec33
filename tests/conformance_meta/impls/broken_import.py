"""An adapter whose library is missing: every load raises ModuleNotFoundError."""

from __future__ import annotations


def load(path: str) -> object:
    import no_such_safetensors_library  # type: ignore[import-not-found]  # noqa: F401, PLC0415

    return path
