"""Adapters: every implementation kind normalised into one :class:`Adapter`."""

from __future__ import annotations

from stspec_conformance._capabilities import ALL_DTYPES, Capabilities
from stspec_conformance.adapters._base import (
    Adapter,
    AdapterOutputError,
    FailedOpen,
    Hang,
    InProcessAdapter,
    content_from_raw,
    status_of,
    time_limit,
)
from stspec_conformance.adapters._python import ImplError
from stspec_conformance.adapters._resolve import resolve

__all__ = [
    "ALL_DTYPES",
    "Adapter",
    "AdapterOutputError",
    "Capabilities",
    "FailedOpen",
    "Hang",
    "ImplError",
    "InProcessAdapter",
    "content_from_raw",
    "resolve",
    "status_of",
    "time_limit",
]
