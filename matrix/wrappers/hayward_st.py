"""hayward 1.4.1: a model-file security scanner with a safetensors validator.

``ModelFileScanner().scan_file(path)`` returns findings; its command line
fails (exit 1) on a finding of severity HIGH or above, its default gate, so a
HIGH or CRITICAL finding is a rejection here.  When its own scan raises it
catches the error and reports coverage finding MFV-SKIP-003 with
``skipped_reason: scan_error`` at severity LOW, below that gate: the command
line exits 0 on a file it says it could not judge.  That is failing open, and
the wrapper reports it as such (``FailedOpen``), neither an acceptance nor a
crash.  Header-only: after a clean scan the wrapper lists
the header (``_listing``).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Final

import hayward
from _listing import listing
from _spec import Tensors

from stspec_conformance.adapters import FailedOpen

NAME: Final = "hayward ModelFileScanner"
VERSION: Final = str(hayward.__version__)
CAPABILITIES: Final = {"header_only": True}
_GATE: Final = {hayward.Severity.CRITICAL, hayward.Severity.HIGH}


class Rejected(Exception):  # noqa: N818 - it is the verdict, not an error
    """A finding at or above the command line's default gate (HIGH)."""


class ScanFailed(FailedOpen):
    """hayward's scan raised, and it passed the gate anyway (MFV-SKIP-003, LOW)."""


REJECTS: Final = (Rejected,)


def load(path: str) -> tuple[Tensors, Any]:
    """Scan; reject on HIGH/CRITICAL; list the header of a clean file."""
    findings = hayward.ModelFileScanner().scan_file(Path(path))
    for finding in findings:
        if (finding.metadata or {}).get("skipped_reason") == "scan_error":
            raise ScanFailed(f"{finding.rule_id}: {finding.message}")
    gated = [f for f in findings if f.severity in _GATE]
    if gated:
        raise Rejected(
            "; ".join(f"{f.rule_id} {f.severity.value}: {f.message}" for f in gated)
        )
    return listing(path)
