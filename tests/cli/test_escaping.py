"""Names and metadata from untrusted files cannot make a line lie."""

from __future__ import annotations

import json
import struct
import subprocess
import sys
from typing import TYPE_CHECKING

import pytest

import stspec
from stspec.audit.terminal import escape

from .models import run

if TYPE_CHECKING:
    from pathlib import Path

EVIL = "evil\u202e\u009b31mX\x7f"  # a bidi override, a C1 CSI, DEL


@pytest.mark.parametrize(
    ("text", "shown"),
    [
        ("plain ascii", "plain ascii"),
        ("名前 é", "名前 é"),
        (EVIL, "evil\\u202e\\x9b31mX\\x7f"),
        ("a\tb\nc\x1b[0m", "a\\x09b\\x0ac\\x1b[0m"),
        ("line\u2028sep", "line\\u2028sep"),
        ("\ud800lone", "\\ud800lone"),
        ("\U000e0041tag", "\\U000e0041tag"),
    ],
)
def test_escape_keeps_printable_text_and_escapes_the_rest(
    text: str, shown: str
) -> None:
    assert escape(text) == shown


def test_a_violation_never_prints_a_raw_bidi_or_c1_character(tmp_path: Path) -> None:
    header = json.dumps(
        {EVIL: {"dtype": "F33", "shape": [1], "data_offsets": [0, 1]}},
        ensure_ascii=False,
    ).encode()
    path = tmp_path / "evil.safetensors"
    path.write_bytes(struct.pack("<Q", len(header)) + header + b"x")
    result = subprocess.run(
        [sys.executable, "-m", "stspec", "check", "--all", str(path)],
        capture_output=True,
        timeout=60,
        check=False,
    )
    assert result.returncode == 1
    out = result.stdout.decode()
    assert out.isascii()
    assert '$["evil\\u202e\\x9b31mX\\x7f"]' in out


def test_summary_metadata_and_file_names_are_escaped(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "odd\u202ename.safetensors"
    stspec.write(path, {}, {"note\u009b": "x\u202ey"})
    status, out, _ = run(capsys, "check", "-s", str(path))
    assert status == 0
    assert "odd\\u202ename.safetensors: valid" in out
    assert "metadata    note\\x9b=x\\u202ey" in out
    assert out.isascii()


def test_error_messages_on_stderr_are_escaped(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    missing = tmp_path / "gone\u202e.safetensors"
    status, _, err = run(capsys, "check", str(missing))
    assert status == 2
    assert "gone\\u202e.safetensors" in err
    assert "\u202e" not in err
