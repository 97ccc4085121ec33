"""torch DCP's header reader allocates the N bytes a file claims, before any check.

    .matrix/torch-dcp/venv/bin/python matrix/repro/torch_dcp_allocates_n.py

``_get_safetensors_file_metadata`` (used by torch.distributed.checkpoint's
Hugging Face reader and ``_consolidate_hf_safetensors``) does ``read(N)`` with
the untrusted N: a 10-byte file asks for N bytes of memory.
"""

import os
import resource
import tracemalloc

from _files import raw
from torch.distributed.checkpoint._hf_utils import _get_safetensors_file_metadata

# 4 GiB of address space for this process: a large N fails loudly instead of
# quietly reserving memory the machine may not have.
resource.setrlimit(resource.RLIMIT_AS, (4 << 30, 4 << 30))
for n in (1 << 30, 1 << 62):
    path = raw(n.to_bytes(8, "little") + b"{}")
    tracemalloc.start()
    try:
        with open(path, "rb") as file:
            header, _ = _get_safetensors_file_metadata(file)
        peak = tracemalloc.get_traced_memory()[1]
        print(f"N = {n}: a 10-byte file accepted as {header}; peak {peak >> 20} MiB")
    except MemoryError:
        print(f"N = {n}: a {os.path.getsize(path)}-byte file -> MemoryError")
    except Exception as exc:  # noqa: BLE001 - shown
        print(f"N = {n}: {type(exc).__name__}: {exc}")
    finally:
        tracemalloc.stop()
        os.unlink(path)
