"""unifiedefficientloader: ``UnifiedSafetensorsLoader(low_memory=True)``.

    .matrix/unifiedefficientloader/venv/bin/python matrix/repro/open_uel.py FILE

Prints each tensor's dtype, shape and byte count as ``get_tensor`` returns
it, then "accepted"; whatever it raises is left uncaught.
"""

import sys

from unifiedefficientloader import UnifiedSafetensorsLoader

with UnifiedSafetensorsLoader(sys.argv[1], low_memory=True) as loader:
    for key in loader.keys():  # noqa: SIM118 - a method of the loader, not a dict
        tensor = loader.get_tensor(key)
        print(f"{key}: {tensor.dtype} {list(tensor.shape)}, {tensor.nbytes} bytes")
    print(f"metadata: {str(loader.metadata())[:200]}")
print("accepted")
