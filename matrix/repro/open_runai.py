"""runai-model-streamer: ``SafetensorsStreamer`` on a file, to the CPU.

    .matrix/runai-model-streamer/venv/bin/python matrix/repro/open_runai.py FILE

What vLLM's ``--load-format runai_streamer`` does with a local file.  Prints
each tensor's dtype, shape and byte count, then "accepted"; whatever it raises
is left uncaught.
"""

import sys

from runai_model_streamer import SafetensorsStreamer

with SafetensorsStreamer() as streamer:
    streamer.stream_file(sys.argv[1], device="cpu")
    for name, tensor in streamer.get_tensors():
        print(f"{name}: {tensor.dtype} {list(tensor.shape)}, {tensor.nbytes} bytes")
print("accepted")
