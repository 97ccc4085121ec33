"""Integrity of local files: ``--sha256``, ``--manifest`` and ``--hash``.

A digest is compared with the file's bytes, read whole; a manifest or a pin
that cannot be used is a usage error (exit 2), and a digest that cannot be
computed is reported as not checked (exit 2), never as a match.
"""

from __future__ import annotations

import contextlib
import hashlib
import io
import json
import os
from typing import TYPE_CHECKING, Any

import pytest

from stspec.audit.cli import main

from .models import SHARDS, run, write_model

if TYPE_CHECKING:
    from pathlib import Path

FIRST = min(SHARDS)


@pytest.fixture
def model(tmp_path: Path) -> Path:
    return write_model(tmp_path / "m")


def _sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def test_a_manifest_that_cannot_be_read_is_a_usage_error(
    model: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    missing = model / "SHA256SUMS"
    status, out, err = run(capsys, "check", str(model), "--manifest", str(missing))
    assert (status, out) == (2, "")
    assert err == (
        f"stspec: cannot read the manifest {missing}: No such file or directory\n"
    )


def test_a_manifest_past_its_limit_is_not_read(
    model: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    manifest = model / "SHA256SUMS"
    with manifest.open("wb") as file:
        file.truncate((16 << 20) + 1)  # a hole: no disk space
    status, out, err = run(capsys, "check", str(model), "--manifest", str(manifest))
    assert (status, out) == (2, "")
    assert err == (f"stspec: the manifest {manifest} is longer than 16,777,216 bytes\n")


def test_a_manifest_line_not_in_sha256sums_format_is_named(
    model: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    manifest = model / "SHA256SUMS"
    manifest.write_text(f"# sums\n{_sha256(model / FIRST)}\t{FIRST}\n")
    status, out, err = run(capsys, "check", str(model), "--manifest", str(manifest))
    assert (status, out) == (2, "")
    assert err.startswith(
        f"stspec: {manifest}:2: expected 'SHA256  FILE' (sha256sum's format), got "
    )


def test_comments_and_blank_lines_of_a_manifest_are_skipped(
    model: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    manifest = model / "SHA256SUMS"
    manifest.write_text(f"# sums\n\n{_sha256(model / FIRST)} *{FIRST}\r\n")
    status, out, _ = run(capsys, "check", "-q", str(model), "--manifest", str(manifest))
    assert status == 0
    assert out == f"{model / FIRST}: integrity: sha256 matches\n"


def test_a_pinned_file_that_cannot_be_read_is_not_checked(
    model: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    gone = model / "gone.safetensors"
    pin = f"{gone}={'0' * 64}"
    status, out, _ = run(capsys, "check", "-q", str(model), "--sha256", pin)
    assert status == 2
    assert out == f"{gone}: integrity not checked: No such file or directory\n"


def test_a_file_pinned_and_hashed_gets_one_digest(
    model: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    digest = _sha256(model / FIRST)
    pin = f"{model / FIRST}={digest.upper()}"
    status, out, _ = run(
        capsys, "check", "-q", "--hash", str(model / FIRST), "--sha256", pin
    )
    assert status == 0
    assert out == f"{model / FIRST}: integrity: sha256 matches\n"


def test_a_refused_file_gets_no_digest(
    model: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    os.mkfifo(model / "pipe.safetensors")  # refused, never opened
    status, out, err = run(capsys, "check", "-q", "--hash", str(model))
    assert status == 2
    assert "pipe.safetensors: not a regular file (a FIFO)" in out + err
    assert "pipe.safetensors: sha256" not in out
    assert f"{model / FIRST}: sha256 {_sha256(model / FIRST)}" in out


def test_digests_go_into_the_json_document_only(model: Path) -> None:
    text = io.StringIO()
    with contextlib.redirect_stdout(text):
        status = main(["check", "--json", "--hash", str(model / FIRST)])
    assert status == 0
    document: dict[str, Any] = json.loads(text.getvalue())  # nothing else printed
    assert document["integrity"] == [
        {
            "file": str(model / FIRST),
            "sha256": _sha256(model / FIRST),
            "expected": None,
            "matches": None,
            "source": "file",
            "error": None,
        }
    ]


def test_hash_with_nothing_to_hash_adds_no_integrity_list(tmp_path: Path) -> None:
    os.mkfifo(tmp_path / "pipe.safetensors")  # refused, never opened
    text = io.StringIO()
    with contextlib.redirect_stdout(text):
        status = main(["check", "--json", "--hash", str(tmp_path / "pipe.safetensors")])
    assert status == 2
    document: dict[str, Any] = json.loads(text.getvalue())
    assert document["files"][0]["valid"] is False
    assert "integrity" not in document
