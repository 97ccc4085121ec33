"""`stspec check FILE`: one small valid file named alone takes the short way.

The short way (stspec.audit.small.check_small) must print exactly what the
whole command prints, and leave everything else to the whole command.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

import pytest

import stspec
from stspec.audit import command as _command
from stspec.audit.cli import main

if TYPE_CHECKING:
    from pathlib import Path

    from stspec.audit.command import Options

VALID_FILES = {
    "one-tensor": ({"w": ("F32", [2, 3], bytes(24))}, {"format": "pt"}),
    "no-metadata": ({"w": ("BF16", [4], bytes(8))}, None),
    "no-tensors": ({}, {"format": "pt"}),
    "odd-name": ({"w": ("U8", [1], b"x")}, None),
}


class Audits:
    """Counts the whole command's runs, and runs it."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.calls: list[list[str]] = []
        whole = _command.audit

        def counted(paths: list[str], options: Options) -> int:
            self.calls.append(paths)
            return whole(paths, options)

        monkeypatch.setattr(_command, "audit", counted)


def run(
    capsys: pytest.CaptureFixture[str], arguments: list[str]
) -> tuple[int, str, str]:
    status = main(["check", *arguments])
    printed = capsys.readouterr()
    return status, printed.out, printed.err


def whole_command(
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    arguments: list[str],
) -> tuple[int, str, str]:
    """What the command prints when the short way is never taken."""
    with monkeypatch.context() as patch:
        patch.setattr("stspec.audit.small.check_small", lambda *_, **__: False)
        return run(capsys, arguments)


@pytest.mark.parametrize(
    "options", [[], ["--quiet"], ["--all"], ["-j", "2"], ["--fail-unchecked-weights"]]
)
@pytest.mark.parametrize("name", sorted(VALID_FILES))
def test_a_small_valid_file_prints_what_the_whole_command_prints(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    name: str,
    options: list[str],
) -> None:
    tensors, metadata = VALID_FILES[name]
    file_name = (
        "caf\u00e9 \u202e.safetensors" if name == "odd-name" else f"{name}.safetensors"
    )
    path = str(tmp_path / file_name)
    stspec.write(path, tensors, metadata)
    expected = whole_command(capsys, monkeypatch, [path, *options])
    audits = Audits(monkeypatch)
    assert run(capsys, [path, *options]) == expected
    assert audits.calls == []  # the short way was taken
    assert expected[0] == 0
    assert ("valid (" in expected[1]) is ("--quiet" not in options)


def _valid(path: Path) -> str:
    stspec.write(path, {"w": ("F32", [2], bytes(8))}, {"format": "pt"})
    return str(path)


def _truncated(path: Path) -> str:
    _valid(path)
    path.write_bytes(path.read_bytes()[:-1])
    return str(path)


def _long_header(path: Path) -> str:
    # More than the 1024 header bytes one read judges whole.
    stspec.write(path, {"w": ("F32", [2], bytes(8))}, {"x" * 2000: "y"})
    return str(path)


def _empty(path: Path) -> str:
    path.write_bytes(b"")
    return str(path)


def _folder(path: Path) -> str:
    path.mkdir()
    _valid(path / "inner.safetensors")
    return str(path)


def _fifo(path: Path) -> str:
    os.mkfifo(path)
    return str(path)


def _other_suffix(path: Path) -> str:
    return _valid(path.with_suffix(".bin"))


def _missing(path: Path) -> str:
    return str(path)


@pytest.mark.parametrize(
    "make",
    [_truncated, _long_header, _empty, _folder, _fifo, _other_suffix, _missing],
)
def test_any_other_file_is_left_to_the_whole_command(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    make: object,
) -> None:
    assert callable(make)
    path = make(tmp_path / "file.safetensors")
    arguments = [path, "--wait", "0.1"]  # nobody writes to the FIFO
    expected = whole_command(capsys, monkeypatch, arguments)
    audits = Audits(monkeypatch)
    assert run(capsys, arguments) == expected
    assert audits.calls == [[path]]


@pytest.mark.parametrize(
    "options",
    [
        ["--json"],
        ["--summary"],
        ["--hash"],
        ["--whole-models"],
        ["--sha256", "x.safetensors=" + "0" * 64],
        ["--sarif", "log.sarif"],
    ],
)
def test_an_option_that_adds_to_the_report_takes_the_whole_command(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    options: list[str],
) -> None:
    monkeypatch.chdir(tmp_path)
    path = _valid(tmp_path / "x.safetensors")
    audits = Audits(monkeypatch)
    run(capsys, [path, *options])
    assert audits.calls == [[path]]


def test_two_files_take_the_whole_command(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    # The whole command names a file given twice once.
    path = _valid(tmp_path / "x.safetensors")
    audits = Audits(monkeypatch)
    status, out, _ = run(capsys, [path, path])
    assert audits.calls == [[path, path]]
    assert status == 0
    assert out.count("valid (") == 1


def test_a_file_that_fails_to_read_takes_the_whole_command(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    # A read error after the file opened (EIO on a failing disk, say) is the
    # whole command's to report; the short way never reports an error.
    path = _valid(tmp_path / "x.safetensors")
    expected = whole_command(capsys, monkeypatch, [path])

    def failing(_fd: int) -> None:
        raise OSError(5, "Input/output error")

    monkeypatch.setattr("stspec.audit.small.judge_small", failing)
    audits = Audits(monkeypatch)
    assert run(capsys, [path]) == expected
    assert audits.calls == [[path]]
