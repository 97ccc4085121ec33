"""An implementer's adapter, as .ci/wheel runs it from outside the checkout.

The README's minimal adapter (the reference reader standing in for "my
library"), except that this reader does not know the sub-byte dtypes: the
runs it is used in fail a few tests, so their reports and baselines are not
empty.
"""

from __future__ import annotations

import stspec

NAME = "my-adapter"
VERSION = "1"
UNSUPPORTED = frozenset({"F4", "F6_E2M3", "F6_E3M2"})


def load(
    path: str,
) -> tuple[dict[str, tuple[str, list[int], bytes]], dict[str, str] | None]:
    """Return (tensors, metadata); raise to reject the file."""
    with stspec.read(path) as st:
        tensors = {}
        for name, info in st.tensors.items():
            if info.dtype in UNSUPPORTED:
                raise ValueError(f"{name}: dtype {info.dtype} is not supported")
            tensors[name] = (info.dtype, list(info.shape), bytes(st.tensor_bytes(name)))
        return tensors, st.metadata
