"""One implementation's score, as a reader-chooser reads it in thirty seconds.

The numbers come from the per-case outcome classes of :mod:`matrix.render_data`
(so the score table, the grid and the badges can never disagree): valid files
read right, invalid files rejected, crashes and hangs, the parser
differentials the implementation takes part in, and the other tests passed.
A case ``matrix/findings.toml`` records as ``not_the_library`` (the matrix's
wrapper, not the library, failed on it) counts nowhere: not in the findings,
not in the score, not in the badge.
"""

from __future__ import annotations

import functools
import tomllib
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Final

from matrix import envs

if TYPE_CHECKING:
    from collections.abc import Sequence

__all__ = ["FINDINGS_DATA", "Score", "not_the_library", "score"]

# the hand-written parts of the findings, with each row's not_the_library cases
FINDINGS_DATA: Final = envs.REPO / "matrix" / "findings.toml"

# outcome classes that count as a definite, right answer
_RIGHT = frozenset({"ok-accept", "ok-reject", "i-accept", "i-reject"})
# outcome classes where the implementation, not the file, failed
_BROKE = frozenset({"crashed", "exception", "fail-open", "hung"})


@dataclass(frozen=True)
class Score:
    """What one implementation did with the corpus and the other tests."""

    valid_right: int
    valid_total: int
    invalid_rejected: int
    invalid_total: int
    crashes: int
    differentials: int
    tests_passed: int
    tests_total: int
    not_applicable: int

    @property
    def passed(self) -> int:
        """Cases answered right, plus other tests passed."""
        return self.valid_right + self.invalid_rejected + self.tests_passed

    @property
    def total(self) -> int:
        """Valid and invalid cases and other tests the declaration covers."""
        return self.valid_total + self.invalid_total + self.tests_total

    @property
    def dangerous(self) -> bool:
        """Whether it accepted an invalid file or crashed or hung on one."""
        return self.invalid_rejected < self.invalid_total or self.crashes > 0


@functools.cache
def _hands() -> dict[str, Any]:
    return tomllib.loads(FINDINGS_DATA.read_text("utf-8"))


def not_the_library(name: str) -> frozenset[str]:
    """The cases ``findings.toml`` records as the wrapper's doing, for ``name``."""
    row = _hands().get(name, {})
    return frozenset(row.get("not_the_library", {}))


def score(
    result: dict[str, Any],
    classes: Sequence[tuple[str, str]],
    differentials: int,
) -> Score:
    """Score one result from ``(verdict, outcome class)`` per corpus case.

    Tolerated (``i_``) cases have no right answer and are left out of the
    totals; cases outside the declaration (``not-applicable``) likewise.
    """
    valid = [cls for verdict, cls in classes if verdict == "valid"]
    invalid = [cls for verdict, cls in classes if verdict == "invalid"]
    tests = [
        entry
        for entry in result.get("tests", {}).values()
        if entry.get("outcome") != "not-applicable"
    ]
    skipped = sum(cls == "not-applicable" for _, cls in classes) + sum(
        entry.get("outcome") == "not-applicable"
        for entry in result.get("tests", {}).values()
    )
    return Score(
        valid_right=sum(cls in _RIGHT for cls in valid),
        valid_total=sum(cls != "not-applicable" for cls in valid),
        invalid_rejected=sum(cls in _RIGHT for cls in invalid),
        invalid_total=sum(cls != "not-applicable" for cls in invalid),
        crashes=sum(cls in _BROKE for _, cls in classes),
        differentials=differentials,
        tests_passed=sum(bool(entry.get("ok")) for entry in tests),
        tests_total=len(tests),
        not_applicable=skipped,
    )
