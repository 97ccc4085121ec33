"""ModelAudit: ``SafeTensorsScanner().scan`` on a file, judged as the CLI judges.

    PROMPTFOO_DISABLE_TELEMETRY=1 .matrix/modelaudit/venv/bin/python \
        matrix/repro/open_modelaudit.py FILE

Prints the issues it reports, then the exit code ``modelaudit scan FILE``
would give and "accepted" when that is 0; whatever it raises is left uncaught.
"""

import sys

from modelaudit.core_results import determine_exit_code, merge_scan_result
from modelaudit.models import create_initial_audit_result
from modelaudit.scanners.safetensors_scanner import SafeTensorsScanner

result = SafeTensorsScanner().scan(sys.argv[1])
for issue in result.issues:
    print(f"{issue.severity.name}: {issue.message}")
audit = create_initial_audit_result()
merge_scan_result(audit, result)
code = determine_exit_code(audit)
print(f"exit code {code}")
print("accepted" if code == 0 else "rejected")
