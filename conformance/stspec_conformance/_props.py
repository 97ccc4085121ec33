"""Helpers for the property tests: scratch files and outcome checks."""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

from stspec_conformance._model import Content, Outcome

if TYPE_CHECKING:
    from collections.abc import Mapping
    from pathlib import Path

    from stspec_conformance.adapters import Adapter
    from stspec_conformance.strategies import RawTensor


def put(scratch: Path, data: bytes, name: str = "example.safetensors") -> str:
    """Write ``data`` to a scratch file (one per xdist worker and name)."""
    path = scratch / f"{os.getpid()}-{name}"
    path.write_bytes(data)
    return str(path)


def show(data: bytes) -> str:
    """The start of a file, for failure messages."""
    head = data[:240]
    return f"{len(data)} bytes, starting {head!r}" + ("..." if len(data) > 240 else "")


def check_loads(
    impl: Adapter,
    path: str,
    data: bytes,
    tensors: Mapping[str, RawTensor],
    metadata: Mapping[str, str] | None,
    *,
    timeout: float,
    may_reject: bool = False,
) -> Outcome:
    """Load and compare with the model; raise AssertionError with a story."""
    outcome = impl.attempt_load(path, timeout=timeout)
    if outcome.failed_hard:
        raise AssertionError(f"{outcome.describe()} on a file of {show(data)}")
    if outcome.status == "rejected":
        if may_reject:
            return outcome
        raise AssertionError(
            f"rejected a valid file: {outcome.describe()}; file: {show(data)}"
        )
    if outcome.content is None:  # pragma: no cover - accepted always has content
        raise AssertionError("accepted without content")
    problems = outcome.content.differences(Content.from_raw(tensors, metadata))
    if problems:
        raise AssertionError(
            "loaded different content: "
            + "; ".join(problems[:5])
            + f"; file: {show(data)}"
        )
    return outcome
