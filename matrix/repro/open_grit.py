"""grit-datatype: ``grit.scan.scan_paths`` on a file.

    .matrix/grit-datatype/venv/bin/python matrix/repro/open_grit.py FILE

What ``python -m grit.scan FILE`` runs.  Prints the findings and the graded
exit code, then "accepted" unless that is 1 (structural violation) or 4
(unparseable); an unexpected exception grit caught is printed as it reports
it and the script exits with it.
"""

import sys

from grit import scan

report = scan.scan_paths([sys.argv[1]])
for f in report.findings:
    print(f"{f.severity} {f.kind}: {f.message}")
for entry in report.unparseable:
    if "(unexpected: " in entry:
        sys.exit(f"ScanFailed: grit's scan raised: {entry}")
    print(f"unparseable: {entry}")
code = report.exit_code()
print(f"exit code {code}")
print(
    "rejected" if code in {scan.EXIT_STRUCTURAL, scan.EXIT_UNPARSEABLE} else "accepted"
)
