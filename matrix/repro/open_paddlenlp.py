"""PaddleNLP: ``fast_safe_open`` from ``paddlenlp/utils/safetensors.py``.

    .matrix/paddlenlp/venv/bin/python matrix/repro/open_paddlenlp.py FILE

The module needs only numpy; it is loaded by path so that paddle is not
imported (``pip install --no-deps paddlenlp==2.8.1 numpy``).  Prints each
tensor's dtype, shape and byte count, then "accepted"; whatever it raises is
left uncaught.
"""

import importlib.util
import sys
from pathlib import Path

package = importlib.util.find_spec("paddlenlp")  # locates it, runs nothing
if package is None or not package.submodule_search_locations:
    sys.exit("paddlenlp is not installed")
source = Path(package.submodule_search_locations[0]) / "utils" / "safetensors.py"
spec = importlib.util.spec_from_file_location("paddlenlp_safetensors", source)
if spec is None or spec.loader is None:
    sys.exit(f"cannot load {source}")
st = importlib.util.module_from_spec(spec)
spec.loader.exec_module(st)

with st.fast_safe_open(sys.argv[1], framework="np") as f:
    for name in f.keys()[:20]:
        array = f.get_tensor(name)
        dtype = f.get_slice(name).info["dtype"]
        print(f"{name}: {dtype} {list(array.shape)}, {array.nbytes} bytes")
    print(f"metadata: {str(f.metadata())[:200]}")
print("accepted")
