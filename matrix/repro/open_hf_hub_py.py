"""huggingface_hub: ``parse_local_safetensors_file_metadata`` on a file.

    .matrix/hf-hub-py/venv/bin/python matrix/repro/open_hf_hub_py.py FILE

The Hub client's header parser, the same one ``parse_safetensors_file_metadata``
runs on the bytes its Range requests fetch.  Prints what it returns, then
"accepted"; whatever it raises is left uncaught.
"""

import sys

from huggingface_hub import parse_local_safetensors_file_metadata

parsed = parse_local_safetensors_file_metadata(sys.argv[1])
for name, info in list(parsed.tensors.items())[:20]:
    print(f"{name}: {info.dtype} {info.shape} {info.data_offsets}")
print(f"metadata: {str(parsed.metadata)[:200]}")
print("accepted")
