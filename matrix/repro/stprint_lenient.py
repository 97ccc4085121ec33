"""safetensors-print 0.1.0: duplicates are warnings, a nesting bomb a crash.

    .matrix/safetensors-print/venv/bin/python matrix/repro/stprint_lenient.py

Tensor "a" twice (I32 then F32) is reported with a WARNING issue only, and
the report lists the F32 one; 100,000 nested arrays raise RecursionError out
of ``read_report`` instead of an error issue.
"""

from _files import make
from safetensors_print import reader

duplicate = make(
    '{"a":{"dtype":"I32","shape":[1],"data_offsets":[0,4]},'
    '"a":{"dtype":"F32","shape":[1],"data_offsets":[0,4]}}',
    b"\x00\x00\xc0\x3f",
)
report = reader.read_report(duplicate)
print("a twice:", [(t.name, t.dtype_name) for t in report.tensors])
print("  issues:", [(i.severity, i.message) for i in report.issues])
bomb = make('{"a":' + "[" * 100_000 + "]" * 100_000 + "}")
try:
    reader.read_report(bomb)
except RecursionError as exc:
    print(f"100,000 nested arrays: RecursionError ({exc})")
