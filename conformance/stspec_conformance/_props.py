"""Helpers for the property tests: scratch files, loads judged by the declaration."""

from __future__ import annotations

from typing import TYPE_CHECKING

from stspec_conformance import _outcomes, _staging
from stspec_conformance._compare import content_problems
from stspec_conformance._extent import extent_of
from stspec_conformance._model import Content, Outcome
from stspec_conformance._results import DIFFERS_PROPERTY, EXPECTS_PROPERTY, differs_in

if TYPE_CHECKING:
    from collections.abc import Mapping

    import pytest

    from stspec_conformance._capabilities import Capabilities
    from stspec_conformance._files import RawTensor
    from stspec_conformance.adapters import Adapter

__all__ = ["check_loads", "expect", "show", "verdict_of"]

SHOWN_BYTES = 240


def show(data: bytes) -> str:
    """The start of a file, for failure messages (bounded)."""
    head = data[:SHOWN_BYTES]
    more = "..." if len(data) > SHOWN_BYTES else ""
    return f"{len(data)} bytes, starting {head!r}{more}"


def expect(node: pytest.Item | None, answer: str) -> None:
    """Say which answer (``accept``/``reject``) the failing request needed."""
    if node is not None:
        node.user_properties.append((EXPECTS_PROPERTY, answer))


def verdict_of(outcome: Outcome, node: pytest.Item | None) -> str:
    """Record the outcome class on the test item and return it.

    An answer that did not come back in the documented form but was not a
    rejection (``invalid-output``) is returned as is; callers that expected a
    rejection report it as an acceptance.
    """
    status = outcome.status
    crash = outcome.exception or getattr(outcome, "crash", "")
    _outcomes.record(node, status, crash=crash, memory=getattr(outcome, "memory", ""))
    return status


def _beyond_declared(caps: Capabilities, data: bytes) -> bool:
    """Whether a valid file goes beyond a limit the reader declares (SPEC 1.6)."""
    if not caps.limited:
        return False
    extent = extent_of(data)
    return extent is not None and caps.beyond(extent) is not None


def check_loads(
    impl: Adapter,
    data: bytes,
    tensors: Mapping[str, RawTensor],
    metadata: Mapping[str, str] | None,
    *,
    timeout: float,
    may_reject: bool = False,
    undeclared_dtype: bool = False,
    node: pytest.Item | None = None,
) -> Outcome:
    """Load (a private copy) and compare with the model; raise AssertionError."""
    outcome = _staging.attempt_load(impl, data, timeout=timeout)
    verdict_of(outcome, node)
    if undeclared_dtype and outcome.status in {"rejected", "exception"}:
        return outcome  # a dtype it does not declare: as for the corpus (_verdicts)
    if outcome.failed_hard:
        raise AssertionError(f"{outcome.describe()} on a file of {show(data)}")
    if outcome.status == "rejected":
        if may_reject or _beyond_declared(impl.capabilities, data):
            return outcome
        raise AssertionError(
            f"rejected a valid file: {outcome.describe()}; file: {show(data)}"
        )
    if outcome.content is None:  # pragma: no cover - accepted always has content
        raise AssertionError("accepted without content")
    expected = Content.from_raw(tensors, metadata)
    problems = content_problems(outcome.content, expected, impl.capabilities)
    if problems:
        _outcomes.record(node, "wrong-content")
        if node is not None:
            node.user_properties.append((DIFFERS_PROPERTY, differs_in(problems)))
        raise AssertionError(
            "loaded different content: "
            + "; ".join(problems[:5])
            + f"; file: {show(data)}"
        )
    return outcome
