"""The manifest: one JSON entry per case, and the JSON Schema that describes it."""

from __future__ import annotations

import hashlib
import json
from typing import TYPE_CHECKING, Final

from stspec import SPEC_VERSION, __version__

if TYPE_CHECKING:
    from collections.abc import Mapping, Sequence

    from stspec_corpus._model import Case, Expected

# the corpus is released with the package and tests one version of the spec
MANIFEST_VERSION: Final = __version__
# Accepted cases with more tensors than this (only recipes) list a count and a
# digest of the expected tensors instead of the tensors themselves.
INLINE_TENSORS: Final = 10_000


# Every JSON number in the manifest is an integer in [0, MAX_NUMBER], which a
# parser that reads numbers as doubles (JavaScript's JSON.parse) keeps exact;
# quantities that can exceed it (dimensions, 64-bit element values) are strings.
MAX_NUMBER: Final = 2**53 - 1


def tensors_digest(tensors: Mapping[str, Mapping[str, object]]) -> str:
    """Return the ``tensors_sha256`` of a tensor list, defined without any JSON form.

    One ASCII line per tensor, ``<name> <dtype> <shape> <sha256>`` + LF, where
    name is the lowercase hex of the name's UTF-8 bytes, shape is the decimal
    dimensions joined by "," (empty for a scalar) and sha256 is the lowercase
    hex digest of the tensor's bytes; lines sorted (byte order), concatenated,
    hashed with sha256.  nbytes is left out: dtype and shape determine it.
    """
    lines = sorted(
        " ".join(
            (
                name.encode().hex(),
                str(tensor["dtype"]),
                ",".join(str(dim) for dim in _dims(tensor["shape"])),
                str(tensor["sha256"]),
            )
        )
        + "\n"
        for name, tensor in tensors.items()
    )
    return hashlib.sha256("".join(lines).encode("ascii")).hexdigest()


def _dims(shape: object) -> list[int]:
    if not isinstance(shape, list | tuple):
        raise TypeError(f"a shape is a list of dimensions, got {shape!r}")
    return [int(dim) for dim in shape]


def expected_json(expected: Expected, *, inline: bool = True) -> dict[str, object]:
    """Return the manifest form of an expectation (a digest for huge tensor lists)."""
    out: dict[str, object] = {
        "metadata": None if expected.metadata is None else dict(expected.metadata)
    }
    if expected.digest is not None and not inline:
        out["tensor_count"], out["tensors_sha256"] = expected.digest
        return out
    tensors = expected.tensors_json()
    if inline or len(tensors) <= INLINE_TENSORS:
        out["tensors"] = tensors
    else:
        out["tensor_count"] = len(tensors)
        # from what any reader returns (dtype, shape, bytes), without decoding
        out["tensors_sha256"] = tensors_digest(tensors)
    return out


def case_json(case: Case) -> dict[str, object]:
    """Return the manifest entry of one case."""
    out: dict[str, object] = {
        "id": case.id,
        "verdict": case.verdict,
        "rules": list(case.rules),
        "description": case.description,
        "tags": list(case.tags),
        "provenance": case.provenance.as_json(),
        "size": case.size,
    }
    if case.also_breaks:
        out["also_breaks"] = list(case.also_breaks)
    if case.sha256 is not None:
        out["sha256"] = case.sha256
    if case.data is not None:
        out["file"] = case.file
    if case.recipe is not None:
        out["recipe"] = {"name": case.recipe.name, "params": dict(case.recipe.params)}
    if case.expected is not None:
        out["expected"] = expected_json(case.expected, inline=case.recipe is None)
    return out


def manifest(cases: Sequence[Case]) -> dict[str, object]:
    """Return the whole manifest."""
    return {
        "$schema": "./manifest.schema.json",
        "version": MANIFEST_VERSION,
        "spec": SPEC_VERSION,
        "cases": [case_json(case) for case in cases],
    }


def dumps(value: object) -> str:
    """Return the committed text: sorted keys, indent 1, ASCII, final newline."""
    return json.dumps(value, sort_keys=True, indent=1, ensure_ascii=True) + "\n"
