"""sft-cli 0.2.2: ``sft check --skip-values``, its header and offsets check.

``sft.ops.check.check_file(path, skip_values=True)`` is what ``sft check``
runs: the header through its own ``TensorIndex.from_file`` (``json``), then
``file size >= 8 + N + sum(end - begin)``.  Without ``--skip-values`` it also
loads the values with HF's ``load_file`` (HF's parser, not sft's, and it
swallows HF's errors), so the values check is left out.  An unhealthy result
is a rejection (it catches every exception of its parser and reports it as a
header error).  Header-only: a healthy file is listed from ``TensorIndex``, as
``sft ls`` lists it; an absent ``__metadata__`` is ``{}`` there.
"""

from __future__ import annotations

from importlib.metadata import version
from pathlib import Path
from typing import Any, Final

from _spec import Tensors
from sft.index import TensorIndex
from sft.ops.check import check_file

NAME: Final = "sft check --skip-values"
VERSION: Final = version("sft-cli")
CAPABILITIES: Final = {"header_only": True, "metadata_presence": False}


class Rejected(Exception):  # noqa: N818 - it is the verdict, not an error
    """``sft check`` found the file not healthy (exit status 1)."""


REJECTS: Final = (Rejected,)


def load(path: str) -> tuple[Tensors, Any]:
    """Check; list a healthy file's tensors as sft indexes them."""
    result = check_file(Path(path), skip_values=True)
    if not result.healthy:
        raise Rejected(result.header_error or result.offsets_error)
    index = TensorIndex.from_file(Path(path))
    tensors: Tensors = {t.full_name: (t.dtype, list(t.shape)) for t in index.tensors}
    return tensors, index.metadata
