"""safetensors-streaming panics (PanicException, not an Exception) on hostile headers.

    .matrix/safetensors-streaming/venv/bin/python matrix/repro/sstreaming_panics.py

Rust panics in its header code surface as ``pyo3_runtime.PanicException``,
a BaseException: ``except Exception`` around a load does not catch them.
"""

import os

import safetensors_streaming as sst
from _files import make, raw

files = {
    "N = 2^64-1 in a 10-byte file": raw((2**64 - 1).to_bytes(8, "little") + b"{}"),
    "offsets past the end": make(
        {"w": {"dtype": "U8", "shape": [8], "data_offsets": [0, 8]}}
    ),
    "reversed offsets": make(
        {"w": {"dtype": "U8", "shape": [0], "data_offsets": [4, 0]}}, bytes(4)
    ),
}
for what, path in files.items():
    try:
        with sst.safe_open(path) as handle:
            tensors = {name: handle.get_tensor(name).shape for name in handle.keys()}  # noqa: SIM118
        print(f"{what}: accepted {tensors}")
    except Exception as exc:  # noqa: BLE001 - what a careful caller catches
        print(f"{what}: rejected ({type(exc).__name__}: {exc})")
    except BaseException as exc:  # noqa: BLE001 - what escapes it
        print(f"{what}: {type(exc).__name__} escapes `except Exception`: {exc}")
    finally:
        os.unlink(path)
