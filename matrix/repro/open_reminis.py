"""reminis: ``safetensors_to_sqlite`` on a file, into a temporary database.

    .matrix/reminis/venv/bin/python matrix/repro/open_reminis.py FILE

What ``reminis import FILE`` does.  Prints each stored tensor's dtype, shape
and byte count, then "accepted"; whatever it raises is left uncaught.
"""

import sqlite3
import sys
import tempfile
from pathlib import Path

from reminis.safetensors_io import safetensors_to_sqlite

with tempfile.TemporaryDirectory() as folder:
    db = safetensors_to_sqlite(
        sys.argv[1], str(Path(folder) / "model.db"), verbose=False
    )
    conn = sqlite3.connect(db)
    for name, shape, dtype, n_bytes in conn.execute(
        "SELECT name, shape, dtype, n_bytes FROM tensors ORDER BY id LIMIT 20"
    ):
        print(f"{name}: {dtype} {shape} (reversed), {n_bytes} bytes")
    conn.close()
print("accepted")
