"""Which rule a wrong verdict broke, and which declaration a cluster of failures needs.

A valid case cites every rule it is about; the reader that failed it broke one
of them, and which one shows in the rule id its rejection named, in a dtype
that no valid file loaded with (DTYPE-NAME), or in which part of the content
it got wrong (the metadata rules or the others).  When failures cluster on a
dtype or on metadata the implementation could declare it does not read, the
summary names that declaration: failing there is then not applicable, or
not compared.
"""

from __future__ import annotations

from collections import Counter
from typing import TYPE_CHECKING, Any, Final

from stspec_conformance._kinds import failure_kind

if TYPE_CHECKING:
    from collections.abc import Mapping

    from stspec_conformance._state import Record, SuiteState

__all__ = ["case_dtypes", "charged_rules", "declaration_hints", "undeclared_dtypes"]

# failures that make a cluster worth a hint
_CLUSTER: Final = 2


def case_dtypes(case: Mapping[str, Any] | None) -> frozenset[str]:
    """The dtypes a corpus case's file uses (from its expectation and tags)."""
    if case is None:
        return frozenset()
    tensors = (case.get("expected") or {}).get("tensors") or {}
    named = {str(t.get("dtype")) for t in tensors.values() if isinstance(t, dict)}
    tagged = {
        t[len("dtype:") :] for t in case.get("tags", []) if t.startswith("dtype:")
    }
    return frozenset(named | tagged)


def undeclared_dtypes(state: SuiteState) -> frozenset[str]:
    """Declared dtypes that no valid file loaded and at least two were refused for.

    A reader that does not support them fails exactly these files; declaring
    ``read_dtypes`` without them makes their rejection not applicable.
    """
    failed: Counter[str] = Counter()
    loaded: set[str] = set()
    for record in state.records.values():
        if record.group not in {"valid", "tolerated"} or record.case is None:
            continue
        dtypes = case_dtypes(state.corpus.by_id.get(record.case))
        if record.result == "passed" and record.outcome == "accepted":
            loaded |= dtypes
        elif failure_kind(record) in {"rejected-valid", "crashed", "exception"}:
            failed.update(dtypes)
    declared = state.adapter.capabilities.read_dtypes
    return frozenset(
        d
        for d, n in failed.items()
        if n >= _CLUSTER and d not in loaded and d in declared
    )


def charged_rules(
    record: Record,
    kind: str,
    suspects: frozenset[str],
    case: Mapping[str, Any] | None,
    *,
    metadata_read: bool = True,
) -> tuple[str, ...]:
    """The rules a wrong verdict broke, as far as the record tells them.

    A valid case names every rule it is about; which one the reader got wrong
    shows in its own rule id (``classify``), in a rejection of a file of a dtype
    it never loads (DTYPE-NAME), or in which part of the content it got wrong
    (the metadata rules, or the others).  Otherwise all of them, but never
    a metadata rule for a reader declaring ``metadata: false`` (it cannot have
    broken one), and none when the failure said it broke none.
    """
    rules = record.rules
    if record.charges_none:
        return ()
    if not metadata_read:  # a reader that never reads metadata broke no META- rule
        rules = tuple(r for r in rules if not r.startswith("META-")) or rules
    if kind == "rejected-valid":
        if record.reported_rule in rules:
            return (str(record.reported_rule),)
        if "DTYPE-NAME" in rules and case_dtypes(case) & suspects:
            return ("DTYPE-NAME",)
    if kind == "wrong-content" and record.differs in {"metadata", "tensors"}:
        about_metadata = record.differs == "metadata"
        narrowed = tuple(r for r in rules if r.startswith("META-") == about_metadata)
        return narrowed or rules
    return rules


def declaration_hints(state: SuiteState, suspects: frozenset[str]) -> list[str]:
    """Which declaration would apply to a cluster of failures (may be none)."""
    hints = []
    if suspects:
        names = ", ".join(sorted(suspects))
        hints.append(
            f"every valid file using {names} failed and none loaded: if the "
            f"implementation does not read {names}, declare read_dtypes without "
            "them (such files then are not applicable)"
        )
    caps = state.adapter.capabilities
    texts = [
        r.text
        for r in state.records.values()
        if failure_kind(r) == "wrong-content" and r.differs in {"metadata", "both"}
    ]
    lost = sum("metadata is None, expected {'" in t for t in texts)
    if caps.metadata and lost >= _CLUSTER:
        hints.append(
            f"{lost} tests failed on metadata reported as None: if the implementation "
            "does not read __metadata__, declare metadata: false (its answers are "
            "then compared on tensors only)"
        )
    empty = sum(
        "metadata is None, expected {}" in t or "metadata is {}, expected None" in t
        for t in texts
    )
    if caps.metadata and caps.metadata_presence and empty:
        hints.append(
            f"{empty} tests failed telling an absent __metadata__ from {{}}: if "
            "the implementation cannot, declare metadata_presence: false"
        )
    return hints
