"""A scanner that fails open: a file it cannot parse passes its gate.

Like a model scanner that catches its own parse error and exits 0 with a
"not a clean verdict" note, it answers success on every file it could not
judge, which an adapter reports by raising ``FailedOpen`` (the suite's
``fail-open`` outcome), never as a rejection.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from _shared import Loaded, strict_load

import stspec
from stspec_conformance.adapters import FailedOpen

__all__ = ["load"]


def load(path: str) -> Loaded:
    try:
        return strict_load(path)
    except stspec.SafetensorsError as exc:
        msg = f"scan passed, NOT a clean verdict: could not parse ({exc.rule})"
        raise FailedOpen(msg) from None
