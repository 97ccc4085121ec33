"""Inputs that are not regular files: stdin, pipes, FIFOs, devices, /proc."""

from __future__ import annotations

import errno
import os
import shutil
import socket
import stat
import subprocess
import sys
import threading
from typing import TYPE_CHECKING, Any

import pytest

import stspec
from stspec import MAX_HEADER_SIZE
from stspec.audit import inspect as _inspect
from stspec.audit.opening import (
    NotRegularFileError,
    kind,
    open_regular,
    regular_file,
)

from .models import run, write_model

if TYPE_CHECKING:
    from pathlib import Path

GOOD = stspec.serialize({"w": stspec.Tensor("F32", (2,), bytes(8))}, {"format": "pt"})
STSPEC = [sys.executable, "-m", "stspec"]


@pytest.fixture
def good(tmp_path: Path) -> Path:
    path = tmp_path / "good.safetensors"
    path.write_bytes(GOOD)
    return path


def stspec_with_stdin(data: bytes, *argv: str) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run(
        [*STSPEC, *argv], input=data, capture_output=True, timeout=60, check=False
    )


@pytest.mark.parametrize("name", ["-", "/dev/stdin"])
def test_a_pipe_on_stdin_is_read_to_its_end(name: str) -> None:
    result = stspec_with_stdin(GOOD, "check", name)
    assert result.returncode == 0, result.stderr
    assert result.stdout == f"{name}: valid (1 tensor, {len(GOOD)} bytes)\n".encode()


def test_a_pipe_is_judged_by_what_it_holds_not_by_its_zero_size() -> None:
    result = stspec_with_stdin(GOOD + b"tail", "check", "-")
    assert result.returncode == 1
    assert result.stdout.startswith(b"-: LAYOUT-TRAILING at byte ")


def test_an_empty_pipe_is_too_short() -> None:
    result = stspec_with_stdin(b"", "check", "-")
    assert result.returncode == 1
    assert result.stdout.startswith(b"-: FILE-PREFIX at byte 0: file is 0 bytes")


def test_a_stream_beyond_the_header_limit_is_judged_from_its_prefix() -> None:
    # The prefix alone decides: the command must not wait for the rest.
    prefix = (MAX_HEADER_SIZE + 1).to_bytes(8, "little")
    result = stspec_with_stdin(prefix + b"x" * 100, "check", "-")
    assert result.returncode == 1
    assert result.stdout.startswith(b"-: HEADER-LIMIT at byte 0")


def test_a_redirected_regular_file_on_stdin(good: Path) -> None:
    with good.open("rb") as stdin:
        result = subprocess.run(
            [*STSPEC, "check", "-", "/dev/stdin"],
            stdin=stdin,
            capture_output=True,
            timeout=60,
            check=False,
        )
    assert result.returncode == 0, result.stderr
    assert result.stdout.decode().splitlines() == [
        f"-: valid (1 tensor, {len(GOOD)} bytes)",
        f"/dev/stdin: valid (1 tensor, {len(GOOD)} bytes)",
    ]


@pytest.mark.skipif(shutil.which("bash") is None, reason="needs bash")
def test_process_substitution_is_a_pipe_read_to_its_end(good: Path) -> None:
    script = f'"$0" -m stspec check <(cat "{good}")'
    result = subprocess.run(
        ["bash", "-c", script, sys.executable],  # noqa: S607 - bash from PATH
        capture_output=True,
        timeout=60,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.decode().endswith(f": valid (1 tensor, {len(GOOD)} bytes)\n")


def test_a_fifo_with_a_writer_is_read(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)

    def write() -> None:
        with fifo.open("wb") as sink:
            sink.write(GOOD)

    writer = threading.Thread(target=write)
    writer.start()
    status, out, _ = run(capsys, "check", str(fifo))
    writer.join()
    assert (status, out) == (0, f"{fifo}: valid (1 tensor, {len(GOOD)} bytes)\n")


def test_a_fifo_nobody_writes_to_is_given_up_on(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    status, out, err = run(capsys, "check", "--wait", "0.2", str(fifo))
    assert (status, out) == (2, "")
    assert err == (
        f"stspec: cannot read {fifo}: no data arrived for 0.2 s "
        "(is anything writing to it?)\n"
    )


def test_a_stream_that_stalls_after_its_prefix_is_given_up_on(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    done = threading.Event()

    def write() -> None:
        with fifo.open("wb") as sink:
            sink.write(GOOD[:12])
            sink.flush()
            done.wait(10)

    writer = threading.Thread(target=write)
    writer.start()
    try:
        status, _, err = run(capsys, "check", "--wait", "0.3", str(fifo))
    finally:
        done.set()
        writer.join()
    assert status == 2
    assert "no data arrived for 0.3 s" in err


@pytest.mark.parametrize(
    ("path", "reason"),
    [
        ("/dev/zero", "not a regular file (a character device)"),
        ("/dev/urandom", "not a regular file (a character device)"),
        ("/dev/null", "not a regular file (a character device)"),
        (
            "/proc/self/mem",
            (
                "not a regular file: its size is 0 and reading it fails "
                "(Input/output error)"
            ),
        ),
        (
            "/proc/self/status",
            (
                "not a regular file: its size is 0 but it has content "
                "(a /proc or /sys file?)"
            ),
        ),
    ],
)
def test_devices_and_pseudo_files_are_not_regular_files(
    path: str, reason: str, capsys: pytest.CaptureFixture[str]
) -> None:
    if not os.path.exists(path):  # noqa: PTH110
        pytest.skip(f"{path} does not exist here")
    status, out, err = run(capsys, "check", path)
    assert (status, out, err) == (2, "", f"stspec: cannot read {path}: {reason}\n")


def test_an_empty_regular_file_is_still_a_file(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    empty = tmp_path / "empty.safetensors"
    empty.touch()
    status, out, _ = run(capsys, "check", str(empty))
    assert status == 1
    assert out.startswith(f"{empty}: FILE-PREFIX at byte 0: file is 0 bytes long")


def test_a_socket_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "sock"
    with socket.socket(socket.AF_UNIX) as server:
        server.bind(str(path))
        status, out, err = run(capsys, "check", str(path))
    assert (status, out) == (2, "")
    assert err.startswith(f"stspec: cannot read {path}: ")


def test_stdin_on_a_terminal_or_device_is_refused() -> None:
    with open(os.devnull, "rb") as devnull:  # noqa: PTH123
        result = subprocess.run(
            [*STSPEC, "check", "-"],
            stdin=devnull,
            capture_output=True,
            timeout=60,
            check=False,
        )
    assert result.returncode == 2
    assert result.stderr == (
        b"stspec: cannot read -: stdin is not a file or a pipe (a character device)\n"
    )


def test_a_regular_file_through_its_proc_path_is_copied_header_first(
    good: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    fd = os.open(good, os.O_RDONLY)
    try:
        for path in (f"/dev/fd/{fd}", f"/proc/self/fd/{fd}"):
            status, out, _ = run(capsys, "check", path)
            assert (status, out) == (
                0,
                f"{path}: valid (1 tensor, {len(GOOD)} bytes)\n",
            )
    finally:
        os.close(fd)


def test_a_proc_path_to_an_invalid_file_keeps_its_verdict(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    bad = tmp_path / "bad.safetensors"
    bad.write_bytes(GOOD + b"!")
    huge = tmp_path / "huge.safetensors"
    huge.write_bytes((MAX_HEADER_SIZE + 1).to_bytes(8, "little"))
    with bad.open("rb") as one, huge.open("rb") as two:
        paths = [f"/dev/fd/{one.fileno()}", f"/dev/fd/{two.fileno()}"]
        status, out, _ = run(capsys, "check", *paths)
    assert status == 1
    lines = out.splitlines()
    assert lines[0].startswith(f"{paths[0]}: LAYOUT-TRAILING at byte {len(GOOD)}")
    assert lines[1].startswith(f"{paths[1]}: HEADER-LIMIT at byte 0")


def test_an_empty_proc_path_is_refused_like_the_file(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # An empty file behind /dev/fd reads as empty: a genuine 0-byte file.
    empty = tmp_path / "empty"
    empty.touch()
    with empty.open("rb") as file:
        path = f"/dev/fd/{file.fileno()}"
        status, out, _ = run(capsys, "check", path)
    assert status == 1
    assert out.startswith(f"{path}: FILE-PREFIX at byte 0")


class _OnStdin:
    """Put a file descriptor on fd 0 for the length of a with block."""

    def __init__(self, fd: int) -> None:
        self.fd = fd
        self.saved = -1

    def __enter__(self) -> None:
        self.saved = os.dup(0)
        os.dup2(self.fd, 0)

    def __exit__(self, *_: object) -> None:
        os.dup2(self.saved, 0)
        os.close(self.saved)


def run_on_pipe(
    capsys: pytest.CaptureFixture[str], data: bytes, *argv: str
) -> tuple[int, str, str]:
    """Run the command in process with ``data`` on stdin, a pipe's read end."""
    read_end, write_end = os.pipe()
    os.write(write_end, data)
    os.close(write_end)
    try:
        with _OnStdin(read_end):
            return run(capsys, *argv)
    finally:
        os.close(read_end)


def test_dash_reads_a_pipe_in_process(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, _ = run_on_pipe(capsys, GOOD, "check", "-")
    assert (status, out) == (0, f"-: valid (1 tensor, {len(GOOD)} bytes)\n")


def test_dash_maps_a_regular_file_header_first(
    good: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    with good.open("rb") as file, _OnStdin(file.fileno()):
        status, out, _ = run(capsys, "check", "-")
    assert (status, out) == (0, f"-: valid (1 tensor, {len(GOOD)} bytes)\n")


def test_dash_refuses_a_device(capsys: pytest.CaptureFixture[str]) -> None:
    with open(os.devnull, "rb") as devnull, _OnStdin(devnull.fileno()):  # noqa: PTH123
        status, _, err = run(capsys, "check", "-")
    assert status == 2
    assert (
        err
        == "stspec: cannot read -: stdin is not a file or a pipe (a character device)\n"
    )


@pytest.mark.parametrize(
    ("data", "rule"),
    [
        pytest.param(GOOD[:5], "FILE-PREFIX", id="shorter-than-the-prefix"),
        pytest.param(
            (MAX_HEADER_SIZE + 1).to_bytes(8, "little") + b"rest",
            "HEADER-LIMIT",
            id="beyond-the-limit",
        ),
        pytest.param(GOOD[:20], "HEADER-BOUNDS", id="cut-inside-the-header"),
    ],
)
def test_a_pipe_path_is_read_in_process(
    data: bytes, rule: str, capsys: pytest.CaptureFixture[str]
) -> None:
    read_end, write_end = os.pipe()
    os.write(write_end, data)
    os.close(write_end)
    try:
        path = f"/dev/fd/{read_end}"
        status, out, _ = run(capsys, "check", path)
    finally:
        os.close(read_end)
    assert status == 1
    assert out.startswith(f"{path}: {rule} at byte 0")


def test_opening_judges_what_was_opened_and_never_blocks(tmp_path: Path) -> None:
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)  # no writer: a blocking open would wait for ever
    with pytest.raises(NotRegularFileError, match=r"^\[Errno \d+\] not a regular") as e:
        open_regular(str(fifo))
    assert (e.value.strerror, e.value.stream) == ("not a regular file (a FIFO)", True)
    with pytest.raises(NotRegularFileError) as e:
        open_regular(str(tmp_path))
    assert (e.value.errno, e.value.stream) == (errno.EISDIR, False)
    with pytest.raises(NotRegularFileError, match="size is 0 but it has content"):
        open_regular("/proc/self/status")
    empty = tmp_path / "empty"
    empty.write_bytes(b"")
    with regular_file(str(empty)) as fd:
        assert os.fstat(fd).st_size == 0
    with pytest.raises(FileNotFoundError):
        open_regular(str(tmp_path / "gone"))


def test_the_kinds_of_file_that_are_refused_are_named() -> None:
    assert kind(stat.S_IFBLK) == "a block device"
    assert kind(stat.S_IFCHR) == "a character device"


def test_inspect_refuses_devices_and_folders(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    status, out, err = run(capsys, "inspect", "/dev/zero")
    assert (status, out) == (2, "")
    assert (
        err
        == "stspec: cannot read /dev/zero: not a regular file (a character device)\n"
    )
    status, out, err = run(capsys, "inspect", str(tmp_path))
    assert (status, out) == (2, "")
    assert err == (
        f"stspec: cannot inspect {tmp_path}: it is a folder, inspect takes one file\n"
    )


def test_inspect_reads_a_pipe_on_stdin() -> None:
    result = stspec_with_stdin(GOOD, "inspect", "-")
    assert result.returncode == 0, result.stderr
    out = result.stdout.decode()
    assert out.startswith("-: 1 tensor")
    assert f"file length          {len(GOOD)}" in out


def test_inspect_gives_up_on_an_idle_stdin(tmp_path: Path) -> None:
    fifo = tmp_path / "idle"
    os.mkfifo(fifo)
    # A writer that holds the FIFO open and sends nothing: stdin is idle.
    holder = os.open(fifo, os.O_RDWR)
    try:
        with fifo.open("rb") as stdin:
            done = subprocess.run(
                [*STSPEC, "inspect", "--wait", "0.3", "-"],
                stdin=stdin,
                capture_output=True,
                text=True,
                timeout=60,
                check=False,
            )
    finally:
        os.close(holder)
    assert (done.returncode, done.stdout) == (2, "")
    assert done.stderr == (
        "stspec: cannot read -: no data arrived for 0.3 s "
        "(is anything writing to it?)\n"
    )


def test_inspect_refuses_a_fifo_or_pipe_by_name_at_once(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    fifo = tmp_path / "f.safetensors"
    os.mkfifo(fifo)  # nobody writes: a blocking open would wait for ever
    read_end, write_end = os.pipe()
    try:
        for path in (str(fifo), f"/dev/fd/{read_end}"):
            status, out, err = run(capsys, "inspect", path)
            assert (status, out) == (2, "")
            assert err == (
                f"stspec: cannot read {path}: not a regular file (a FIFO); to "
                "inspect what it sends, pipe it to `stspec inspect -`\n"
            )
    finally:
        os.close(read_end)
        os.close(write_end)


def test_inspect_reports_an_io_error_while_reading(
    good: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    def fail(*_: object, **__: object) -> None:
        raise PermissionError(13, "Permission denied")

    monkeypatch.setattr(_inspect, "read", fail)
    status, _, err = run(capsys, "inspect", str(good))
    assert status == 2
    assert err == f"stspec: cannot read {good}: Permission denied\n"


@pytest.mark.parametrize("wait", ["0", "-1", "nan", "inf", "1e9"])
def test_wait_must_be_a_sensible_number_of_seconds(
    wait: str, capsys: pytest.CaptureFixture[str]
) -> None:
    status, out, err = run(capsys, "check", "--wait", wait, "x")
    assert (status, out) == (2, "")
    assert f"expected 0 < seconds < 1e6, got {wait}" in err


def test_inspect_dash_reads_a_pipe_in_process(
    capsys: pytest.CaptureFixture[str],
) -> None:
    status, out, _ = run_on_pipe(capsys, GOOD, "inspect", "-")
    assert status == 0
    assert out.startswith("-: 1 tensor")
    assert f"file length          {len(GOOD)}" in out


def test_inspect_dash_refuses_a_device(capsys: pytest.CaptureFixture[str]) -> None:
    with open(os.devnull, "rb") as devnull, _OnStdin(devnull.fileno()):  # noqa: PTH123
        status, out, err = run(capsys, "inspect", "-")
    assert (status, out) == (2, "")
    assert err == (
        "stspec: cannot read -: stdin is not a file or a pipe (a character device)\n"
    )


def test_a_hash_of_a_stream_is_not_claimed(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, _ = run_on_pipe(capsys, GOOD, "check", "--hash", "-")
    assert status == 2  # valid, and its digest not computed
    assert out.splitlines()[1] == (
        "-: integrity not checked: a stream: its bytes were not kept"
    )


def test_whole_models_takes_no_index_beside_stdin(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    write_model(tmp_path)
    monkeypatch.chdir(tmp_path)  # "-" is in no folder, not in this one
    status, out, _ = run_on_pipe(capsys, GOOD, "check", "--whole-models", "-")
    assert (status, out) == (0, f"-: valid (1 tensor, {len(GOOD)} bytes)\n")


def test_whole_models_names_a_folder_it_cannot_list(
    good: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    listed = os.scandir

    def unlistable(path: str) -> Any:
        if path == str(good.parent):
            raise PermissionError(errno.EACCES, "Permission denied")
        return listed(path)

    # Permission bits do not stop root, who runs CI: the refusal is simulated.
    monkeypatch.setattr(os, "scandir", unlistable)
    status, out, err = run(capsys, "check", "--whole-models", str(good))
    assert status == 2
    assert out == f"{good}: valid (1 tensor, {len(GOOD)} bytes)\n"
    assert err == f"stspec: cannot read {good.parent}: Permission denied\n"
