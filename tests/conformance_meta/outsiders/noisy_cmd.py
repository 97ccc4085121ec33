"""A command that answers --describe, then prints text that is no answer.

python noisy_cmd.py FILE | --describe
"""

import json
import sys

if sys.argv[1:] == ["--describe"]:
    sys.stdout.write(json.dumps({"protocol": 2, "name": "noisy"}) + "\n")
    sys.exit(0)
sys.stdout.write("Error: could not parse header <\x1b[31mred\x1b[0m>\n")
sys.exit(1)
