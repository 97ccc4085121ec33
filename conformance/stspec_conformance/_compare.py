"""Comparing what a reader loaded with what the file holds, within its declaration.

Declaring less narrows *what is compared*, never what may be accepted:

* ``metadata_presence`` false: an absent ``__metadata__`` and ``{}`` compare
  equal (the reader's API cannot tell them apart); any other metadata
  difference still counts.
* ``header_only``: dtypes, shapes, names and metadata are compared, bytes are
  not (the validator returns none).  A reader that does *not* declare it must
  return bytes for every tensor.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from stspec_conformance._model import Content, TensorDigest

if TYPE_CHECKING:
    from stspec_conformance._capabilities import Capabilities

__all__ = ["content_problems", "within_declaration"]


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


def within_declaration(content: Content, capabilities: Capabilities) -> Content:
    """``content`` as the declaration lets a reader report it."""
    metadata = content.metadata
    if not capabilities.metadata_presence and metadata is None:
        metadata = {}
    narrowed = Content(metadata, content.tensors, content.summary)
    return _without_bytes(narrowed) if capabilities.header_only else narrowed


def content_problems(
    got: Content, expected: Content, capabilities: Capabilities
) -> list[str]:
    """How ``got`` differs from ``expected`` in what the declaration covers."""
    problems: list[str] = []
    if not capabilities.header_only:
        bare = [name for name, t in got.tensors.items() if not _bytes_of(t)]
        if bare:
            problems.append(
                f"no tensor bytes returned for {len(bare)} tensor(s) "
                f"(first {bare[0]!r}), but the implementation does not declare "
                "header_only"
            )
    mine = within_declaration(got, capabilities)
    theirs = within_declaration(expected, capabilities)
    return problems + mine.differences(theirs)
