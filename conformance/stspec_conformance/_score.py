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
``crashed``, ``exception``, ``hung``, ``resource``, ``invalid-output``, ``fail-open``
    no verdict at all (``crashed``: a native crash; ``exception``: an
    unexpected exception in a managed runtime; ``resource``: over its memory
    allowance, reserved or resident; ``fail-open``: answered success on a
    file it said it could not judge).

Only the first three are wrong verdicts: "rules violated" lists the rules of
those tests alone (known deviations a baseline turns into xfails included);
misclassifications are listed apart.  A failed valid case is charged with the
rule that was broken when that can be told, and clusters of failures get a
declaration hint (both in ``_blame``).
"""

from __future__ import annotations

from collections import Counter, defaultdict
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Final

from stspec_conformance import _blame
from stspec_conformance._kinds import failure_kind

if TYPE_CHECKING:
    from stspec_conformance._state import Record, SuiteState

__all__ = [
    "GROUPS",
    "GROUP_LABEL",
    "KIND_LABEL",
    "WRONG_VERDICTS",
    "Score",
    "Summary",
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
    "invalid": "must reject (n_, x_)",
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
    "crashed": "crashed (native: a signal, a panic, an abort)",
    "exception": "raised an unexpected exception (managed runtime)",
    "hung": "hung",
    "resource": "over its memory allowance (not a wrong verdict)",
    "invalid-output": "answered in a malformed way",
    "fail-open": "answered success on a file it could not judge",
    "error": "the test itself could not run",
}
WRONG_VERDICTS: Final = frozenset(
    {"accepted-invalid", "rejected-valid", "wrong-content"}
)


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
    suspects = _blame.undeclared_dtypes(state)
    metadata_read = state.adapter.capabilities.metadata
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
            charged = _blame.charged_rules(
                record, kind, suspects, case, metadata_read=metadata_read
            )
            for rule in charged:
                summary.violated[rule].append(_label(record))
        elif kind == "misclassified":
            for rule in record.rules:
                summary.misclassified[rule].append(_label(record))
    if not summary.rejects_everything:  # then that is the one thing to say
        summary.hints = _blame.declaration_hints(state, suspects)
    summary.families = dict(sorted(summary.families.items()))
    summary.violated = dict(sorted(summary.violated.items()))
    summary.misclassified = dict(sorted(summary.misclassified.items()))
    return summary
