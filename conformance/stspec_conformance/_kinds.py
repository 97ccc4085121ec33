"""A failed test's *failure kind* (see ``_score``): what the implementation did wrong.

Below ``_score`` and ``_blame``, which both classify records with it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Final

from stspec_conformance._outcomes import NO_VERDICT

if TYPE_CHECKING:
    from stspec_conformance._state import Record

__all__ = ["failure_kind"]

_NOT_RUN: Final = frozenset({"passed", "skipped", "not-applicable"})


def _expects_refusal(record: Record) -> bool:
    if record.expects:
        return record.expects == "reject"
    if record.group in {"invalid", "single-fault"}:
        return True
    return record.name.startswith("test_writer_refuses")


def failure_kind(record: Record) -> str | None:
    """What a failed (or xfailed) test's implementation did wrong; None if it passed."""
    if record.result in _NOT_RUN:
        return None
    outcome = record.outcome
    if outcome in NO_VERDICT or outcome == "wrong-content":
        return outcome
    if outcome == "accepted":
        return "accepted-invalid" if _expects_refusal(record) else "wrong-content"
    if outcome == "rejected":
        return "misclassified" if _expects_refusal(record) else "rejected-valid"
    return "crashed" if record.result == "crashed" else "error"
