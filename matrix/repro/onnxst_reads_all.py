"""onnx-safetensors: ``_read_safetensors``, then every tensor's bytes.

    .matrix/onnx-safetensors/venv/bin/python \
        matrix/repro/onnxst_reads_all.py FILE

What a caller that uses every tensor does (``load_file`` patches each one
into the model): each ``ExternalTensor`` is read with ``tobytes()`` (or
``numpy()`` when it is empty) and released.  Prints the number of tensors
and bytes read, then "accepted"; whatever it raises is left uncaught.  On a
file of 100,000 tensors that all claim the same byte it runs past the
conformance suite's CPU-time limit.
"""

import os
import sys

from onnx_safetensors._safetensors_io import _read_safetensors

folder, location = os.path.split(os.path.abspath(sys.argv[1]))
count = total = 0
for tensor in _read_safetensors(location, folder).values():
    # onnx_ir's tobytes() fails an assertion on an empty tensor; numpy() does not
    data = tensor.tobytes() if tensor.size else tensor.numpy().tobytes()
    tensor.release()
    count += 1
    total += len(data)
print(f"{count} tensors, {total} bytes")
print("accepted")
