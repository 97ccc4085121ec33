"""The hypothesis profiles the suite runs under (``--hypothesis-profile`` overrides).

The default, ``stspec-ci``, does not shrink: a failing property still fails
on the same derandomised example, but minimising it costs hundreds of extra
loads, each a process for a ``cmd:`` program or an isolated worker's request
(a failing single fault of a command: minutes instead of about a second).
``stspec-shrink`` is the same with the shrink phase, for the smallest
counterexample; ``stspec-thorough`` draws 2,000 examples and shrinks.
"""

from __future__ import annotations

from typing import Final

from hypothesis import HealthCheck, Phase, settings

__all__ = ["DEFAULT_PROFILE", "SHRINK_PROFILE", "register"]

DEFAULT_PROFILE: Final = "stspec-ci"
SHRINK_PROFILE: Final = "stspec-shrink"
# Implementations under test are slow and their files large by design: these
# health checks would only report that.
_QUIET: Final = [
    HealthCheck.too_slow,
    HealthCheck.data_too_large,
    HealthCheck.filter_too_much,
]


def _derandomised(name: str, phases: list[Phase]) -> None:
    settings.register_profile(
        name,
        max_examples=25,
        derandomize=True,
        database=None,
        deadline=None,
        print_blob=False,
        phases=phases,
        suppress_health_check=_QUIET,
    )


def register() -> None:
    """Register ``stspec-ci``, ``stspec-shrink`` and ``stspec-thorough``."""
    _derandomised(DEFAULT_PROFILE, [Phase.explicit, Phase.generate])
    _derandomised(SHRINK_PROFILE, [Phase.explicit, Phase.generate, Phase.shrink])
    settings.register_profile(
        "stspec-thorough",
        max_examples=2000,
        deadline=None,
        suppress_health_check=_QUIET,
    )
