"""stsw: ``StreamReader`` + ``get_slice`` on a file.

    .matrix/stsw/venv/bin/python matrix/repro/open_stsw.py FILE

Prints each tensor's dtype, shape and the length of the bytes ``get_slice``
gives, then "accepted"; whatever it raises is left uncaught.
"""

import sys

import stsw

reader = stsw.StreamReader(sys.argv[1])
for name in list(reader.keys())[:20]:
    meta = reader.meta(name)
    print(
        f"{name}: {meta.dtype} {list(meta.shape)}, {len(reader.get_slice(name))} bytes"
    )
print(f"metadata: {str(reader.metadata)[:200]}")
print("accepted")
