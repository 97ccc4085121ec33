"""sft-cli: the check behind ``sft check --skip-values FILE``.

    .matrix/sft-cli/venv/bin/python matrix/repro/open_sft.py FILE

Prints the check's fields and the tensors ``TensorIndex`` lists, then
"accepted" when the file is reported healthy.
"""

import sys
from pathlib import Path

from sft.index import TensorIndex
from sft.ops.check import check_file

result = check_file(Path(sys.argv[1]), skip_values=True)
print(f"header_ok={result.header_ok} {result.header_error!r}")
print(f"offsets_ok={result.offsets_ok} {result.offsets_error!r}")
if result.healthy:
    for t in TensorIndex.from_file(Path(sys.argv[1])).tensors[:20]:
        print(f"{t.full_name}: {t.dtype} {list(t.shape)}, {t.nbytes} bytes")
print("accepted" if result.healthy else "rejected")
