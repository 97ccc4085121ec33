"""fastsafetensors 0.5.0 (CPU): trailing bytes and float offsets load.

    .matrix/fastsafetensors/venv/bin/python matrix/repro/fastst_lenient.py

A ZIP archive appended after the tensor data (a polyglot file) loads, the
archive ignored; offsets written as 4.0 or 4e0 load as 4.
"""

from _files import make
from fastsafetensors import fastsafe_open

ZIP = b"PK\x03\x04" + bytes(26) + b"PK\x05\x06" + bytes(18)
FILES = {
    "a ZIP archive after the data": (
        '{"a":{"dtype":"F32","shape":[1],"data_offsets":[0,4]}}',
        b"\x00\x00\xc0\x3f" + ZIP,
    ),
    "offsets [0, 4.0]": (
        '{"a":{"dtype":"F32","shape":[1],"data_offsets":[0,4.0]}}',
        b"\x00\x00\xc0\x3f",
    ),
}
for what, (header, data) in FILES.items():
    path = make(header, data)
    try:
        with fastsafe_open(path, framework="pt", device="cpu", nogds=True) as f:
            print(f"{what}: loaded a = {f.get_tensor('a').tolist()}")
    except Exception as exc:  # noqa: BLE001 - shown
        print(f"{what}: rejected ({exc})")
