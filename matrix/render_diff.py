"""Parser differentials: files two accepting readers load differently."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from matrix.probe import DIFFERENCES, difference, differs, stated

if TYPE_CHECKING:
    from collections.abc import Callable

__all__ = ["Differential", "as_stated", "describe_loaded", "differentials"]

# (case id, the worst difference between two groups, the groups)
Differential = tuple[str, str, list[tuple[list[str], dict[str, Any]]]]


def _groups(
    results: list[dict[str, Any]], case_id: str
) -> list[tuple[list[str], dict[str, Any]]]:
    """The implementations that accepted ``case_id``, grouped by what they loaded."""
    groups: list[tuple[list[str], dict[str, Any]]] = []
    for result in results:
        answer = result.get("probe", {}).get(case_id)
        if not answer or answer.get("result") != "accepted":
            continue
        name = result["implementation"]["name"]
        for members, first in groups:
            if not differs(first, answer):
                members.append(name)
                break
        else:
            groups.append(([name], answer))
    return groups


def differentials(results: list[dict[str, Any]]) -> list[Differential]:
    """Files that two accepting readers load differently, from ``probe``.

    Per case: the worst difference and the groups of implementations that
    loaded the same thing (names, dtypes, shapes, and bytes where both readers
    gave them), when there is more than one group; the cases whose readers
    load different bytes first, then different names, dtypes, shapes.
    """
    out: list[Differential] = []
    case_ids = sorted({c for r in results for c in r.get("probe", {})})
    for case_id in case_ids:
        groups = _groups(results, case_id)
        kinds = {
            difference(a, b)
            for i, (_, a) in enumerate(groups)
            for _, b in groups[i + 1 :]
        }
        worst = next((k for k in DIFFERENCES if k in kinds), None)
        if worst is not None:
            out.append((case_id, worst, groups))
    return sorted(out, key=lambda d: (DIFFERENCES.index(d[1]), d[0]))


def describe_loaded(answer: dict[str, Any], limit: int = 4) -> str:
    """``name DTYPE[shape] sha256-prefix`` per tensor, for a differential."""
    tensors = answer.get("tensors") or {}
    parts = []
    for name, (dtype, shape, digest) in list(tensors.items())[:limit]:
        short = str(digest)[:8] if digest else "no bytes"
        dims = list(shape) if isinstance(shape, list | tuple) else f"[{shape!r}]"
        parts.append(f"{name!r} {dtype}{dims} {short}")
    if len(tensors) > limit:
        parts.append(f"... {answer.get('tensors_total', len(tensors))} tensors")
    return "; ".join(parts) or "no tensors"


def as_stated(cases: list[dict[str, Any]]) -> Callable[[str, dict[str, Any]], bool]:
    """Whether an answer loaded what a valid case states (False for others)."""
    expected = {str(c["id"]): stated(c) for c in cases}

    def right(case_id: str, answer: dict[str, Any]) -> bool:
        want = expected.get(case_id)
        return want is not None and not differs(want, answer)

    return right
