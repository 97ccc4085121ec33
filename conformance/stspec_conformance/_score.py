"""Scores: passed out of total by group and rule family, violated rules."""

from __future__ import annotations

from collections import Counter, defaultdict
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Final

if TYPE_CHECKING:
    from stspec_conformance._state import Record, SuiteState

__all__ = ["GROUPS", "GROUP_LABEL", "Score", "Summary", "ordered", "summarise"]

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


@dataclass(slots=True)
class Score:
    """Passed out of total, with the failures counted by kind."""

    passed: int = 0
    total: int = 0
    kinds: Counter[str] = field(default_factory=Counter)

    def add(self, record: Record) -> None:
        """Count one record (skips count nowhere)."""
        if record.result == "skipped":
            return
        self.total += 1
        if record.result == "passed":
            self.passed += 1
        else:
            self.kinds[record.result] += 1

    def render(self) -> str:
        """``passed/total (xx.x%)  failed=n``."""
        percent = 100.0 * self.passed / self.total if self.total else 100.0
        extra = " ".join(f"{k}={v}" for k, v in sorted(self.kinds.items()))
        return f"{self.passed:>4}/{self.total:<4} {percent:5.1f}%  {extra}".rstrip()


@dataclass(slots=True)
class Summary:
    """Scores by group and rule family, violated rules, i_ outcomes."""

    groups: dict[str, Score]
    families: dict[str, Score]
    violated: dict[str, list[str]]
    tolerated: Counter[str]
    total: Score


def ordered(state: SuiteState) -> list[Record]:
    """The records in report order: by group, then by name."""

    def key(record: Record) -> tuple[int, str]:
        rank = GROUPS.index(record.group) if record.group in GROUPS else len(GROUPS)
        return rank, record.name

    return sorted(state.records.values(), key=key)


def summarise(state: SuiteState) -> Summary:
    """Aggregate the records into the summary's numbers."""
    from stspec import RULES_BY_ID  # noqa: PLC0415 - only when reporting

    groups: dict[str, Score] = {g: Score() for g in GROUPS}
    families: dict[str, Score] = defaultdict(Score)
    violated: dict[str, list[str]] = defaultdict(list)
    tolerated: Counter[str] = Counter()
    total = Score()
    for record in state.records.values():
        groups.setdefault(record.group, Score()).add(record)
        total.add(record)
        if record.case is not None:
            fams = {RULES_BY_ID[r].family for r in record.rules if r in RULES_BY_ID}
            for fam in sorted(fams) or ["(no rule)"]:
                families[fam].add(record)
        if record.group == "tolerated" and record.outcome:
            tolerated[record.outcome] += 1
        if record.result not in {"passed", "skipped"} and record.group in {
            "invalid",
            "single-fault",
        }:
            for rule in record.rules:
                violated[rule].append(record.case or record.name)
    return Summary(
        groups,
        dict(sorted(families.items())),
        dict(sorted(violated.items())),
        tolerated,
        total,
    )
