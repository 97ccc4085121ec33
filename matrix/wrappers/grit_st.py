"""grit-datatype 1.1.0: ``grit.scan``, a quantisation scanner that checks layouts.

``grit.scan.scan_paths([path])`` parses the file (a file starting with
``GGUF`` as GGUF, any other as safetensors with its own
``read_safetensors_header``) and reports findings; ``python -m grit.scan``'s
default (graded) exit policy answers 1 for a structural violation and 4 for
an input it could not parse, which are the rejections here (2 and 3 are
quantisation disagreements and warnings).  An exception of its own scan
(``TypeError`` on a dtype that is an array, ...) it catches and reports as
"unparseable (unexpected: ...)" with exit 4, like a truncated file: that is
its refusal, and the wrapper takes the exit code as the library gives it.
Header-only: a clean file is listed with ``_listing``.
"""

from __future__ import annotations

from importlib.metadata import version
from typing import Any, Final

from _listing import listing
from _spec import Tensors
from grit import scan

NAME: Final = "grit.scan"
VERSION: Final = version("grit-datatype")
CAPABILITIES: Final = {"header_only": True}
_REJECTING: Final = {scan.EXIT_STRUCTURAL, scan.EXIT_UNPARSEABLE}


class Rejected(Exception):  # noqa: N818 - it is the verdict, not an error
    """A structural violation or an unparseable input (exit 1 or 4)."""


REJECTS: Final = (Rejected,)


def load(path: str) -> tuple[Tensors, Any]:
    """Scan; reject on exit 1 or 4; list the header of a clean file."""
    report = scan.scan_paths([path])
    code = report.exit_code()
    if code in _REJECTING:
        reasons = [f.message for f in report.findings] + list(report.unparseable)
        raise Rejected(f"exit {code}: " + "; ".join(reasons))
    return listing(path)
