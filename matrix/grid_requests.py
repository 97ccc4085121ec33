"""The fixed requests every writer of the interop grid is asked to write.

The writer tests' valid requests (the empty file, ``{}`` metadata alone, one
tensor of each dtype, dimensions only exact integers can carry) plus what
models hold: hundreds of tensors of mixed dtypes in an order that is not
sorted, a rank-0 tensor, empty tensors beside full ones, metadata with
non-ASCII text.  Deterministic: the same bytes in every run.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from stspec_conformance.strategies import DTYPE_NAMES, nbytes_of

if TYPE_CHECKING:
    from collections.abc import Mapping

__all__ = ["Request", "requests", "to_json"]

Tensor = tuple[str, tuple[int, ...], bytes]


@dataclass(frozen=True, slots=True)
class Request:
    """One file to write: tensors by name (dtype, shape, bytes) and metadata."""

    name: str
    tensors: Mapping[str, Tensor]
    metadata: dict[str, str] | None

    @property
    def dtypes(self) -> frozenset[str]:
        """The dtypes the request holds."""
        return frozenset(dtype for dtype, _, _ in self.tensors.values())


def _fill(dtype: str, shape: tuple[int, ...], seed: int) -> bytes:
    size = nbytes_of(dtype, shape)
    if dtype == "BOOL":
        return bytes((seed + i) % 2 for i in range(size))
    # bytes below 0x40: no float dtype's NaN or infinity (their exponent bits
    # are never all ones), so a writer that converts values keeps them exact
    return bytes((seed * 7 + i * 13) % 0x40 for i in range(size))


def _tensor(dtype: str, shape: tuple[int, ...], seed: int) -> Tensor:
    return (dtype, shape, _fill(dtype, shape, seed))


def _model(layers: int, width: int) -> dict[str, Tensor]:
    # a decoder's names and mixed dtypes, in the order a framework's state
    # dict lists them (not sorted); F16 and F32, which every writer declares
    tensors = {"model.embed_tokens.weight": _tensor("F16", (64, width), 1)}
    for i in range(layers):
        prefix = f"model.layers.{i}"
        for j, part in enumerate(("q_proj", "k_proj", "v_proj", "o_proj")):
            tensors[f"{prefix}.self_attn.{part}.weight"] = _tensor(
                "F16", (width, width), i + j
            )
        for j, part in enumerate(("gate_proj", "up_proj", "down_proj")):
            tensors[f"{prefix}.mlp.{part}.weight"] = _tensor(
                "F16", (width, 2 * width), i * 3 + j
            )
        tensors[f"{prefix}.input_layernorm.weight"] = _tensor("F32", (width,), i)
        tensors[f"{prefix}.post_attention_layernorm.weight"] = _tensor(
            "F32", (width,), i + 1
        )
    tensors["model.norm.weight"] = _tensor("F32", (width,), 2)
    tensors["lm_head.weight"] = _tensor("F16", (64, width), 3)
    return tensors


def requests() -> list[Request]:
    """Every request, in a fixed order."""
    fixed = [
        Request("empty", {}, None),
        Request("empty-metadata", {}, {}),
        Request("one-u8", {"t": _tensor("U8", (8,), 0)}, None),
        Request(
            "metadata",
            {"t": _tensor("F32", (2, 2), 1)},
            {"format": "pt", "note": "größe ✓ 日本", "z": "", "a": "x" * 300},
        ),
        Request(
            "rank0-and-empty",
            {
                "scalar": _tensor("F32", (), 2),
                "empty": _tensor("F32", (0,), 0),
                "empty2d": _tensor("I64", (3, 0), 0),
                "full": _tensor("I32", (2, 3), 3),
            },
            None,
        ),
        Request(
            "exact-integers",
            {
                "u64max": _tensor("U8", (2**64 - 1, 0), 0),
                "odd": _tensor("U8", (0, 2**53 + 1), 0),
            },
            None,
        ),
        Request(
            "names",
            {
                "b.weight": _tensor("U8", (1,), 1),
                "a.weight": _tensor("U8", (1,), 2),
                "é ü": _tensor("U8", (1,), 3),
                "with space": _tensor("U8", (1,), 4),
                "__metadata": _tensor("U8", (1,), 5),
            },
            None,
        ),
        Request("model-small", _model(2, 16), {"format": "pt"}),
        # 578 tensors: a header of about 60 kB, as a 7B model's is
        Request("model-many-tensors", _model(64, 2), {"format": "pt"}),
    ]
    per_dtype = [
        Request(f"dtype-{dtype}", {"t": _tensor(dtype, (4,), i)}, None)
        for i, dtype in enumerate(DTYPE_NAMES)
    ]
    return [*fixed, *per_dtype]


def to_json(request: Request) -> dict[str, Any]:
    """The command protocol's write request (``hex`` bytes; shapes as lists)."""
    return {
        "metadata": request.metadata,
        "tensors": {
            name: {"dtype": dtype, "shape": list(shape), "hex": data.hex()}
            for name, (dtype, shape, data) in request.tensors.items()
        },
    }


def dumps(request: Request) -> str:
    """``to_json`` as one line of JSON."""
    return json.dumps(to_json(request), ensure_ascii=False)
