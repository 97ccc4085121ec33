"""Files that are not safetensors say what they look like."""

from __future__ import annotations

import json
import pickle
from typing import TYPE_CHECKING

import pytest

import stspec
from stspec.audit.sniff import SNIFF_SIZE, sniff

from .models import run

if TYPE_CHECKING:
    from pathlib import Path

LOOKS_LIKE = {
    "zip": b"PK\x03\x04\x14\x00\x00\x00\x08\x00archive/data.pkl" + bytes(40),
    "pickle": pickle.dumps({"w": [1, 2, 3]}, protocol=2),
    "gguf": b"GGUF\x03\x00\x00\x00" + bytes(16),
    "npy": b"\x93NUMPY\x01\x00v\x00{'descr': '<f4'}",
    "hdf5": b"\x89HDF\r\n\x1a\n" + bytes(24),
    "gzip": b"\x1f\x8b\x08\x00" + bytes(12),
    "xz": b"\xfd7zXZ\x00\x00\x04" + bytes(8),
    "zstd": b"\x28\xb5\x2f\xfd" + bytes(12),
    "bzip2": b"BZh91AY&SY" + bytes(8),
    "7z": b"7z\xbc\xaf\x27\x1c\x00\x04" + bytes(8),
    "elf": b"\x7fELF\x02\x01\x01" + bytes(9),
    "png": b"\x89PNG\r\n\x1a\n" + bytes(8),
    "tflite": b"\x1c\x00\x00\x00TFL3" + bytes(8),
    "git-lfs-pointer": b"version https://git-lfs.github.com/spec/v1\n"
    b"oid sha256:4d7a\nsize 852658528\n",
    "html": b"\n<!DOCTYPE html>\n<html><head><title>404</title></head></html>",
    "xml": b'<?xml version="1.0"?><Error><Code>AccessDenied</Code></Error>',
    "json": json.dumps({"architectures": ["LlamaForCausalLM"]}).encode(),
    "text": "Entrez votre mot de passe — déjà vu\n".encode(),
}


@pytest.mark.parametrize(
    ("key", "data"), list(LOOKS_LIKE.items()), ids=list(LOOKS_LIKE)
)
def test_a_file_of_another_format_is_named(
    key: str, data: bytes, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "model.safetensors"
    path.write_bytes(data)
    found = sniff(data[:SNIFF_SIZE])
    assert found is not None
    assert found.key == key
    (error,) = stspec.validate(path)
    status, out, _ = run(capsys, "check", str(path))
    assert status == 1
    assert out == (
        f"{path}: {error.rule} at byte 0: not a safetensors file, it looks like "
        f"{found.description}\n"
    )
    _, out, _ = run(capsys, "check", "--json", str(path))
    (report,) = json.loads(out)["files"]
    assert report["looks_like"] == {"format": key, "description": found.description}
    assert report["violations"][0]["rule"] == error.rule


def test_the_sniffed_line_replaces_a_meaningless_header_length(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "config.json.safetensors"
    path.write_text('{\n  "architectures": ["LlamaForCausalLM"]\n}\n', encoding="utf-8")
    _, out, _ = run(capsys, "check", str(path))
    assert "header length" not in out
    assert "it looks like JSON text" in out


@pytest.mark.parametrize(
    "data",
    [
        pytest.param(b"", id="empty"),
        pytest.param(b"\x80\x09\x00", id="pickle-protocol-out-of-range"),
        pytest.param(bytes(range(1, 40)), id="binary"),
        pytest.param(b"abc\xff\xfe", id="not-utf8"),
    ],
)
def test_unknown_bytes_are_not_named(data: bytes) -> None:
    assert sniff(data) is None


def test_a_character_cut_at_the_sniff_window_is_still_text() -> None:
    data = ("é" * SNIFF_SIZE).encode()[: SNIFF_SIZE - 1]  # ends inside a character
    found = sniff(data)
    assert found is not None
    assert found.key == "text"


def test_a_truncated_safetensors_file_is_not_called_another_format(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    good = stspec.serialize({"w": stspec.Tensor("U8", (4,), b"abcd")})
    path = tmp_path / "cut.safetensors"
    path.write_bytes(good[:20])
    _, out, _ = run(capsys, "check", str(path))
    assert out.startswith(f"{path}: HEADER-BOUNDS at byte 0: header length ")
