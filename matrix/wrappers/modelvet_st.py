"""modelvet 0.1.1: a verify-before-load validator in C (ctypes binding).

``verify_path`` reads the whole file and answers ACCEPT or REJECT with a
violation code; it returns no tensors.  So the wrapper declares a header-only
validator: after an ACCEPT it lists the names, dtypes and shapes from the
header (standard ``json``), which the suite does not judge beyond the verdict
on the cases that decide it.
"""

from __future__ import annotations

from typing import Final

import modelvet as mv
from _spec import Tensors, header_of

NAME: Final = "modelvet"
VERSION: Final = str(mv.__version__)
# modelvet's policy caps (its vendored modelvet.h: MVET_MAX_ST_TENSORS 8192u,
# MVET_MAX_ST_NAME_BYTES 256u; a name longer than 256 bytes and a 8,193rd
# tensor are refused), which SPEC 1.6 lets a reader have.
CAPABILITIES: Final = {"header_only": True, "max_tensors": 8192, "max_name_length": 256}


class Rejected(Exception):  # noqa: N818 - it is the verdict, not an error
    """modelvet's REJECT verdict, with its violation name and offset."""


REJECTS: Final = (Rejected,)


def load(path: str) -> tuple[Tensors, dict[str, str] | None]:
    """Verify; on ACCEPT echo the header's names, dtypes and shapes."""
    report = mv.verify_path(path, format="safetensors")
    if not report.accepted:
        raise Rejected(f"{report.violation_name} at byte {report.offset}")
    header = header_of(path)
    metadata = header.pop("__metadata__", None)
    tensors: Tensors = {
        name: (entry["dtype"], list(entry["shape"])) for name, entry in header.items()
    }
    return tensors, metadata
