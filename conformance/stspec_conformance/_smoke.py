"""The smoke gate: before any case runs, the implementation must work at all.

A reader that cannot start (a wrapper whose library import fails, a JVM
without its class, a runtime refused by a memory limit) would otherwise
"reject" every invalid file and score perfectly on them.  So the controller
checks, once, that a command answers ``--describe`` and that the
implementation accepts a minimal valid file built by the reference writer,
with the right content (for a header-only validator: dtypes and shapes).
Anything else stops the run with a usage error saying what happened.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from stspec_conformance import _staging
from stspec_conformance._compare import content_problems
from stspec_conformance._minimal import minimal_file

if TYPE_CHECKING:
    from stspec_conformance._model import Outcome
    from stspec_conformance.adapters import Adapter

__all__ = ["SmokeError", "check"]


class SmokeError(Exception):
    """The implementation failed the smoke gate; the message says how."""


def _full(outcome: Outcome) -> str:
    kind = outcome.exception or outcome.crash
    text = outcome.status + (f" ({kind})" if kind else "")
    return text + (f": {outcome.message[:1500]}" if outcome.message else "")


def check(adapter: Adapter, *, timeout: float) -> None:
    """Raise :class:`SmokeError` unless the implementation can run at all."""
    describe_error = getattr(adapter, "describe_error", "")
    if describe_error:
        msg = (
            f"{adapter.label()}: --describe failed, so the program cannot be "
            f"trusted to run: {describe_error}"
        )
        raise SmokeError(msg)
    data, expected = minimal_file(adapter.capabilities)
    # Staged like every case: the file's name does not say it is the gate.
    outcome = _staging.attempt_load(adapter, data, timeout=timeout)
    what = (
        f"a minimal valid file ({len(data)} bytes, one tensor "
        f"{next(iter(expected.tensors.values())).describe()}, "
        f"metadata {expected.metadata})"
    )
    if outcome.status != "accepted" or outcome.content is None:
        msg = (
            f"{adapter.label()} cannot load {what}: {_full(outcome)}. "
            "Every case would fail or score as a rejection; fix the "
            "implementation or its adapter first"
        )
        raise SmokeError(msg)
    problems = content_problems(outcome.content, expected, adapter.capabilities)
    if problems:
        msg = f"{adapter.label()} loads {what} wrongly: {'; '.join(problems[:3])}"
        raise SmokeError(msg)
