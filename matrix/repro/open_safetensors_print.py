"""safetensors-print: ``read_report`` on a file.

    .matrix/safetensors-print/venv/bin/python \
        matrix/repro/open_safetensors_print.py FILE

Prints the issues it reports, the tensors it lists and its verdict; whatever it
raises is left uncaught.
"""

import sys

from safetensors_print import reader

report = reader.read_report(sys.argv[1])
for issue in report.issues:
    print(f"{issue.severity}: {issue.message}")
for tensor in report.tensors:
    print(f"{tensor.name}: {tensor.dtype_name} {list(tensor.shape)}")
print("rejected (an ERROR issue)" if report.has_errors else "accepted")
