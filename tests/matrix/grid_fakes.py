"""Fake writers and readers for the interop grid, each with one known behaviour."""

from __future__ import annotations

import hashlib
from typing import TYPE_CHECKING, Any

from matrix import grid

import stspec

if TYPE_CHECKING:
    from collections.abc import Callable, Sequence
    from pathlib import Path

    from matrix.grid_requests import Request

__all__ = [
    "flips_a_byte",
    "good",
    "int32_dimensions",
    "no_f64",
    "no_metadata",
    "reader",
    "reference_answer",
    "reversed_order",
    "trailing_junk",
    "writer",
]

Outcomes = dict[str, dict[str, str]]


def writer(name: str, save: Callable[[Path, Request], None]) -> grid.Writer:
    def write(wanted: Sequence[Request], folder: Path) -> Outcomes:
        for request in wanted:
            save(folder / f"{request.name}.safetensors", request)
        return {r.name: {"result": "written", "reason": ""} for r in wanted}

    return grid.Writer(name, write)


def good(path: Path, request: Request) -> None:
    stspec.write(path, dict(request.tensors), request.metadata)


def trailing_junk(path: Path, request: Request) -> None:
    good(path, request)
    with path.open("ab") as out:
        out.write(b"\0")  # one byte past the last tensor: LAYOUT-TRAILING


def flips_a_byte(path: Path, request: Request) -> None:
    changed = {
        name: (dtype, shape, bytes([data[0] ^ 1]) + data[1:] if data else data)
        for name, (dtype, shape, data) in request.tensors.items()
    }
    stspec.write(path, changed, request.metadata)


def sha256(data: memoryview) -> str:
    return hashlib.sha256(data).hexdigest()


def reference_answer(path: Path) -> dict[str, Any]:
    with stspec.read(path) as st:
        return {
            "result": "accepted",
            "metadata": st.metadata,
            "tensors": {
                name: [
                    info.dtype,
                    list(info.shape),
                    sha256(st.tensor_bytes(name)),
                ]
                for name, info in st.tensors.items()
            },
        }


def reader(
    name: str, change: Callable[[dict[str, Any]], dict[str, Any]], **caps: Any
) -> grid.Reader:
    def read(paths: list[Path]) -> dict[str, dict[str, Any]]:
        out = {}
        for path in paths:
            try:
                answer = change(reference_answer(path))
            except stspec.SafetensorsError as exc:
                answer = {"result": "rejected", "error": str(exc)}
            out[path.name.removesuffix(".safetensors")] = answer
        return out

    return grid.Reader(name, read, caps)


def reversed_order(answer: dict[str, Any]) -> dict[str, Any]:
    answer["tensors"] = dict(reversed(list(answer["tensors"].items())))
    return answer


def no_metadata(answer: dict[str, Any]) -> dict[str, Any]:
    answer["metadata"] = None
    return answer


def no_f64(answer: dict[str, Any]) -> dict[str, Any]:
    if any(t[0] == "F64" for t in answer["tensors"].values()):
        return {"result": "rejected", "error": "F64 is not supported"}
    return answer


def int32_dimensions(answer: dict[str, Any]) -> dict[str, Any]:
    if any(d > 2**31 - 1 for t in answer["tensors"].values() for d in t[1]):
        return {"result": "rejected", "error": "dimension does not fit int32"}
    return answer
