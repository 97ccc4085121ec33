"""compressed-tensors: ``get_safetensors_header``, the header reader it exports.

    .matrix/compressed-tensors/venv/bin/python \
        matrix/repro/open_compressed_tensors.py FILE

``get_weight_mappings`` (and through it vLLM's and llm-compressor's loading
of a quantised checkpoint) calls it on every safetensors file it maps.
Prints the tensors it lists, then "accepted"; whatever it raises is left
uncaught.
"""

import sys

from compressed_tensors.utils.safetensors_load import get_safetensors_header

header = get_safetensors_header(sys.argv[1])
print(f"header: {type(header).__name__}")
if isinstance(header, dict):
    for name, entry in list(header.items())[:20]:
        print(f"{name}: {str(entry)[:200]}")
print("accepted")
