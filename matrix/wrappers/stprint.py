"""safetensors-print 0.1.0: a Python inspector (``read_report``).

It reports issues by severity instead of raising; an ERROR issue (or its
``SafetensorsFormatError``) is a rejection.  It reads no tensor bytes:
header-only.
"""

from __future__ import annotations

from typing import Final

from _spec import Tensors
from safetensors_print import reader

NAME: Final = "safetensors-print"
VERSION: Final = "0.1.0"
CAPABILITIES: Final = {"header_only": True}


class Rejected(Exception):  # noqa: N818 - it is the verdict, not an error
    """The report has ERROR issues."""


REJECTS: Final = (Rejected, reader.SafetensorsFormatError)


def load(path: str) -> tuple[Tensors, dict[str, str] | None]:
    """``read_report``; ERROR issues reject, else its tensors and metadata."""
    report = reader.read_report(path)
    if report.has_errors:
        errors = [i.message for i in report.issues if i.severity == reader.ERROR]
        raise Rejected("; ".join(errors)[:500])
    tensors: Tensors = {t.name: (t.dtype_name, list(t.shape)) for t in report.tensors}
    absent = report.metadata_declaration in {
        reader.MetadataDeclaration.ABSENT,
        reader.MetadataDeclaration.NULL,
    }
    return tensors, None if absent else dict(report.metadata)
