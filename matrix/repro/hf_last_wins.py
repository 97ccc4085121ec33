r"""HF safetensors (binding 0.8.0/0.4.5, or the Rust crate) on duplicate names.

    .matrix/hf-0.8.0/venv/bin/python matrix/repro/hf_last_wins.py
    .matrix/hf-0.4.5/venv/bin/python matrix/repro/hf_last_wins.py
    python3 matrix/repro/hf_last_wins.py .matrix/hf-rust-0.8.0/bin/stcli

Tensor "a" declared twice, I32 then F32, over the same 4 bytes: serde keeps the
last, so HF loads F32 1.5 where a first-wins reader loads I32 1069547520; the
same for "a" and "\u0061".  ``{"F32": null}`` is read as the dtype F32, and a
positional entry ``["F32", [1], [0, 4]]`` as a tensor.  The spec rejects all
four (KEY-UNIQUE, DTYPE-NAME, ENTRY-OBJECT).
"""

import json
import subprocess
import sys

from _files import make

FILES = {
    "a twice, I32 then F32": (
        '{"a":{"dtype":"I32","shape":[1],"data_offsets":[0,4]},'
        '"a":{"dtype":"F32","shape":[1],"data_offsets":[0,4]}}'
    ),
    '"a" and "\\u0061"': (
        '{"a":{"dtype":"I32","shape":[1],"data_offsets":[0,4]},'
        '"\\u0061":{"dtype":"F32","shape":[1],"data_offsets":[0,4]}}'
    ),
    'dtype {"F32": null}': (
        '{"a":{"dtype":{"F32":null},"shape":[1],"data_offsets":[0,4]}}'
    ),
    "positional entry": '{"a":["F32",[1],[0,4]]}',
}


def load(path: str) -> object:
    """The tensors as the binding or the CLI (argv[1]) loads them."""
    if len(sys.argv) > 1:
        done = subprocess.run(  # noqa: S603 - the CLI named on the command line
            [sys.argv[1], path], capture_output=True, text=True, check=False
        )
        answer = json.loads(done.stdout)
        return answer.get("tensors") or answer
    from safetensors.numpy import load_file  # noqa: PLC0415 - binding only

    return {k: (str(v.dtype), v.tolist()) for k, v in load_file(path).items()}


for what, header in FILES.items():
    path = make(header, b"\x00\x00\xc0\x3f")  # 1.5 as F32
    try:
        print(f"{what}: {load(path)}")
    except Exception as exc:  # noqa: BLE001 - shown
        print(f"{what}: rejected ({exc})")
