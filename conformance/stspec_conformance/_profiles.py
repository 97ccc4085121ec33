"""The hypothesis profiles the suite runs under (``--hypothesis-profile`` overrides)."""

from __future__ import annotations

from typing import Final

from hypothesis import HealthCheck, settings

__all__ = ["DEFAULT_PROFILE", "register"]

DEFAULT_PROFILE: Final = "stspec-ci"
# Implementations under test are slow and their files large by design: these
# health checks would only report that.
_QUIET: Final = [
    HealthCheck.too_slow,
    HealthCheck.data_too_large,
    HealthCheck.filter_too_much,
]


def register() -> None:
    """Register ``stspec-ci`` (25 derandomised examples) and ``stspec-thorough``."""
    settings.register_profile(
        DEFAULT_PROFILE,
        max_examples=25,
        derandomize=True,
        database=None,
        deadline=None,
        print_blob=False,
        suppress_health_check=_QUIET,
    )
    settings.register_profile(
        "stspec-thorough",
        max_examples=2000,
        deadline=None,
        suppress_health_check=_QUIET,
    )
