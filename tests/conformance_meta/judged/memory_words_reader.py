"""A correct reader whose rejections speak of memory.

It declares ``REJECTS`` and explains every rejection as a resource problem
("... would run out of memory", "Cannot allocate memory", "std::bad_alloc",
"allocation failed"): with ``REJECTS``, only its types reject, so these are
rejections, judged by what happened and not by the words.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from _shared import Loaded, strict_load

import stspec

__all__ = ["REJECTS", "RefusedError", "load"]

WORDS = {
    "HEADER-LIMIT": "Cannot allocate memory",
    "JSON-SYNTAX": "std::bad_alloc",
    "LAYOUT-HOLE": "allocation failed",
}


class RefusedError(Exception):
    """This reader's only rejection."""


REJECTS = RefusedError


def load(path: str) -> Loaded:
    try:
        return strict_load(path)
    except stspec.SafetensorsError as exc:
        words = WORDS.get(exc.rule, "loading it would run out of memory")
        raise RefusedError(f"{exc.rule}: {words}") from None
