"""Which run of the suite produced results/, and whether this tree's suite differs.

Every ``results/NAME.json`` records the suite's commit and its digest
(``matrix.inputs``).  The pages say which suite the rows come from
(:func:`statement`, from the results alone, so rendering stays deterministic);
the site says, when it is built, whether the suite in its tree is that one
(:func:`tree_status`), since any later change to the suite would make a
committed sentence about it stale.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from matrix import inputs

if TYPE_CHECKING:
    from collections.abc import Iterable

__all__ = ["Run", "runs", "statement", "tree_status"]


@dataclass(frozen=True)
class Run:
    """The rows one suite (one digest) judged, and the commits they name."""

    digest: str
    commits: tuple[str, ...]  # sorted; rows rerun later may name a later commit
    names: tuple[str, ...]

    def words(self, *, commit: bool) -> str:
        """``commit C, suite digest D`` (the digest alone with commit=False)."""
        shown = ", ".join(c[:12] for c in self.commits)
        at = f"commit{'s' if len(self.commits) > 1 else ''} {shown}, " if commit else ""
        return f"{at}suite digest {self.digest[:12]}"


def runs(results: Iterable[dict[str, Any]]) -> list[Run]:
    """The suites the rows were judged by, most rows first.

    Rows are one run when they record one suite digest: a commit that
    changed no file of the suite (matrix.inputs) judges no row differently.
    """
    found: dict[str, tuple[set[str], list[str]]] = {}
    for result in results:
        if "setup_error" in result:
            continue  # it ran nothing
        commit = str((result.get("suite") or {}).get("commit") or "?")
        digest = str((result.get("inputs") or {}).get("suite") or "?")
        commits, names = found.setdefault(digest, (set(), []))
        commits.add(commit)
        names.append(str(result["implementation"]["name"]))
    made = [
        Run(digest, tuple(sorted(commits)), tuple(names))
        for digest, (commits, names) in found.items()
    ]
    return sorted(made, key=lambda run: (-len(run.names), run.digest))


def statement(results: Iterable[dict[str, Any]], *, commit: bool = True) -> str:
    """Which suite produced the rows, in one sentence (plain text).

    ``commit=False`` leaves the commit out (the Markdown table is a page of the
    documentation, which names no commits); the digest names the suite alone.
    """
    found = runs(results)
    if not found:
        return "No row has been run."
    if len(found) == 1:
        return (
            f"All {len(found[0].names)} rows come from one run of the suite "
            f"({found[0].words(commit=commit)}, matrix/inputs.py)."
        )
    parts = "; ".join(
        f"{run.words(commit=commit)}: {', '.join(run.names)}" for run in found
    )
    return (
        f"The rows come from {len(found)} different suites ({parts}), so they "
        "were not all judged by the same tests."
    )


def tree_status(results: Iterable[dict[str, Any]]) -> str:
    """Whether the suite in this tree is the one that produced the rows."""
    found = runs(results)
    now = inputs.suite_digest()
    if len(found) == 1 and found[0].digest == now:
        return (
            "The suite in this version of the project is the one that produced "
            "these results."
        )
    return (
        f"The suite in this version of the project (digest {now[:12]}) differs "
        "from the one that produced these results; `python -m matrix --changed` "
        "reruns the rows it would judge anew."
    )
