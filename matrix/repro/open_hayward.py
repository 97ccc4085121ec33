"""hayward: ``ModelFileScanner().scan_file`` on a file.

    .matrix/hayward/venv/bin/python matrix/repro/open_hayward.py FILE

Prints every finding, then what ``hayward scan``'s default gate
(``--fail-on high``) makes of them: "rejected" when one reaches HIGH,
"fail-open" when none does but hayward reports that its own scan raised
(MFV-SKIP-003, "NOT a clean verdict": the command still exits 0), and
"accepted" otherwise.
"""

import sys
from pathlib import Path

from hayward import ModelFileScanner, Severity

findings = ModelFileScanner().scan_file(Path(sys.argv[1]))
for f in findings:
    print(f"{f.rule_id} {f.severity.value}: {f.message}")
high = any(f.severity in {Severity.CRITICAL, Severity.HIGH} for f in findings)
failed = [f for f in findings if f.metadata.get("skipped_reason") == "scan_error"]
if high:
    print("rejected")
elif failed:
    error = failed[0].metadata.get("error")
    print(f"fail-open: its scan raised {error}, and the default gate passes (exit 0)")
else:
    print("accepted")
