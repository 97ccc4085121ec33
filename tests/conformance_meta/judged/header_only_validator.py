"""A cmd: header-only validator (protocol 2): dtype and shape per tensor, no bytes.

With ``--ignore-trailing`` it also accepts files with bytes after the last
tensor, a fault visible from the file's length: declaring header_only must not
excuse it.
"""

from __future__ import annotations

import json
import sys

import stspec

CAPABILITIES = {"header_only": True}


def _answer(path: str, *, ignore_trailing: bool) -> tuple[int, dict[str, object]]:
    try:
        with stspec.read(path) as st:
            tensors = {
                name: {"dtype": info.dtype, "shape": list(info.shape)}
                for name, info in st.tensors.items()
            }
            return 0, {
                "result": "accepted",
                "metadata": st.metadata,
                "tensors": tensors,
            }
    except stspec.SafetensorsError as exc:
        if ignore_trailing and exc.rule == "LAYOUT-TRAILING":
            return 0, {"result": "accepted", "metadata": None, "tensors": {}}
        return 1, {"result": "rejected", "rule": exc.rule, "reason": str(exc)}


def main(argv: list[str]) -> int:
    if argv[-1] == "--describe":
        describe = {"protocol": 2, "name": "header-only", "version": "1"}
        sys.stdout.write(json.dumps({**describe, "capabilities": CAPABILITIES}))
        return 0
    status, answer = _answer(argv[-1], ignore_trailing="--ignore-trailing" in argv)
    sys.stdout.write(json.dumps(answer))
    return status


if __name__ == "__main__":
    sys.exit(main(sys.argv))
