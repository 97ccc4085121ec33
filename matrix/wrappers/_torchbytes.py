"""torch tensors as (spec dtype, shape, raw bytes), for torch-based readers."""

from __future__ import annotations

from typing import Any, Final

import torch

__all__ = ["SPEC_OF", "as_spec"]

SPEC_OF: Final = {
    torch.bool: "BOOL", torch.uint8: "U8", torch.int8: "I8",
    torch.float8_e5m2: "F8_E5M2", torch.float8_e4m3fn: "F8_E4M3",
    torch.float8_e8m0fnu: "F8_E8M0", torch.float8_e4m3fnuz: "F8_E4M3FNUZ",
    torch.float8_e5m2fnuz: "F8_E5M2FNUZ", torch.int16: "I16",
    torch.uint16: "U16", torch.float16: "F16", torch.bfloat16: "BF16",
    torch.int32: "I32", torch.uint32: "U32", torch.float32: "F32",
    torch.complex64: "C64", torch.float64: "F64", torch.int64: "I64",
    torch.uint64: "U64", torch.float4_e2m1fn_x2: "F4",
}  # fmt: skip


def as_spec(tensor: Any) -> tuple[str, list[int], bytes]:  # noqa: ANN401 - torch
    """Spec dtype, shape and bytes; torch's F4 holds pairs (last dim halved)."""
    dtype = SPEC_OF.get(tensor.dtype, str(tensor.dtype))
    shape = list(tensor.shape)
    if dtype == "F4" and shape:
        shape[-1] *= 2
    flat = tensor.contiguous().reshape(-1)
    data = bytes(flat.view(torch.uint8).numpy()) if flat.numel() else b""
    return dtype, shape, data
