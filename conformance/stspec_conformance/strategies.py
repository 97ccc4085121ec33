"""Hypothesis strategies for safetensors files, for this suite and for implementers.

Everything here builds files with its own small encoder (:func:`encode`), not
with the implementation under test and not with the reference writer, so a
bug in either cannot hide itself.  The only thing taken from the reference
package is its dtype table (names and bit widths).

Valid files
    :func:`valid_files` draws a :class:`ValidFile`: random tensors of all 22
    dtypes (empty and rank-0 ones included), optional metadata, and the
    freedoms the format allows (member order, field order, data order
    independent of header order, escaped names, whitespace between tokens,
    extra 0x20 padding).

Single-fault corruptions
    :func:`corruptions` draws a :class:`Corruption`: a valid file changed in
    exactly one way that breaks exactly one MUST rule, with that rule's id
    (what the strict reference reports).  :data:`CORRUPTION_KINDS` lists the
    kinds, spelt ``RULE/what``; ``late=True`` puts the fault after more than
    1,000 tensors and 128 metadata keys, past the first 64 KiB of the header.

Explicit examples
    :func:`edge_content` gives tensors and metadata random draws rarely
    reach (CR LF in values, keys equal only after Unicode normalisation,
    empty tensors of rank 4 and 6, names that sort differently by UTF-16
    code unit), for ``@example``.

Tolerated variants
    :func:`tolerated_variants` draws a :class:`ValidFile` that breaks only MAY
    rules (leading whitespace, tab/newline padding, unknown entry fields,
    ``"__metadata__": null``); a reader may reject it, or must load it as
    ``tensors``/``metadata`` say.

Example::

    from hypothesis import given
    from stspec_conformance import strategies as sts

    @given(sts.valid_files())
    def test_loads(case):
        assert my_reader.loads(case.data) == case.tensors
"""

from __future__ import annotations

from stspec_conformance._faults import (
    CORRUPTION_KINDS,
    TOLERATED_KINDS,
    Corruption,
    corruptions,
    tolerated_variants,
)
from stspec_conformance._files import (
    DTYPE_NAMES,
    RawTensor,
    ValidFile,
    dtype_names,
    edge_content,
    encode,
    metadata_maps,
    metadata_text,
    nbytes_of,
    shapes,
    tensor_names,
    tensor_sets,
    tensors,
    valid_files,
)

__all__ = [
    "CORRUPTION_KINDS",
    "DTYPE_NAMES",
    "TOLERATED_KINDS",
    "Corruption",
    "RawTensor",
    "ValidFile",
    "corruptions",
    "dtype_names",
    "edge_content",
    "encode",
    "metadata_maps",
    "metadata_text",
    "nbytes_of",
    "shapes",
    "tensor_names",
    "tensor_sets",
    "tensors",
    "tolerated_variants",
    "valid_files",
]
