"""A cmd: wrapper printing what a lax library parsed (protocol 2).

A file with a hole is "accepted" with the dtype and shape as the lax parser
holds them (a list, a string): a malformed answer that is still an
acceptance.  An empty file is rejected with a malformed rule id: a malformed
answer that is a rejection.
"""

from __future__ import annotations

import json
import sys

import stspec

LAX = {"a": {"dtype": ["U8"], "shape": "[2]"}}


def _answer(path: str) -> tuple[int, dict[str, object]]:
    try:
        with stspec.read(path) as st:
            tensors = {
                name: {
                    "dtype": info.dtype,
                    "shape": list(info.shape),
                    "hex": bytes(st.tensor_bytes(name)).hex(),
                }
                for name, info in st.tensors.items()
            }
            return 0, {
                "result": "accepted",
                "metadata": st.metadata,
                "tensors": tensors,
            }
    except stspec.SafetensorsError as exc:
        if exc.rule == "LAYOUT-HOLE":
            return 0, {"result": "accepted", "metadata": None, "tensors": LAX}
        rule: object = 5 if exc.rule == "FILE-PREFIX" else exc.rule
        return 1, {"result": "rejected", "rule": rule, "reason": str(exc)}


def main(argv: list[str]) -> int:
    if argv[-1] == "--describe":
        sys.stdout.write(json.dumps({"protocol": 2, "name": "lax", "version": "1"}))
        return 0
    status, answer = _answer(argv[-1])
    sys.stdout.write(json.dumps(answer))
    return status


if __name__ == "__main__":
    sys.exit(main(sys.argv))
