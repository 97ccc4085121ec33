"""stsw 1.0.0: a streaming reader (mmap) and writer of its own.

Read as its README reads: ``StreamReader(path)`` parses and checks the header,
``get_slice(name)`` gives each tensor's bytes as a view of the mapping.
Written as ``stsw.dump`` writes: ``build_aligned_offsets`` (64-byte aligned
ranges), then ``StreamWriter.open`` with ``write_block`` and
``finalize_tensor`` per tensor.  Both take 8 dtypes (F16, BF16, F32, F64,
I8, I16, I32, I64).  ``StreamWriter`` has no way to write ``__metadata__``,
so a request that carries metadata (even ``{}``) is refused.  Its
``HeaderError``, ``ValueError``, the ``RuntimeError`` that ``get_slice``
documents (exactly that type: the ``RecursionError`` its ``json.loads``
raises on a nesting bomb is a subclass, and unexpected) and OS errors
reject; anything else escaping is an unexpected exception.
"""

from __future__ import annotations

from importlib.metadata import version
from typing import Final

import stsw
from _spec import Refused, Tensors, refusing_exactly
from stsw._core.meta import build_aligned_offsets

NAME: Final = "stsw"
VERSION: Final = version("stsw")
_DTYPES: Final = ["I8", "I16", "F16", "BF16", "I32", "F32", "F64", "I64"]
CAPABILITIES: Final = {"read_dtypes": _DTYPES, "write_dtypes": _DTYPES}


class NoMetadataWriter(Exception):  # noqa: N818 - the refusal, not an error
    """stsw's writer cannot write ``__metadata__``: the request is refused."""


READ_REJECTS: Final = (
    stsw.HeaderError,
    ValueError,
    Refused,
    OSError,
    stsw.FileIOError,
)
WRITE_REJECTS: Final = (
    stsw.HeaderError,
    ValueError,
    stsw.LengthMismatchError,
    stsw.TensorOrderError,
    OSError,
    stsw.FileIOError,
    NoMetadataWriter,
)


@refusing_exactly(RuntimeError)
def load(path: str) -> tuple[Tensors, dict[str, str] | None]:
    """``StreamReader`` and ``get_slice`` of every tensor."""
    reader = stsw.StreamReader(path)
    tensors: Tensors = {}
    for name in reader.keys():  # noqa: SIM118 - its own keys()
        meta = reader.meta(name)
        tensors[name] = (meta.dtype, list(meta.shape), reader.get_slice(name))
    return tensors, reader.metadata


def save(path: str, tensors: Tensors, metadata: dict[str, str] | None) -> None:
    """``StreamWriter`` with the offsets ``stsw.dump`` computes."""
    if metadata is not None:
        raise NoMetadataWriter("stsw's StreamWriter takes no __metadata__")
    metas = build_aligned_offsets(
        [
            (name, dtype, tuple(shape), len(data))
            for name, (dtype, shape, data) in tensors.items()
        ],
        align=stsw.DEFAULT_ALIGN,
    )
    with stsw.StreamWriter.open(path, metas) as writer:
        for name, (_dtype, _shape, data) in tensors.items():
            writer.write_block(name, bytes(data))
            writer.finalize_tensor(name)
