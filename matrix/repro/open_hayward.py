"""hayward: ``ModelFileScanner().scan_file`` on a file.

    .matrix/hayward/venv/bin/python matrix/repro/open_hayward.py FILE

Prints every finding, then "accepted" when none reaches HIGH (``hayward
scan``'s default ``--fail-on high``).  A scan that raised internally is
reported by hayward itself as MFV-SKIP-003 with the exception's type; this
script then exits with that type named.
"""

import sys
from pathlib import Path

from hayward import ModelFileScanner, Severity

findings = ModelFileScanner().scan_file(Path(sys.argv[1]))
for f in findings:
    print(f"{f.rule_id} {f.severity.value}: {f.message}")
failed = [f for f in findings if f.metadata.get("skipped_reason") == "scan_error"]
if failed:
    error = failed[0].metadata.get("error")
    sys.exit(f"ScanFailed: hayward's scan raised {error}: {failed[0].message}")
high = any(f.severity in {Severity.CRITICAL, Severity.HIGH} for f in findings)
print("rejected" if high else "accepted")
