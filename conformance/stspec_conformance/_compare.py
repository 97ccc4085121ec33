"""Comparing what a reader loaded with what the file holds, within its declaration.

Declaring less narrows *what is compared*, never what may be accepted:

* ``metadata_presence`` false: an absent ``__metadata__`` and ``{}`` compare
  equal (the reader's API cannot tell them apart); any other metadata
  difference still counts.
* ``header_only``: dtypes, shapes, names and metadata are compared, bytes are
  not (the validator returns none).  A reader that does *not* declare it must
  return bytes for every tensor.
* ``metadata`` false: a reader that ignores ``__metadata__`` and reports
  none (None) is compared on its tensors only; metadata it does report is
  compared as usual.
"""

from __future__ import annotations

import math
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from stspec.dtypes import BITS
from stspec_conformance._model import Content, TensorDigest

if TYPE_CHECKING:
    from collections.abc import Mapping
    from pathlib import Path

    from stspec_conformance._capabilities import Capabilities

__all__ = [
    "case_dtypes",
    "content_problems",
    "ignores_metadata",
    "missing_bytes",
    "narrow_case",
    "with_nbytes",
    "within_declaration",
]


def _bytes_of(digest: TensorDigest) -> bool:
    return bool(digest.sha256 or digest.windows)


def _without_bytes(content: Content) -> Content:
    return Content(
        content.metadata,
        {
            name: TensorDigest(t.dtype, t.shape, t.nbytes, "", ())
            for name, t in content.tensors.items()
        },
        content.summary,
    )


def with_nbytes(content: Content) -> Content:
    """Fill in ``nbytes`` a reader left out (it is optional: dtype x shape gives it)."""
    tensors = {
        name: t
        if t.nbytes >= 0 or t.dtype not in BITS
        else TensorDigest(
            t.dtype,
            t.shape,
            math.prod(t.shape) * BITS[t.dtype] // 8,
            t.sha256,
            t.windows,
        )
        for name, t in content.tensors.items()
    }
    return Content(content.metadata, tensors, content.summary)


def within_declaration(content: Content, capabilities: Capabilities) -> Content:
    """``content`` as the declaration lets a reader report it.

    A size the reader did not give stays unknown (-1): it is not compared,
    and a failure message never shows dtype x shape as bytes it returned.
    """
    metadata = content.metadata
    if not capabilities.metadata_presence and metadata is None:
        metadata = {}
    narrowed = Content(metadata, content.tensors, content.summary)
    return _without_bytes(narrowed) if capabilities.header_only else narrowed


def missing_bytes(got: Content, capabilities: Capabilities) -> str | None:
    """Say so when a reader that is not header-only returned tensors without bytes."""
    if capabilities.header_only:
        return None
    bare = [name for name, t in got.tensors.items() if not _bytes_of(t)]
    if not bare:
        return None
    return (
        f"no tensor bytes returned for {len(bare)} tensor(s) (first {bare[0]!r}), "
        "but the implementation does not declare header_only"
    )


def ignores_metadata(got: Content, capabilities: Capabilities) -> bool:
    """A reader declaring ``metadata`` false reported none: it is not compared."""
    return not capabilities.metadata and got.metadata is None


def content_problems(
    got: Content, expected: Content, capabilities: Capabilities
) -> list[str]:
    """How ``got`` differs from ``expected`` in what the declaration covers."""
    missing = missing_bytes(got, capabilities)
    mine = within_declaration(got, capabilities)
    theirs = within_declaration(expected, capabilities)
    if ignores_metadata(got, capabilities):
        theirs = replace(theirs, metadata=mine.metadata)
    return ([missing] if missing else []) + mine.differences(theirs)


def case_dtypes(case: Mapping[str, Any], path: Path) -> frozenset[str] | None:
    """The dtypes a y_/i_ case's file uses (None when they cannot be told)."""
    expected = case.get("expected") or {}
    if "tensors" in expected:
        return frozenset(str(t["dtype"]) for t in expected["tensors"].values())
    import stspec  # noqa: PLC0415 - only for compact (huge) expectations

    try:
        with stspec.read(path) as st:
            return frozenset(info.dtype for info in st.tensors.values())
    except stspec.SafetensorsError:
        return None


def _listed(path: Path) -> dict[str, dict[str, Any]]:
    """A valid file's tensor list without digests (for header-only comparison)."""
    import stspec  # noqa: PLC0415 - only for compact (huge) expectations

    with stspec.read(path) as st:
        return {
            name: {
                "dtype": info.dtype,
                "shape": list(info.shape),
                "nbytes": info.nbytes,
                "sha256": "",
            }
            for name, info in st.tensors.items()
        }


def narrow_case(
    case: Mapping[str, Any], path: Path, capabilities: Capabilities
) -> dict[str, Any]:
    """The case with its expectation as the declaration lets a reader report it.

    A header-only validator cannot reproduce the compact digest of a huge
    tensor list (it hashes the bytes), so the list is read from the file.
    """
    narrowed = dict(case)
    expected = dict(case.get("expected") or {})
    if not expected:
        return narrowed
    if not capabilities.metadata_presence and expected.get("metadata") is None:
        expected["metadata"] = {}
    if capabilities.header_only:
        if "tensors" not in expected:
            expected = {"metadata": expected.get("metadata"), "tensors": _listed(path)}
        expected["tensors"] = {
            name: {**entry, "sha256": ""} for name, entry in expected["tensors"].items()
        }
    narrowed["expected"] = expected
    return narrowed
