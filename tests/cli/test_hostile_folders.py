"""Folders nobody here made: FIFOs, devices, unreadable and deep folders, dead workers.

Nothing inside a folder may hang the check, be judged as what it is not, or
be skipped in silence: whatever is not checked is named, and the exit
status is 2.
"""

from __future__ import annotations

import contextlib
import errno
import json
import multiprocessing
import os
import signal
import socket
import subprocess
import sys
from typing import TYPE_CHECKING, Any

import pytest

import stspec
from stspec.audit import check as _check
from stspec.audit import command as _command
from stspec.audit.inputs import gather

from .models import run

if TYPE_CHECKING:
    from collections.abc import Callable, Iterator
    from pathlib import Path

GOOD = stspec.serialize({"w": stspec.Tensor("U8", (3,), b"abc")})
BAD = GOOD + b"!"
STSPEC = [sys.executable, "-m", "stspec"]
# Generous: each of these finishes in well under a second when it works,
# and never finishes when it does not.
TIMEOUT = 60


def check_in_a_process(*argv: str) -> subprocess.CompletedProcess[str]:
    """Run ``stspec`` with a stdin that is an idle pipe: reading it would hang."""
    with subprocess.Popen(
        [*STSPEC, *argv],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    ) as process:
        try:
            out, err = process.communicate(timeout=TIMEOUT)
        except subprocess.TimeoutExpired:
            process.kill()
            process.communicate()
            pytest.fail(f"stspec {' '.join(argv)} hung for {TIMEOUT} s")
        return subprocess.CompletedProcess(process.args, process.returncode, out, err)


@pytest.mark.parametrize(
    "name", ["x.safetensors", "model.safetensors.index.json", "stdin.safetensors"]
)
def test_a_fifo_or_stdin_in_a_folder_is_refused_not_waited_on(
    name: str, tmp_path: Path
) -> None:
    fifo = tmp_path / name
    if name.startswith("stdin"):
        fifo.symlink_to("/dev/stdin")
    else:
        os.mkfifo(fifo)
    (tmp_path / "good.safetensors").write_bytes(GOOD)
    done = check_in_a_process("check", str(tmp_path))
    assert done.returncode == 2, done.stderr
    assert f"{tmp_path / 'good.safetensors'}: valid" in done.stdout
    # /dev/stdin is this process's idle pipe, which is a FIFO too.
    assert done.stderr == f"stspec: cannot read {fifo}: not a regular file (a FIFO)\n"


@contextlib.contextmanager
def _deadline(seconds: int) -> Iterator[None]:
    """Fail instead of hanging: SIGALRM interrupts a blocking open."""

    def expired(_signal: int, _frame: object) -> None:
        pytest.fail(f"still running after {seconds} s: a blocking open?")

    previous = signal.signal(signal.SIGALRM, expired)
    signal.alarm(seconds)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)


@pytest.mark.parametrize(
    ("name", "said"),
    [
        ("x.safetensors", "stspec: cannot read {path}: not a regular file (a FIFO)\n"),
        (
            "model.safetensors.index.json",
            (
                "{path}: SHARD-INDEX-JSON: cannot read the index: not a regular "
                "file (a FIFO)\n"
            ),
        ),
    ],
)
def test_a_name_that_becomes_a_fifo_after_the_listing_is_refused_at_once(
    name: str,
    said: str,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    path = tmp_path / name
    path.write_bytes(GOOD if name.endswith(".safetensors") else b'{"weight_map": {}}')
    (tmp_path / "good.safetensors").write_bytes(GOOD)
    real = gather

    def listed_then_swapped(*args: Any, **kwargs: Any) -> Any:
        found = real(*args, **kwargs)  # judged a regular file here
        fifo = tmp_path / "fifo.tmp"
        os.mkfifo(fifo)  # nobody ever writes to it
        fifo.replace(path)
        return found

    monkeypatch.setattr(_command, "gather", listed_then_swapped)
    with _deadline(TIMEOUT):
        status, out, err = run(capsys, "check", "-q", str(tmp_path))
    assert status == (2 if name.endswith(".safetensors") else 1)
    assert said.format(path=path) in out + err


def test_a_fifo_in_a_folder_is_in_the_json_report_in_its_place(tmp_path: Path) -> None:
    (tmp_path / "a.safetensors").write_bytes(GOOD)
    os.mkfifo(tmp_path / "b.safetensors")
    (tmp_path / "c.safetensors").write_bytes(GOOD)
    done = check_in_a_process("check", "--json", str(tmp_path))
    assert done.returncode == 2
    files = json.loads(done.stdout)["files"]
    assert [report["file"] for report in files] == [
        str(tmp_path / f"{name}.safetensors") for name in "abc"
    ]
    assert files[1] == {
        "file": str(tmp_path / "b.safetensors"),
        "valid": False,
        "error": "not a regular file (a FIFO)",
    }


@pytest.mark.parametrize(
    ("target", "reason"),
    [
        ("/dev/zero", "not a regular file (a character device)"),
        ("/dev/null", "not a regular file (a character device)"),
        (
            "/proc/self/environ",
            (
                "not a regular file: its size is 0 but it has content (a /proc or /sys "
                "file?)"
            ),
        ),
    ],
)
def test_a_symlink_to_a_device_or_proc_file_is_refused_not_judged(
    target: str, reason: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    link = tmp_path / "x.safetensors"
    link.symlink_to(target)
    status, out, err = run(capsys, "check", str(tmp_path))
    assert (status, out) == (2, "")
    assert err == f"stspec: cannot read {link}: {reason}\n"


def test_a_shard_that_is_a_device_is_refused_not_judged(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "a.safetensors").write_bytes(GOOD)
    (tmp_path / "b.safetensors").symlink_to("/dev/zero")
    index = tmp_path / "m.safetensors.index.json"
    index.write_text(
        json.dumps({"weight_map": {"w": "a.safetensors", "v": "b.safetensors"}}),
        encoding="utf-8",
    )
    status, out, err = run(capsys, "check", str(index))
    assert status == 2
    assert err == (
        f"stspec: cannot read {tmp_path / 'b.safetensors'}: not a regular file "
        "(a character device)\n"
    )
    assert out.splitlines()[-1] == (
        f"{index}: model invalid (1 invalid shard: b.safetensors)"
    )


def _scandir_refusing(monkeypatch: pytest.MonkeyPatch, refused: Path) -> None:
    real = os.scandir

    def scandir(path: str) -> object:
        if os.fspath(path) == str(refused):
            raise PermissionError(errno.EACCES, os.strerror(errno.EACCES), str(path))
        return real(path)

    monkeypatch.setattr(os, "scandir", scandir)


def test_an_unreadable_subfolder_is_named_and_exits_2(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    (tmp_path / "good.safetensors").write_bytes(GOOD)
    locked = tmp_path / "locked"
    locked.mkdir()
    (locked / "bad.safetensors").write_bytes(BAD)
    _scandir_refusing(monkeypatch, locked)
    status, out, err = run(capsys, "check", str(tmp_path))
    assert status == 2
    assert (
        out == f"{tmp_path / 'good.safetensors'}: valid (1 tensor, {len(GOOD)} bytes)\n"
    )
    assert err == f"stspec: cannot read {locked}: Permission denied\n"
    status, out, _ = run(capsys, "check", "--json", str(tmp_path))
    assert {"file": str(locked), "valid": False, "error": "Permission denied"} in (
        json.loads(out)["files"]
    )


@pytest.mark.skipif(os.geteuid() == 0, reason="root reads a mode-000 folder")
def test_a_mode_000_subfolder_is_named_and_exits_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:  # pragma: no cover - CI runs as root
    (tmp_path / "good.safetensors").write_bytes(GOOD)
    locked = tmp_path / "locked"
    locked.mkdir()
    (locked / "bad.safetensors").write_bytes(BAD)
    locked.chmod(0)
    try:
        status, _, err = run(capsys, "check", str(tmp_path))
    finally:
        locked.chmod(0o700)
    assert status == 2
    assert err == f"stspec: cannot read {locked}: Permission denied\n"


def _deep(top: Path, names: list[str], content: bytes) -> str:
    """Make folders ``names`` one in another under ``top``, through descriptors.

    Paths past PATH_MAX cannot be made by name; each level is made relative
    to the one above.  Returns the path of the file left at the bottom.
    """
    fd = os.open(top, os.O_RDONLY | os.O_DIRECTORY)
    try:
        for name in names:
            os.mkdir(name, dir_fd=fd)
            below = os.open(name, os.O_RDONLY | os.O_DIRECTORY, dir_fd=fd)
            os.close(fd)
            fd = below
        file = os.open("bad.safetensors", os.O_WRONLY | os.O_CREAT, 0o644, dir_fd=fd)
        os.write(file, content)
        os.close(file)
    finally:
        os.close(fd)
    return str(top.joinpath(*names, "bad.safetensors"))


def _remove_deep(top: Path, names: list[str]) -> None:
    """Remove what _deep made, bottom up (shutil.rmtree recurses, and would fail)."""
    fds = [os.open(top, os.O_RDONLY | os.O_DIRECTORY)]
    try:
        for name in names:
            fds.append(os.open(name, os.O_RDONLY | os.O_DIRECTORY, dir_fd=fds[-1]))
        os.unlink("bad.safetensors", dir_fd=fds[-1])
        for name, parent in zip(reversed(names), reversed(fds[:-1]), strict=True):
            os.rmdir(name, dir_fd=parent)
    finally:
        for fd in fds:
            os.close(fd)


def test_a_folder_1100_levels_deep_is_walked_without_recursion(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    names = ["d"] * 1100
    bottom = _deep(tmp_path, names, BAD)
    try:
        status, out, err = run(capsys, "check", str(tmp_path))
    finally:
        _remove_deep(tmp_path, names)
    assert (status, err) == (1, "")
    assert out.startswith(f"{bottom}: LAYOUT-TRAILING at byte {len(GOOD)}: ")


def test_files_past_path_max_are_named_not_skipped(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "good.safetensors").write_bytes(GOOD)
    names = ["f" * 200] * 25  # 5,000 characters: past Linux's PATH_MAX of 4,096
    _deep(tmp_path, names, BAD)
    status, out, err = run(capsys, "check", str(tmp_path))
    assert status == 2
    assert out.startswith(f"{tmp_path / 'good.safetensors'}: valid")
    (line,) = err.splitlines()
    assert line.startswith(f"stspec: cannot read {tmp_path}/{'f' * 200}/")
    assert line.endswith(": File name too long")


def _kill_a_worker(
    folder: Path, monkeypatch: pytest.MonkeyPatch, files: int = 80, at: int = 40
) -> str:
    """Fill ``folder`` with valid files; the worker checking file ``at`` is killed."""
    for number in range(files):
        (folder / f"f{number:02}.safetensors").write_bytes(GOOD)
    victim = str(folder / f"f{at:02}.safetensors")
    real = _check._check

    def killed_on_the_victim(task: _check.Task, fd: int) -> _check.FileResult:
        if task.path == victim:  # as the OOM killer would
            os.kill(os.getpid(), signal.SIGKILL)
        return real(task, fd)

    # Workers are forked from this process, so they check with the stand-in.
    monkeypatch.setattr(_check, "_check", killed_on_the_victim)
    return victim


def _unchecked(folder: Path, out: str) -> list[str]:
    """The files of ``folder`` that no line of ``out`` reports on."""
    checked = {line.split(": ")[0] for line in out.splitlines()}
    return sorted(str(p) for p in folder.iterdir() if str(p) not in checked)


_FORKED = pytest.mark.skipif(
    multiprocessing.get_start_method() != "fork",
    reason="the stand-in check reaches the workers through fork",
)


@_FORKED
def test_a_killed_worker_leaves_every_unchecked_file_named(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    victim = _kill_a_worker(tmp_path, monkeypatch)
    status, out, err = run(capsys, "check", "-j", "2", "--json", str(tmp_path))
    assert status == 2
    assert "Traceback" not in err
    files = json.loads(out)["files"]
    assert [report["file"] for report in files] == sorted(
        str(path) for path in tmp_path.iterdir()
    )
    unchecked = [report for report in files if "error" in report]
    assert {"file": victim, "valid": False} | {
        "error": unchecked[0]["error"]
    } in unchecked
    assert all(
        report["error"].startswith("not checked: a process checking files died")
        for report in unchecked
    )
    assert all(report["valid"] for report in files if "error" not in report)


@_FORKED
def test_a_killed_worker_costs_the_terminal_one_line_with_the_count(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # A big folder loses thousands of files with a worker: one line each
    # would bury the rest of the output.
    victim = _kill_a_worker(tmp_path, monkeypatch)
    status, out, err = run(capsys, "check", "-j", "2", str(tmp_path))
    assert status == 2
    assert all(
        line.endswith(": valid (1 tensor, 67 bytes)") for line in out.splitlines()
    )
    orphans = _unchecked(tmp_path, out)
    assert victim in orphans
    assert len(orphans) > 5  # at least the rest of the victim's chunk of 10
    (line,) = err.splitlines()
    assert line == (
        f"stspec: {len(orphans)} files not checked: a process checking files died "
        f"(killed by the OOM killer or a signal?): {', '.join(orphans[:5])}, ... "
        "(--json and --sarif name every one)"
    )


@_FORKED
def test_a_few_files_a_killed_worker_left_are_all_named(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # Four files on two workers: the pool runs, one file per hand-over.
    victim = _kill_a_worker(tmp_path, monkeypatch, files=4, at=3)
    status, out, err = run(capsys, "check", "-j", "2", str(tmp_path))
    assert status == 2
    orphans = _unchecked(tmp_path, out)
    assert victim in orphans
    assert len(orphans) <= 5
    (line,) = err.splitlines()
    many = "file" if len(orphans) == 1 else "files"
    assert line == (
        f"stspec: {len(orphans)} {many} not checked: a process checking files died "
        f"(killed by the OOM killer or a signal?): {', '.join(orphans)}"
    )


def _socket(path: Path) -> None:
    with socket.socket(socket.AF_UNIX) as listener:
        listener.bind(str(path))


@pytest.mark.parametrize(
    ("make", "kind"),
    [
        (os.mkfifo, "a FIFO"),
        (_socket, "a socket"),
        (lambda path: path.symlink_to(path.parent / "sub"), "a folder"),
    ],
)
def test_special_files_in_a_folder_are_refused_in_place(
    make: Callable[[Path], None],
    kind: str,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    # In this process: refused without being opened, nothing can block.
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "good.safetensors").write_bytes(GOOD)
    special = tmp_path / "x.safetensors"
    make(special)
    status, out, err = run(capsys, "check", str(tmp_path))
    assert status == 2
    assert out == (
        f"{tmp_path / 'sub' / 'good.safetensors'}: valid (1 tensor, {len(GOOD)} "
        "bytes)\n"
    )
    assert err == f"stspec: cannot read {special}: not a regular file ({kind})\n"
