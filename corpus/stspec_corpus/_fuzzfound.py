"""Cases found by fuzzing: disagreements between an implementation and the spec.

``fuzz/finding.py --write`` appends an entry per distinct disagreement,
reduced and classified by the reference; a person reviews the description and
the rules before it lands.  The id carries ``fuzz``; the provenance names the
harness and the implementations that disagreed.  An n_ or i_ case declares the
rules the reference found at promotion (lint re-checks them against the
reference on every run); a y_ case's expected content is what the reference
reads, and lint checks the content against the declaration.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from typing import Final

import stspec
from stspec_corpus._model import Case, Expected, ExpectedTensor, Provenance, make

__all__ = ["FOUND", "Found", "cases"]


@dataclass(frozen=True, slots=True)
class Found:
    """One promoted finding: its id, rules, bytes (hex) and what it shows."""

    id: str
    rules: tuple[str, ...]
    hex: str
    description: str
    ref: str  # "fuzz_<harness>: <implementations that disagreed>"


FOUND: Final[tuple[Found, ...]] = (
    Found(
        "n_json_fuzz_depth_128_in_unknown_field",
        ("JSON-DEPTH",),
        "3a010000000000007b2261223a7b226474797065223a22463332222c227368617065223a5b315d2c22646174615f6f666673657473223a5b302c345d2c2264656570223a5b5b5b5b5b5b5b5b5b5b5b5b5b5b5b5b5b5b5b5b5b5b5b5b5b5b5b5b5b5b5b5b5b5b5b5b5b5b5b5b5b5b5b5b5b5b5b5b5b5b5b5b5b5b5b5b5b5b5b5b5b5b5b5b5b5b5b5b5b5b5b5b5b5b5b5b5b5b5b5b5b5b5b5b5b5b5b5b5b5b5b5b5b5b5b5b5b5b5b5b5b5b5b5b5b5b5b5b5b5b5b5b5b5b5b5b5b5b5b5b5b5b5b5b5b5b5d5d5d5d5d5d5d5d5d5d5d5d5d5d5d5d5d5d5d5d5d5d5d5d5d5d5d5d5d5d5d5d5d5d5d5d5d5d5d5d5d5d5d5d5d5d5d5d5d5d5d5d5d5d5d5d5d5d5d5d5d5d5d5d5d5d5d5d5d5d5d5d5d5d5d5d5d5d5d5d5d5d5d5d5d5d5d5d5d5d5d5d5d5d5d5d5d5d5d5d5d5d5d5d5d5d5d5d5d5d5d5d5d5d5d5d5d5d5d5d5d5d5d5d5d5d7d7d0000803f",
        "an unknown entry member nested 128 deep (limit 127): mlx accepts it",
        "fuzz_differential: mlx",
    ),
    Found(
        "n_text_fuzz_utf8_after_nul",
        ("HEADER-UTF8",),
        "04000000000000007b7d00ff",
        "0xFF after a NUL after the object: a reader taking the header as a C string "
        "misses it (mlx accepts)",
        "fuzz_differential: mlx",
    ),
    Found(
        "n_arith_fuzz_dim_2pow32_no_bytes",
        ("SIZE-MATCH",),
        "3e000000000000007b22223a7b226474797065223a22463332222c227368617065223a5b343239343936373239365d2c22646174615f6f666673657473223a5b302c305d7d7d",
        "F32 shape [2^32] with no bytes: 32-bit dimensions make it empty (mlx accepts)",
        "fuzz_differential: mlx",
    ),
    Found(
        "n_arith_fuzz_shape_1gib_no_bytes",
        ("SIZE-MATCH",),
        "3d000000000000007b22223a7b226474797065223a225538222c227368617065223a5b313037333734313832345d2c22646174615f6f666673657473223a5b302c305d7d7d",
        "U8[2^30] over no bytes: a reader allocating the shape first asks 1 GiB "
        "(safetensors-streaming)",
        "fuzz_differential: safetensors-streaming",
    ),
    # end of the found cases: fuzz/finding.py appends above this line
)


def _expected(data: bytes) -> Expected:
    with stspec.read(data) as file:
        tensors = {}
        for name, info in file.tensors.items():
            view = file.tensor_bytes(name)
            try:
                digest = hashlib.sha256(view).hexdigest()
            finally:
                view.release()
            tensors[name] = ExpectedTensor(
                info.dtype, tuple(info.shape), info.nbytes, digest
            )
        return Expected(file.metadata, tensors)


def cases() -> list[Case]:
    """Every promoted finding as a corpus case."""
    out = []
    for found in FOUND:
        data = bytes.fromhex(found.hex)
        valid = found.id.startswith("y_")
        out.append(
            make(
                found.id,
                found.rules,
                found.description,
                data=data,
                expected=_expected(data) if valid else None,
                provenance=Provenance("fuzz", found.ref),
            )
        )
    return out
