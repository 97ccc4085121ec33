"""ModelAudit 0.2.54 (promptfoo): ``SafeTensorsScanner``, a security auditor.

``SafeTensorsScanner().scan(path)`` validates the header (N and its own
16 MiB cap, JSON with duplicate keys tracked, dtypes, shapes, offsets,
coverage, sizes) and audits the metadata's content (scripts, URLs,
credentials, paths).  Its verdict is the command line's: the scan result
merged into an audit result and ``determine_exit_code`` applied, as
``modelaudit scan`` does; 1 (a WARNING or CRITICAL finding) and 2 (an
inconclusive scan, its answer to a malformed file) are rejections.  Telemetry
is off (``PROMPTFOO_DISABLE_TELEMETRY``).  Header-only: a clean file is
listed with ``_listing``.  Its default header cap (16 MiB) is declared as an
implementation limit.
"""

from __future__ import annotations

from importlib.metadata import version
from typing import Any, Final

from _listing import listing
from _spec import Tensors
from modelaudit.core_results import determine_exit_code, merge_scan_result
from modelaudit.models import create_initial_audit_result
from modelaudit.scanners.safetensors_scanner import MAX_HEADER_BYTES, SafeTensorsScanner

NAME: Final = "ModelAudit SafeTensorsScanner"
VERSION: Final = version("modelaudit")
# its default cap on N (16 MiB, max_safetensors_header_bytes), an
# implementation limit as SPEC 1.6 allows: valid files beyond it are not
# applicable, invalid ones must still be rejected
CAPABILITIES: Final = {"header_only": True, "max_header_size": MAX_HEADER_BYTES}


class Rejected(Exception):  # noqa: N818 - it is the verdict, not an error
    """``modelaudit scan`` would exit 1 (findings) or 2 (inconclusive)."""


REJECTS: Final = (Rejected,)


def load(path: str) -> tuple[Tensors, Any]:
    """Scan; reject on a non-zero exit code; list the header of a clean file."""
    result = SafeTensorsScanner().scan(path)
    audit = create_initial_audit_result()
    merge_scan_result(audit, result)
    code = determine_exit_code(audit)
    if code != 0:
        reasons = "; ".join(f"{i.severity.name} {i.message}" for i in result.issues)
        raise Rejected(f"exit {code}: {reasons}"[:2000])
    return listing(path)
