"""PaddleNLP 2.8.1: ``paddlenlp/utils/safetensors.py``, its numpy reader.

PaddleNLP loads safetensors checkpoints through its own ``fast_safe_open``
(``read_metadata`` checks N, that the offsets follow each other in JSON order
from 0, each size against dtype x shape, and the file's length).  The module
needs only numpy, so the wrapper loads that one file by path from the
installed wheel (installed without its dependencies; ``import paddlenlp``
would import paddle).  It reads 12 dtypes: its tables name BF16 and the F8s
but map them to no numpy type.  Its errors are ``ValueError`` s named after
HF's (``SafeTensorError::InvalidOffset``...); anything else escaping is a
crash.  An absent ``__metadata__`` is None.
"""

from __future__ import annotations

import importlib.util
from importlib.metadata import version
from pathlib import Path
from typing import Any, Final

from _spec import INT64_DIMENSIONS, Tensors


def _module() -> Any:  # noqa: ANN401 - a module
    # find_spec of a top-level package locates it without running __init__
    package = importlib.util.find_spec("paddlenlp")
    if package is None or not package.submodule_search_locations:
        raise ImportError("paddlenlp is not installed")
    path = (
        Path(next(iter(package.submodule_search_locations)))
        / "utils"
        / "safetensors.py"
    )
    spec = importlib.util.spec_from_file_location("paddlenlp_safetensors", path)
    if spec is None or spec.loader is None:
        raise ImportError(f"cannot load {path}")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


_PADDLE: Final = _module()
NAME: Final = "PaddleNLP fast_safe_open"
VERSION: Final = version("paddlenlp")
CAPABILITIES: Final = {
    "read_dtypes": [
        "BOOL", "U8", "I8", "I16", "U16", "F16", "I32", "U32", "F32", "F64",
        "I64", "U64",
    ],
    "max_dimension": INT64_DIMENSIONS,  # numpy arrays
}  # fmt: skip
REJECTS: Final = (ValueError,)


def load(path: str) -> tuple[Tensors, dict[str, str] | None]:
    """``fast_safe_open`` and ``get_tensor`` of every tensor."""
    with _PADDLE.fast_safe_open(path, framework="np") as handle:
        metadata = handle.metadata()
        tensors: Tensors = {}
        for name in handle.keys():  # noqa: SIM118 - its own keys()
            view = handle.get_slice(name)
            tensors[name] = (
                view.info["dtype"],
                list(view.get_shape()),
                handle.get_tensor(name),
            )
    return tensors, metadata
