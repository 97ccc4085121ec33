"""Per-implementation badges: shields.io endpoint JSON from the results.

``results/badges/NAME.json`` is what https://img.shields.io/endpoint reads
(https://shields.io/badges/endpoint-badge): the message is the share of the
suite the implementation passes, the colour says how close it is, and an
implementation that accepts an invalid file or crashes on one is never shown
green whatever its share.  :func:`snippet` gives the Markdown to embed.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Final

if TYPE_CHECKING:
    from pathlib import Path

    from matrix.scores import Score

__all__ = ["BADGE_SCHEMA", "SITE", "badge", "snippet", "write_badges"]

# where the published site serves results/ (the Pages workflow deploys it)
SITE: Final = "https://safetensors-spec.github.io/safetensors-spec"
BADGE_SCHEMA: Final = "shields-endpoint.schema.json"
_LABEL: Final = "safetensors conformance"
# (lowest share passed, colour), best first; shields' named colours
_COLOURS: Final = (
    (1.0, "brightgreen"),
    (0.98, "green"),
    (0.9, "yellow"),
    (0.75, "orange"),
    (0.0, "red"),
)
# the best colour an implementation with a dangerous failure may get
_DANGEROUS_BEST: Final = "orange"


def badge(score: Score) -> dict[str, object]:
    """The endpoint JSON for one implementation's score."""
    share = score.passed / score.total if score.total else 0.0
    colour = next(name for floor, name in _COLOURS if share >= floor)
    if score.dangerous:
        names = [name for _, name in _COLOURS]
        colour = names[max(names.index(colour), names.index(_DANGEROUS_BEST))]
    percent = int(share * 1000) / 10  # rounded down: 99.96 % is not 100 %
    return {
        "schemaVersion": 1,
        "label": _LABEL,
        "message": f"{score.passed}/{score.total} ({percent:g}%)",
        "color": colour,
    }


def snippet(name: str) -> str:
    """The Markdown that shows ``name``'s badge, linked to the results page."""
    endpoint = f"{SITE}/results/badges/{name}.json"
    return (
        f"[![safetensors conformance](https://img.shields.io/endpoint?url={endpoint})]"
        f"({SITE}/results/index.html)"
    )


def write_badges(folder: Path, scores: dict[str, Score]) -> None:
    """Write ``folder/badges/NAME.json`` for each score, and no other file."""
    out = folder / "badges"
    out.mkdir(exist_ok=True)
    for stale in out.glob("*.json"):
        if stale.stem not in scores:
            stale.unlink()
    for name, one in scores.items():
        text = json.dumps(badge(one), indent=2, ensure_ascii=True) + "\n"
        (out / f"{name}.json").write_text(text, "utf-8")
