"""A cmd: reader answering dtype, shape and sha256 per tensor, without nbytes."""

from __future__ import annotations

import hashlib
import json
import sys

import stspec


def main(argv: list[str]) -> int:
    if argv[-1] == "--describe":
        sys.stdout.write(
            json.dumps({"protocol": 2, "name": "no-nbytes", "version": "1"})
        )
        return 0
    try:
        with stspec.read(argv[-1]) as st:
            tensors = {
                name: {
                    "dtype": info.dtype,
                    "shape": list(info.shape),
                    "sha256": hashlib.sha256(st.tensor_bytes(name)).hexdigest(),
                }
                for name, info in st.tensors.items()
            }
            answer = {"result": "accepted", "metadata": st.metadata, "tensors": tensors}
    except stspec.SafetensorsError as exc:
        sys.stdout.write(
            json.dumps({"result": "rejected", "rule": exc.rule, "reason": str(exc)})
        )
        sys.stderr.write(f"{exc.rule}\n")
        return 1
    sys.stdout.write(json.dumps(answer))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
