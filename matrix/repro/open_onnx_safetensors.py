"""onnx-safetensors: ``_read_safetensors``, the reader ``load_file`` uses.

    .matrix/onnx-safetensors/venv/bin/python \
        matrix/repro/open_onnx_safetensors.py FILE

``onnx_safetensors.load_file(model, FILE)`` and ``replace_tensors`` read the
file with this private function; called directly, so no ONNX model is
needed.  Prints each tensor's dtype, shape and the bytes ``tobytes()`` gives,
then "accepted"; whatever it raises is left uncaught.
"""

import os
import sys

from onnx_safetensors._safetensors_io import _read_safetensors

folder, location = os.path.split(os.path.abspath(sys.argv[1]))
for name, tensor in list(_read_safetensors(location, folder).items())[:20]:
    # onnx_ir's tobytes() fails an assertion on an empty tensor; numpy() does not
    data = tensor.tobytes() if tensor.size else tensor.numpy().tobytes()
    print(f"{name}: {tensor.dtype} {list(tensor.shape)}, {len(data)} bytes")
    tensor.release()
print("accepted")
