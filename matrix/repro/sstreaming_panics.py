"""safetensors-streaming panics (PanicException, not an Exception) on hostile headers.

    .matrix/safetensors-streaming/venv/bin/python matrix/repro/sstreaming_panics.py

Rust panics in its header code surface as ``pyo3_runtime.PanicException``,
a BaseException: ``except Exception`` around a load does not catch them.
"""

import json
import os
import tempfile

import safetensors_streaming as sst


def write(data: bytes) -> str:
    """Write ``data`` to a new file; its path."""
    with tempfile.NamedTemporaryFile(suffix=".safetensors", delete=False) as f:
        f.write(data)
    return f.name


def header(entries: dict[str, object]) -> bytes:
    """N and the JSON text (no padding)."""
    text = json.dumps(entries).encode()
    return len(text).to_bytes(8, "little") + text


files = {
    "N = 2^64-1 in a 10-byte file": (2**64 - 1).to_bytes(8, "little") + b"{}",
    "offsets past the end": header(
        {"w": {"dtype": "U8", "shape": [8], "data_offsets": [0, 8]}}
    ),
    "reversed offsets": header(
        {"w": {"dtype": "U8", "shape": [0], "data_offsets": [4, 0]}}
    )
    + bytes(4),
}
for what, data in files.items():
    path = write(data)
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
