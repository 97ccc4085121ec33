"""Scores and what went wrong: by group, by rule family, by outcome class.

A test's *failure kind* says what the implementation did wrong, from the
outcome class the test recorded (``_outcomes``) and what the test expected:

``accepted-invalid``
    accepted a file (or wrote a request) that it must refuse;
``rejected-valid``
    rejected a valid file, or refused to write a valid request;
``wrong-content``
    accepted, but loaded (or wrote) other bytes, dtypes, shapes or metadata;
``misclassified``
    rejected as it must, but ``--check-rules`` wanted another rule id;
``crashed``, ``hung``, ``resource``, ``invalid-output``
    no verdict at all (``resource``: over its CPU or memory allowance).

Only the first three are wrong verdicts: "rules violated" lists the rules of
those tests alone (known deviations a baseline turns into xfails included);
misclassifications are listed apart.  A failed valid case is charged with the
rule that was broken when that can be told (``charged_rules``), not with
every rule the case is about.

When failures cluster on something the implementation could declare it does
not do (a dtype, metadata), the summary says which declaration would apply
(``hints``): failing there is then not applicable, or not compared.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Final

if TYPE_CHECKING:
    from collections.abc import Mapping

    from stspec_conformance._state import Record, SuiteState

__all__ = [
    "GROUPS",
    "GROUP_LABEL",
    "KIND_LABEL",
    "WRONG_VERDICTS",
    "Score",
    "Summary",
    "charged_rules",
    "failure_kind",
    "ordered",
    "summarise",
]

GROUPS: Final = (
    "valid",
    "invalid",
    "tolerated",
    "properties",
    "single-fault",
    "writer",
)
GROUP_LABEL: Final = {
    "valid": "must accept (y_)",
    "invalid": "must reject (n_)",
    "tolerated": "tolerated (i_)",
    "properties": "properties",
    "single-fault": "single faults",
    "writer": "writer",
}
KIND_LABEL: Final = {
    "accepted-invalid": "accepted an invalid file or request",
    "rejected-valid": "rejected a valid file or request",
    "wrong-content": "loaded or wrote wrong content",
    "misclassified": "rejected, but named another rule (--check-rules)",
    "crashed": "crashed",
    "hung": "hung",
    "resource": "over its CPU/memory allowance (not a wrong verdict)",
    "invalid-output": "answered in a malformed way",
    "error": "the test itself could not run",
}
WRONG_VERDICTS: Final = frozenset(
    {"accepted-invalid", "rejected-valid", "wrong-content"}
)
_NOT_RUN: Final = frozenset({"passed", "skipped", "not-applicable"})
_NO_VERDICT: Final = frozenset({"crashed", "hung", "resource", "invalid-output"})
# failures that make a cluster worth a hint
_CLUSTER: Final = 2


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
    if outcome in _NO_VERDICT or outcome == "wrong-content":
        return outcome
    if outcome == "accepted":
        return "accepted-invalid" if _expects_refusal(record) else "wrong-content"
    if outcome == "rejected":
        return "misclassified" if _expects_refusal(record) else "rejected-valid"
    return "crashed" if record.result == "crashed" else "error"


@dataclass(slots=True)
class Score:
    """Passed out of the tests that ran, failures by result, and what did not run."""

    passed: int = 0
    total: int = 0
    kinds: Counter[str] = field(default_factory=Counter)
    not_applicable: int = 0
    skipped: int = 0

    def add(self, record: Record) -> None:
        """Count one record (skips and not-applicable tests are not scored)."""
        if record.result == "not-applicable":
            self.not_applicable += 1
            return
        if record.result == "skipped":
            self.skipped += 1
            return
        self.total += 1
        if record.result == "passed":
            self.passed += 1
        else:
            self.kinds[record.result] += 1

    @property
    def counted(self) -> bool:
        """Whether anything (scored or not) fell into this score."""
        return bool(self.total or self.not_applicable or self.skipped)

    def extras(self) -> dict[str, int]:
        """Failures by result, then not-applicable and skipped counts."""
        extra = dict(sorted(self.kinds.items()))
        if self.not_applicable:
            extra["not-applicable"] = self.not_applicable
        if self.skipped:
            extra["skipped"] = self.skipped
        return extra

    def render(self) -> str:
        """``passed/total  xx.x%  failed=n not-applicable=m`` (``-`` for 0/0)."""
        # nothing scored (all not applicable): no percentage to speak of
        percent = (
            f"{100.0 * self.passed / self.total:5.1f}%" if self.total else "     -"
        )
        extra = " ".join(f"{k}={v}" for k, v in self.extras().items())
        return f"{self.passed:>4}/{self.total:<4} {percent}  {extra}".rstrip()


@dataclass(slots=True)
class Summary:
    """Scores by group and rule family, wrong verdicts by rule, outcome classes."""

    groups: dict[str, Score]
    families: dict[str, Score]
    violated: dict[str, list[str]]
    misclassified: dict[str, list[str]]
    failures: Counter[str]  # failure kind -> tests
    outcomes: Counter[str]  # outcome class -> tests
    tolerated: Counter[str]
    total: Score
    valid_files: int = 0  # y_ tests that got an answer
    valid_accepted: int = 0  # ... of which the file was accepted
    # baseline entries naming tests that turned out not applicable
    stale_baseline: list[str] = field(default_factory=list)
    # which declaration would apply to a cluster of failures
    hints: list[str] = field(default_factory=list)

    @property
    def rejects_everything(self) -> bool:
        """No valid file accepted (and some were tried): likely not running at all."""
        return self.valid_files > 0 and self.valid_accepted == 0


def ordered(state: SuiteState) -> list[Record]:
    """The records in report order: by group, then by name."""

    def key(record: Record) -> tuple[int, str]:
        rank = GROUPS.index(record.group) if record.group in GROUPS else len(GROUPS)
        return rank, record.name

    return sorted(state.records.values(), key=key)


def _label(record: Record) -> str:
    return record.case or record.name


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
        elif failure_kind(record) in {"rejected-valid", "crashed"}:
            failed.update(dtypes)
    declared = state.adapter.capabilities.read_dtypes
    return frozenset(
        d
        for d, n in failed.items()
        if n >= _CLUSTER and d not in loaded and d in declared
    )


def charged_rules(
    record: Record, kind: str, suspects: frozenset[str], case: Mapping[str, Any] | None
) -> tuple[str, ...]:
    """The rules a wrong verdict broke, as far as the record tells them.

    A valid case names every rule it is about; which one the reader got wrong
    shows in its own rule id (``classify``), in a rejection of a file of a dtype
    it never loads (DTYPE-NAME), or in which part of the content it got wrong
    (the metadata rules, or the others).  Otherwise all of them.
    """
    rules = record.rules
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


def _hints(state: SuiteState, suspects: frozenset[str]) -> list[str]:
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


def summarise(state: SuiteState) -> Summary:
    """Aggregate the records into the summary's numbers."""
    from stspec import RULES_BY_ID  # noqa: PLC0415 - only when reporting

    summary = Summary(
        groups={g: Score() for g in GROUPS},
        families=defaultdict(Score),
        violated=defaultdict(list),
        misclassified=defaultdict(list),
        failures=Counter(),
        outcomes=Counter(),
        tolerated=Counter(),
        total=Score(),
    )
    suspects = undeclared_dtypes(state)
    for record in ordered(state):
        summary.groups.setdefault(record.group, Score()).add(record)
        summary.total.add(record)
        if record.case is not None:
            fams = {RULES_BY_ID[r].family for r in record.rules if r in RULES_BY_ID}
            # a case counts once, in its first rule's family
            first = [RULES_BY_ID[r].family for r in record.rules if r in RULES_BY_ID]
            summary.families[first[0] if fams else "(no rule)"].add(record)
        if record.outcome:
            summary.outcomes[record.outcome] += 1
        if record.result == "not-applicable" and record.name in (state.baseline or {}):
            summary.stale_baseline.append(record.name)
        if record.group == "tolerated" and record.outcome:
            summary.tolerated[record.outcome] += 1
        if record.group == "valid" and record.outcome in {
            "accepted",
            "rejected",
            "wrong-content",
        }:
            summary.valid_files += 1
            summary.valid_accepted += record.outcome != "rejected"
        kind = failure_kind(record)
        if kind is None:
            continue
        summary.failures[kind] += 1
        if kind in WRONG_VERDICTS:
            case = state.corpus.by_id.get(record.case or "")
            for rule in charged_rules(record, kind, suspects, case):
                summary.violated[rule].append(_label(record))
        elif kind == "misclassified":
            for rule in record.rules:
                summary.misclassified[rule].append(_label(record))
    if not summary.rejects_everything:  # then that is the one thing to say
        summary.hints = _hints(state, suspects)
    summary.families = dict(sorted(summary.families.items()))
    summary.violated = dict(sorted(summary.violated.items()))
    summary.misclassified = dict(sorted(summary.misclassified.items()))
    return summary
