"""torch distributed checkpoint: ``_get_safetensors_file_metadata`` on a file.

    .matrix/torch-dcp/venv/bin/python matrix/repro/open_torch_dcp.py FILE

The header reader behind torch.distributed.checkpoint's Hugging Face storage
reader.  Prints the header it returns, then "accepted"; whatever it raises is
left uncaught.
"""

import sys

from torch.distributed.checkpoint._hf_utils import _get_safetensors_file_metadata

with open(sys.argv[1], "rb") as file:
    header, _ = _get_safetensors_file_metadata(file)
print(f"header: {str(header)[:500]}")
print("accepted")
