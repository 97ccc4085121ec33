"""Safe on untrusted files? The answer per row, from its dangerous findings.

A row is safe on untrusted files when ``matrix.findings`` finds no dangerous
finding in its run (a crash, a hang, an allocation from claimed sizes, an
accepted out-of-bounds, size-mismatched or overlapping tensor), leaving out
the cases ``matrix/findings.toml`` records as the wrapper's doing.  Each unsafe
row links to its report in results/findings/.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from matrix import findings
from matrix.scores import not_the_library

if TYPE_CHECKING:
    from collections.abc import Iterable

__all__ = ["Safety", "meaning", "report_url", "safety"]


@dataclass(frozen=True)
class Safety:
    """One row's answer: the kinds of dangerous finding, with their case counts."""

    name: str
    found: tuple[tuple[str, int], ...]  # (kind label, corpus files), worst first
    complete: bool  # whether the run reached every case

    @property
    def safe(self) -> bool:
        """No dangerous finding in a complete run."""
        return self.complete and not self.found

    def words(self) -> str:
        """The answer in a few words."""
        if self.found:
            return "no: " + "; ".join(f"{label} ({n})" for label, n in self.found)
        if not self.complete:
            return "not known: the run is incomplete"
        return "yes: no dangerous finding"


def meaning() -> str:
    """What "safe" means, from the kinds of dangerous finding (plain text)."""
    titles = [kind.title for kind in findings.KINDS]
    # the titles hold commas of their own
    listed = "; ".join(titles[:-1]) + f"; or {titles[-1]}" if len(titles) > 1 else ""
    return (
        "Safe means that on no corpus file it "
        f"{listed or titles[0]} (the dangerous findings of matrix/findings.py, "
        "less what findings.toml records as the wrapper's doing); each unsafe "
        "implementation links to its report, ready for its maintainers."
    )


def report_url(name: str) -> str:
    """Where the row's findings report is published."""
    return f"{findings.REPO_URL}/blob/main/results/findings/{name}.md"


def safety(
    results: Iterable[dict[str, Any]], cases: Iterable[dict[str, Any]]
) -> dict[str, Safety]:
    """Each row's answer, by name."""
    manifest = {str(case["id"]): case for case in cases}
    out = {}
    for result in results:
        name = str(result["implementation"]["name"])
        found = findings.findings_of(result, manifest, not_the_library(name))
        out[name] = Safety(
            name,
            tuple((f.kind.label, len(f.cases)) for f in found),
            bool(result.get("run", {}).get("complete", True)),
        )
    return out
