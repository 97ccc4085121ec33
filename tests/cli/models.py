"""Small model folders for the command's tests: shards, indexes, extra files."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

import stspec
from stspec.audit.cli import main

if TYPE_CHECKING:
    from pathlib import Path

    import pytest

# Two shards as HF's save_pretrained would write them (a BF16 embedding and
# two F32 layers), 8 + 16 + 12 = 36 bytes of tensor data.
SHARDS: dict[str, dict[str, tuple[str, list[int], bytes]]] = {
    "model-00001-of-00002.safetensors": {
        "embed.weight": ("BF16", [2, 2], bytes(8)),
        "layers.0.weight": ("F32", [4], bytes(16)),
    },
    "model-00002-of-00002.safetensors": {
        "layers.1.weight": ("F32", [3], bytes(12)),
    },
}
INDEX = "model.safetensors.index.json"


def weight_map(
    shards: dict[str, dict[str, tuple[str, list[int], bytes]]],
) -> dict[str, str]:
    return {name: shard for shard, tensors in shards.items() for name in tensors}


def write_model(
    folder: Path,
    shards: dict[str, dict[str, tuple[str, list[int], bytes]]] | None = None,
    *,
    index: object = None,
    total_size: object = 36,
) -> Path:
    """Write shards and an index (by default the consistent one) into ``folder``."""
    shards = SHARDS if shards is None else shards
    folder.mkdir(parents=True, exist_ok=True)
    for shard, tensors in shards.items():
        stspec.write(folder / shard, tensors, {"format": "pt"})
    if index is None:
        index = {
            "metadata": {"total_size": total_size},
            "weight_map": weight_map(SHARDS),
        }
    text = index if isinstance(index, str) else json.dumps(index, indent=2)
    (folder / INDEX).write_text(text, encoding="utf-8")
    return folder


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    status = main(list(argv))
    out, err = capsys.readouterr()
    return status, out, err
