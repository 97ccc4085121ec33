"""Corpus verdicts judged within what the implementation declares.

The corpus tests call these before the shared checks in ``_checks``:

* a valid file rejected by a reader that does not declare one of its dtypes,
  or beyond a declared implementation limit (SPEC 1.6: file,
  header, tensor, tensor count, name length, rank, dimension, number range),
  or one on which it raised a managed runtime's own exception there, is not
  applicable (an accepted one is still compared: declaring
  less never turns wrong content into a pass);
* an accepted file is compared as the declaration allows (``_compare``: a
  reader declaring ``metadata`` false that reports none is compared on its
  tensors), and a reader that does not declare ``header_only`` must return
  tensor bytes;
* an invalid file answered in a malformed way was not rejected: it is
  reported as accepted (a pass-through wrapper printing what a lax library
  parsed), not as unstable output.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Final

import pytest

from stspec_conformance import _outcomes
from stspec_conformance._compare import (
    case_dtypes,
    ignores_metadata,
    missing_bytes,
    narrow_case,
    within_declaration,
)
from stspec_conformance._extent import extent_of
from stspec_conformance._limits import header_length

if TYPE_CHECKING:
    from collections.abc import Mapping
    from pathlib import Path

    from stspec_conformance._capabilities import Capabilities
    from stspec_conformance._model import Outcome
    from stspec_conformance.adapters import Adapter

__all__ = ["acceptable", "malformed_acceptance", "must_not_accept"]

# What a reader may answer on a valid file of a dtype it does not declare, or
# beyond a limit it declares, without failing: a refusal, or a managed
# runtime's own error (a missing Float16Array, a KeyError on the dtype table,
# torch refusing a dimension above 2^63 - 1) -- declaring less is what tells
# the user not to hand it such files.  A native crash, a hang or an
# allocation beyond the allowance is still a failure: those are unsafe on
# any input, declared or not.
_OUTSIDE_DECLARED: Final = frozenset({"rejected", "exception"})


def _where(case: Mapping[str, Any], path: Path) -> str:
    rules = ", ".join(case.get("rules", [])) or "none"
    handed = f"\n  handed:  {case['handed']}" if case.get("handed") else ""
    return (
        f"\n  case:    {case['id']} ({case['verdict']}; rules: {rules})"
        f"\n  file:    {path}{handed}"
    )


def acceptable(
    case: Mapping[str, Any],
    path: Path,
    outcome: Outcome,
    impl: Adapter,
    node: pytest.Item,
) -> dict[str, Any]:
    """Judge a y_/i_ load by the declaration; return the case to check against."""
    caps = impl.capabilities
    valid = case["verdict"] == "valid"
    if valid and outcome.status in _OUTSIDE_DECLARED:
        undeclared = (case_dtypes(case, path) or frozenset()) - caps.read_dtypes
        if undeclared:
            how = (
                "rejected"
                if outcome.status == "rejected"
                else "raised an unexpected exception on"
            )
            _outcomes.not_applicable(
                f"{how} a file of {', '.join(sorted(undeclared))}, which the "
                "implementation does not declare in read_dtypes",
                node,
            )
    if valid and outcome.status in _OUTSIDE_DECLARED:
        beyond = _beyond_limits(case, path, caps)
        if beyond:
            how = (
                "rejected"
                if outcome.status == "rejected"
                else "raised an unexpected exception on"
            )
            _outcomes.not_applicable(
                f"{how} a file beyond the declared {beyond} (an implementation "
                "limit, SPEC 1.6)",
                node,
            )
    ignored = False
    if outcome.status == "accepted" and outcome.content is not None:
        missing = missing_bytes(outcome.content, caps)
        if missing:
            _outcomes.record(node, "wrong-content")
            pytest.fail(f"{missing}{_where(case, path)}", pytrace=False)
        ignored = ignores_metadata(outcome.content, caps)
        outcome.content = within_declaration(outcome.content, caps)
    judged = narrow_case(case, path, caps)
    if ignored and outcome.content is not None and "expected" in judged:
        judged["expected"] = {
            **judged["expected"],
            "metadata": outcome.content.metadata,
        }
    return judged


def _beyond_limits(
    case: Mapping[str, Any], path: Path, caps: Capabilities
) -> str | None:
    """The declared limit a valid case goes beyond (SPEC 1.6), or None."""
    if not caps.limited:
        return None
    extent = extent_of(path)
    if extent is not None:
        return caps.beyond(extent)
    size = path.stat().st_size  # the reference's own limits: sizes only
    tensors = (case.get("expected") or {}).get("tensors") or {}
    largest = max((int(t.get("nbytes", 0)) for t in tensors.values()), default=0)
    return caps.exceeded(size, header_length(path, size), largest)


def malformed_acceptance(outcome: Outcome) -> bool:
    """Whether an answer is malformed but no rejection.

    Adapters mark a malformed rejection with ``details["claimed"] = "rejected"``
    and an answer whose exit status contradicts it with ``"inconsistent"``:
    neither is an acceptance.
    """
    return outcome.status == "invalid-output" and outcome.details.get(
        "claimed"
    ) not in {"rejected", "inconsistent"}


def must_not_accept(
    case: Mapping[str, Any], path: Path, outcome: Outcome, node: pytest.Item
) -> None:
    """An n_ file answered without a rejection, in a malformed form: accepted."""
    if not malformed_acceptance(outcome):
        return
    _outcomes.record(node, "accepted")
    rules = ", ".join(case.get("rules", [])) or "a MUST rule"
    pytest.fail(
        f"accepted a file that breaks {rules} (and its answer was malformed: "
        f"{outcome.describe()}){_where(case, path)}",
        pytrace=False,
    )
