"""A writer that decodes its request as Go's encoding/json does.

Go replaces a lone surrogate (``"\\ud800"``) with U+FFFD while decoding, so
the writer never sees the bad name: asked for a tensor named ``w\\ud800``,
it writes a valid file with a tensor named ``w\\ufffd``.  The file breaks no
format rule; it breaks WRITE-FIDELITY, and that is all it is charged with.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from _shared import Tensors, classify, strict_load

import stspec

__all__ = ["classify", "load", "save"]

load = strict_load


_SURROGATE = re.compile("[\ud800-\udfff]")


def _decoded(text: str) -> str:
    return _SURROGATE.sub("\ufffd", text)


def save(path: str, tensors: Tensors, metadata: dict[str, str] | None) -> None:
    named = {_decoded(name): value for name, value in tensors.items()}
    stspec.write(path, named, metadata)
