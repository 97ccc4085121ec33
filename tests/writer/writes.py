"""What the writer tests write, and how they look at a directory."""

from __future__ import annotations

from typing import TYPE_CHECKING

from stspec import Tensor

if TYPE_CHECKING:
    from pathlib import Path

TENSORS = {
    "a": Tensor("F32", (2,), b"\x00\x00\x80\x3f\x00\x00\x00\x40"),
    "b": Tensor("U8", (3,), b"xyz"),
}
OLD = b"the previous content, which must survive"


def names(folder: Path) -> list[str]:
    return sorted(path.name for path in folder.iterdir())
