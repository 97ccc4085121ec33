"""modelvet 0.1.1 rejects valid files past its built-in caps.

    .matrix/modelvet/venv/bin/python matrix/repro/modelvet_caps.py

8,193 tensors (its cap is 8,192) and a 300-character name (cap 256) are
valid safetensors; modelvet answers REJECT.  The spec has no such limits,
so a capped validator turns away real models (large MoE checkpoints have
tens of thousands of tensors).
"""

import modelvet
from _files import make

count = 8193
header = {
    f"t{i:05d}": {"dtype": "U8", "shape": [1], "data_offsets": [i, i + 1]}
    for i in range(count)
}
long_name = {"n" * 300: {"dtype": "U8", "shape": [1], "data_offsets": [0, 1]}}
for what, path in (
    (f"{count} tensors", make(header, bytes(count))),
    ("a 300-character name", make(long_name, b"\x00")),
):
    report = modelvet.verify_path(path, format="safetensors")
    verdict = "ACCEPT" if report.accepted else "REJECT"
    print(f"{what}: {verdict} {report.violation_name} {report.details}")
