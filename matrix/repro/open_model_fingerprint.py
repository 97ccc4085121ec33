"""model-fingerprint: ``parse_detect`` + ``fingerprint`` on a file.

    .matrix/model-fingerprint/venv/bin/python \
        matrix/repro/open_model_fingerprint.py FILE

What ``model-fingerprint FILE`` runs.  Prints each tensor's dtype, shape and
the byte range it hashed, the fingerprint, then "accepted"; whatever it
raises is left uncaught.
"""

import sys
from pathlib import Path

import model_fingerprint as mfp

path = Path(sys.argv[1])
with mfp.FileReader(path) as reader:
    model = mfp.parse_detect(reader, path)
    for t in model.tensors[:20]:
        begin = model.data_start + t.offset
        end = begin + t.nbytes
        print(
            f"{t.name}: {t.dtype} {t.dims}, bytes {begin}..{end} of {model.file_size}"
        )
    print(f"fingerprint {mfp.fingerprint(model, reader)}")
print("accepted")
