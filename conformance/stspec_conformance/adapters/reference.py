"""Adapter for our strict reference (``--impl=reference``)."""

from __future__ import annotations

from typing import TYPE_CHECKING

import stspec
from stspec_conformance._capabilities import Capabilities
from stspec_conformance._model import Content, TensorDigest
from stspec_conformance.adapters._base import InProcessAdapter, RawTensors

if TYPE_CHECKING:
    from collections.abc import Mapping


class ReferenceAdapter(InProcessAdapter):
    """``stspec.read`` / ``stspec.write``; rejections carry their ``.rule``.

    Tensor bytes are hashed straight from the file mapping, so a multi-GiB
    sparse file costs no Python memory.
    """

    name = "reference"
    version = str(getattr(stspec, "__version__", "?"))  # not in stspec.__all__

    capabilities = Capabilities(write=True, canonical=True)
    # The reference rejects only with its own error: anything else is a bug.
    rejects = (stspec.SafetensorsError,)
    write_rejects = rejects

    def load(self, path: str) -> Content:
        """Read and validate ``path``; digest every tensor in place."""
        with stspec.read(path) as st:
            tensors: dict[str, TensorDigest] = {}
            for name, info in st.tensors.items():
                view = st.tensor_bytes(name)
                try:
                    tensors[name] = TensorDigest.of(info.dtype, tuple(info.shape), view)
                finally:
                    view.release()
            metadata = None if st.metadata is None else dict(st.metadata)
        return Content(metadata, tensors)

    def save(
        self, path: str, tensors: RawTensors, metadata: Mapping[str, str] | None
    ) -> None:
        """Write with ``stspec.write``."""
        stspec.write(path, tensors, metadata)

    def classify(self, exc: BaseException) -> str | None:
        """The reference names the broken rule itself."""
        rule = getattr(exc, "rule", None)
        return rule if isinstance(rule, str) else None


def make_adapter() -> ReferenceAdapter:
    """Return the adapter (used by ``--impl=reference``)."""
    return ReferenceAdapter()
