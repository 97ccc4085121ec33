"""onnx-safetensors 1.6.0: ``_read_safetensors``, the reader its API shares.

The package's public functions patch ONNX models (``load_file``,
``replace_tensors``, ``load_file_as_external_data``); all of them read the
file with the private ``_read_safetensors(location, base_dir)``: N, ``json``,
and an ``onnx_ir.ExternalTensor`` per entry (offset, length, dtype, shape),
whose bytes ``onnx_ir`` maps when asked.  There is no public reader, so the
wrapper calls that private function and the private ``_read_metadata`` (an
absent ``__metadata__`` is ``{}``), then each tensor's ``tobytes()``
(``numpy()`` for an empty one), released at once so that a file of many
tensors does not hold a mapping and a descriptor per tensor.  18 dtypes (no
F6, no FNUZ F8).  Its refusals are ``ValueError`` s; a ``KeyError``,
``TypeError``, ``OverflowError`` or ``struct.error`` from its code is an
unexpected exception.
"""

from __future__ import annotations

import os
from importlib.metadata import version
from typing import Any, Final

from _spec import DTYPES_BUT_F6_FNUZ, INT64_DIMENSIONS, REFUSALS, Tensors
from onnx_safetensors._safetensors_io import (
    _SAFETENSORS_DTYPE_TO_IR_DTYPE,
    _read_metadata,
    _read_safetensors,
)

NAME: Final = "onnx-safetensors _read_safetensors"
VERSION: Final = version("onnx-safetensors")
CAPABILITIES: Final = {
    "read_dtypes": list(DTYPES_BUT_F6_FNUZ),
    "metadata_presence": False,
    "max_dimension": INT64_DIMENSIONS,  # numpy arrays
}
# the library's own table, inverted: onnx_ir dtype -> spec name
REJECTS: Final = REFUSALS
_SPEC_OF: Final = {ir: name for name, ir in _SAFETENSORS_DTYPE_TO_IR_DTYPE.items()}


def load(path: str) -> tuple[Tensors, Any]:
    """``_read_safetensors`` and every ExternalTensor's bytes."""
    folder, location = os.path.split(os.path.abspath(path))
    read = _read_safetensors(location, folder)
    tensors: Tensors = {}
    for name, tensor in read.items():
        dtype = _SPEC_OF.get(tensor.dtype, str(tensor.dtype))
        # onnx_ir maps nothing for an empty tensor, and its tobytes() then
        # fails an assertion; numpy() is its accessor that handles size 0
        data = tensor.tobytes() if tensor.size else tensor.numpy().tobytes()
        tensors[name] = (dtype, list(tensor.shape), data)
        tensor.release()
    return tensors, _read_metadata(path)
