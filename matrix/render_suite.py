"""Which run of the suite produced results/, and whether this tree's suite differs.

Every ``results/NAME.json`` records the suite's commit and its digest
(``matrix.inputs``).  The pages say which suite the rows come from
(:func:`statement`, from the results alone, so rendering stays deterministic);
the site says, when it is built, whether the suite in its tree is that one
(:func:`tree_status`), since any later change to the suite would make a
committed sentence about it stale.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from matrix import inputs

if TYPE_CHECKING:
    from collections.abc import Iterable

__all__ = ["runs", "statement", "tree_status"]


def runs(results: Iterable[dict[str, Any]]) -> list[tuple[str, str, list[str]]]:
    """(suite commit, suite digest, implementations) per run, most rows first."""
    found: dict[tuple[str, str], list[str]] = {}
    for result in results:
        if "setup_error" in result:
            continue  # it ran nothing
        commit = str((result.get("suite") or {}).get("commit") or "?")
        digest = str((result.get("inputs") or {}).get("suite") or "?")
        found.setdefault((commit, digest), []).append(
            str(result["implementation"]["name"])
        )
    ordered = sorted(found.items(), key=lambda item: (-len(item[1]), item[0]))
    return [(commit, digest, names) for (commit, digest), names in ordered]


def statement(results: Iterable[dict[str, Any]], *, commit: bool = True) -> str:
    """Which suite produced the rows, in one sentence (plain text).

    ``commit=False`` leaves the commit out (the Markdown table is a page of the
    documentation, which names no commits); the digest names the suite alone.
    """
    found = runs(results)
    if not found:
        return "No row has been run."

    def suite(at: str, digest: str) -> str:
        return (f"commit {at[:12]}, " if commit else "") + f"suite digest {digest[:12]}"

    if len(found) == 1:
        at, digest, names = found[0]
        return (
            f"All {len(names)} rows come from one run of the suite "
            f"({suite(at, digest)}, matrix/inputs.py)."
        )
    parts = "; ".join(
        f"{suite(at, digest)}: {', '.join(names)}" for at, digest, names in found
    )
    return (
        f"The rows come from {len(found)} different suites ({parts}), so they "
        "were not all judged by the same tests."
    )


def tree_status(results: Iterable[dict[str, Any]]) -> str:
    """Whether the suite in this tree is the one that produced the rows."""
    found = runs(results)
    now = inputs.suite_digest()
    if len(found) == 1 and found[0][1] == now:
        return (
            "The suite in this version of the project is the one that produced "
            "these results."
        )
    return (
        f"The suite in this version of the project (digest {now[:12]}) differs "
        "from the one that produced these results; `python -m matrix --changed` "
        "reruns the rows it would judge anew."
    )
