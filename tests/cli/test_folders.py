"""Folders: what is found in them, what is skipped, parallel runs, progress."""

from __future__ import annotations

import concurrent.futures
import io
import json
import os
import signal
import subprocess
import sys
import time
from typing import TYPE_CHECKING, ClassVar

import pytest

import stspec
from stspec.audit import check as _check
from stspec.audit import command as _command
from stspec.audit.check import FileResult, Progress, Task, check_file, check_files
from stspec.reader import pipeline as _pipeline

from .models import INDEX, SHARDS, run, write_model

if TYPE_CHECKING:
    from collections.abc import Callable, Iterable, Iterator
    from pathlib import Path

GOOD = stspec.serialize({"w": stspec.Tensor("U8", (3,), b"abc")})


def test_a_model_folder_with_extra_files(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = write_model(tmp_path / "model")
    (folder / "config.json").write_text('{"architectures": []}', encoding="utf-8")
    (folder / "tokenizer.json").write_text("{}", encoding="utf-8")
    (folder / "pytorch_model.bin").write_bytes(b"PK\x03\x04" + bytes(60))
    (folder / "stray.safetensors").write_bytes(
        b"PK\x03\x04\x14\x00\x00\x00" + bytes(60)
    )
    status, out, err = run(capsys, "check", str(folder))
    assert (status, err) == (1, "")
    lines = out.splitlines()
    assert lines[0].startswith(f"{folder / min(SHARDS)}: valid")
    assert lines[2].startswith(
        f"{folder / 'stray.safetensors'}: HEADER-LIMIT at byte 0: not a safetensors "
        "file, it looks like a ZIP archive"
    )
    assert (
        lines[3]
        == f"{folder / INDEX}: model valid (2 shards, 3 tensors, 11 parameters)"
    )
    assert lines[4] == (
        f"{folder}: 3 other files not checked "
        "(config.json, pytorch_model.bin, tokenizer.json)"
    )
    _, out, _ = run(capsys, "check", "--json", str(folder))
    assert json.loads(out)["skipped"] == {
        str(folder): ["config.json", "pytorch_model.bin", "tokenizer.json"]
    }


@pytest.fixture
def with_weights(tmp_path: Path) -> Path:
    """A valid model beside weights in three other formats and two other files."""
    folder = write_model(tmp_path / "model")
    (folder / "pytorch_model.bin").write_bytes(b"\x80\x02}q\x00." + bytes(60))
    (folder / "model.pt").write_bytes(b"PK\x03\x04" + bytes(60))
    (folder / "model.gguf").write_bytes(b"GGUF\x03\x00\x00\x00" + bytes(60))
    (folder / "config.json").write_text("{}", encoding="utf-8")
    # A name that says weights, bytes that do not: judged by its bytes.
    (folder / "notes.bin").write_text("plain text", encoding="utf-8")
    return folder


def test_quiet_still_names_unchecked_files_that_look_like_weights(
    with_weights: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    status, out, err = run(capsys, "check", "-q", str(with_weights))
    assert (status, err) == (0, "")
    assert out == (
        f"{with_weights}: not checked, 3 files that look like model weights: "
        "model.gguf (gguf), model.pt (zip), pytorch_model.bin (pickle)\n"
    )
    status, out, _ = run(capsys, "check", str(with_weights))
    assert status == 0
    assert out.splitlines()[-2:] == [
        (
            f"{with_weights}: 5 other files not checked (config.json, model.gguf, "
            "model.pt, notes.bin, pytorch_model.bin)"
        ),
        (
            f"{with_weights}: not checked, 3 files that look like model weights: "
            "model.gguf (gguf), model.pt (zip), pytorch_model.bin (pickle)"
        ),
    ]


def test_unchecked_weights_can_fail_the_check(
    with_weights: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    status, out, _ = run(
        capsys, "check", "-q", "--fail-unchecked-weights", str(with_weights)
    )
    assert status == 1
    assert "3 files that look like model weights" in out
    (with_weights / "pytorch_model.bin").unlink()
    (with_weights / "model.pt").unlink()
    (with_weights / "model.gguf").unlink()
    status, out, _ = run(
        capsys, "check", "-q", "--fail-unchecked-weights", str(with_weights)
    )
    assert (status, out) == (0, "")


def test_unchecked_weights_in_json_and_sarif(
    with_weights: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    log = tmp_path / "out.sarif"
    status, out, _ = run(
        capsys, "check", "--json", "--sarif", str(log), str(with_weights)
    )
    assert status == 0
    assert json.loads(out)["unchecked_weights"] == {
        str(with_weights): [
            {"file": "model.gguf", "format": "gguf"},
            {"file": "model.pt", "format": "zip"},
            {"file": "pytorch_model.bin", "format": "pickle"},
        ]
    }
    (invocation,) = json.loads(log.read_text(encoding="utf-8"))["runs"][0][
        "invocations"
    ]
    assert invocation["executionSuccessful"] is True
    notes = invocation["toolExecutionNotifications"]
    assert [note["level"] for note in notes] == ["warning"] * 3
    assert notes[2]["message"]["text"].startswith(
        f"not checked: {with_weights / 'pytorch_model.bin'} looks like a Python pickle"
    )


def test_a_weights_file_that_is_a_fifo_is_not_waited_on(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "good.safetensors").write_bytes(GOOD)
    os.mkfifo(tmp_path / "pytorch_model.bin")
    status, out, _ = run(capsys, "check", "-q", str(tmp_path))
    assert (status, out) == (0, "")


def test_folders_are_searched_recursively_in_name_order(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    for name in [
        "b/z.safetensors",
        "b/a.safetensors",
        "a/deep/x.safetensors",
        "c.safetensors",
    ]:
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_bytes(GOOD)
    others = [f"notes{n}.txt" for n in range(7)]
    for name in others:
        (tmp_path / name).write_text("x", encoding="utf-8")
    status, out, _ = run(capsys, "check", str(tmp_path))
    assert status == 0
    assert [line.split(":")[0] for line in out.splitlines()] == [
        str(tmp_path / "c.safetensors"),
        str(tmp_path / "a/deep/x.safetensors"),
        str(tmp_path / "b/a.safetensors"),
        str(tmp_path / "b/z.safetensors"),
        str(tmp_path),
    ]
    assert out.splitlines()[-1].endswith(
        "7 other files not checked (notes0.txt, notes1.txt, notes2.txt, "
        "notes3.txt, notes4.txt, ...)"
    )


def test_a_file_named_twice_is_checked_once(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "a.safetensors"
    path.write_bytes(GOOD)
    _, out, _ = run(capsys, "check", str(path), str(tmp_path), str(path))
    assert out == f"{path}: valid (1 tensor, {len(GOOD)} bytes)\n"


def test_a_folder_with_nothing_to_check_is_an_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "config.json").write_text("{}", encoding="utf-8")
    status, out, err = run(capsys, "check", str(tmp_path))
    assert (status, out) == (2, "")
    assert err == (
        f"stspec: cannot read {tmp_path}: no .safetensors or index files in "
        f"folder {str(tmp_path)!r}\n"
    )


def test_an_unreadable_file_in_a_folder_does_not_stop_the_rest(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "a.safetensors").symlink_to(tmp_path / "gone")
    (tmp_path / "b.safetensors").write_bytes(GOOD)
    status, out, err = run(capsys, "check", "--json", str(tmp_path))
    reports = json.loads(out)["files"]
    assert status == 2
    assert reports[0] == {
        "file": str(tmp_path / "a.safetensors"),
        "valid": False,
        "error": "No such file or directory",
    }
    assert reports[1]["valid"] is True
    assert err == ""


def _many(tmp_path: Path, count: int) -> list[str]:
    paths = []
    for number in range(count):
        path = tmp_path / f"f{number:03}.safetensors"
        path.write_bytes(GOOD if number % 10 else GOOD + b"!")
        paths.append(str(path))
    return paths


def test_many_files_across_processes_give_what_one_process_gives(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _many(tmp_path, 70)
    serial = run(capsys, "check", "-j", "1", "--json", str(tmp_path))
    parallel = run(capsys, "check", "-j", "2", "--json", str(tmp_path))
    assert parallel == serial
    assert serial[0] == 1
    assert sum(not report["valid"] for report in json.loads(serial[1])["files"]) == 7


def test_a_small_run_stays_in_one_process(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def no_pool(*_: object, **__: object) -> None:
        raise AssertionError("a pool for a few files")

    monkeypatch.setattr(concurrent.futures, "ProcessPoolExecutor", no_pool)
    tasks = [
        Task(path, path, every=False, holdings=False) for path in _many(tmp_path, 5)
    ]
    assert len(list(check_files(tasks, jobs=4))) == 5


def test_jobs_must_be_positive(capsys: pytest.CaptureFixture[str]) -> None:
    status, _, err = run(capsys, "check", "-j", "0", "x")
    assert status == 2
    assert "expected at least 1, got 0" in err


def test_the_default_is_one_process_per_available_cpu() -> None:
    assert _check.default_jobs() == len(os.sched_getaffinity(0))


class _InlinePool:
    """A stand-in for ProcessPoolExecutor that records its use and maps in place."""

    made: ClassVar[list[int]] = []
    shutdowns: ClassVar[list[tuple[bool, bool]]] = []

    def __init__(
        self, max_workers: int, initializer: Callable[[], None] | None = None
    ) -> None:
        assert initializer is _check._leave_ctrl_c
        self.made.append(max_workers)

    def map(
        self,
        function: Callable[[Task], FileResult],
        items: Iterable[Task],
        chunksize: int,
    ) -> Iterator[FileResult]:
        assert chunksize >= 1
        return map(function, items)

    def shutdown(self, wait: bool = True, *, cancel_futures: bool = False) -> None:
        self.shutdowns.append((wait, cancel_futures))


@pytest.mark.parametrize(("files", "pools"), [(63, []), (64, [3])])
def test_by_default_a_pool_starts_from_64_files(
    files: int,
    pools: list[int],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    monkeypatch.setattr(concurrent.futures, "ProcessPoolExecutor", _InlinePool)
    monkeypatch.setattr(_check, "default_jobs", lambda: 3)
    monkeypatch.setattr(_InlinePool, "made", [])
    monkeypatch.setattr(_InlinePool, "shutdowns", [])
    _many(tmp_path, files)
    status, _, _ = run(capsys, "check", "-q", str(tmp_path))
    assert status == 1
    assert _InlinePool.made == pools
    assert _InlinePool.shutdowns == [(True, False)] * len(pools)


def test_a_run_stopped_early_drops_the_queued_files(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(concurrent.futures, "ProcessPoolExecutor", _InlinePool)
    monkeypatch.setattr(_InlinePool, "shutdowns", [])
    tasks = [
        Task(path, path, every=False, holdings=False) for path in _many(tmp_path, 8)
    ]
    results = check_files(tasks, jobs=2)
    next(results)
    results.close()  # what Ctrl-C in the consumer amounts to
    assert _InlinePool.shutdowns == [(False, True)]


def test_workers_leave_ctrl_c_to_the_parent() -> None:
    before = signal.getsignal(signal.SIGINT)
    try:
        _check._leave_ctrl_c()
        assert signal.getsignal(signal.SIGINT) is signal.SIG_IGN
    finally:
        signal.signal(signal.SIGINT, before)


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_progress_appears_on_a_terminal_for_a_long_run(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    clock = iter([0.0, 0.2, 0.7, 0.75, 0.9, 1.0])
    monkeypatch.setattr(time, "monotonic", lambda: next(clock))
    terminal = _Terminal()
    meter = Progress(terminal, 5)
    result = FileResult("x", "valid")
    for _ in range(4):
        assert meter.tick(result) is result
    # t=0.2: too early; t=0.7: shown; t=0.75: too soon after; t=0.9: shown
    assert terminal.getvalue() == "\rchecked 2/5 files\rchecked 4/5 files"
    meter.tick(result)  # the last file: nothing left to count
    meter.clear()
    meter.clear()
    assert terminal.getvalue().endswith("files\r\x1b[K")


def test_no_progress_when_not_a_terminal() -> None:
    stream = io.StringIO()
    meter = Progress(stream, 3)
    meter.start -= 10
    meter.tick(FileResult("x", "valid"))
    meter.clear()
    assert stream.getvalue() == ""


def test_the_command_is_quiet_on_stderr_when_not_a_terminal(tmp_path: Path) -> None:
    _many(tmp_path, 3)
    result = subprocess.run(
        [sys.executable, "-m", "stspec", "check", "-q", str(tmp_path)],
        capture_output=True,
        timeout=60,
        check=False,
    )
    assert result.returncode == 1
    assert result.stderr == b""


def test_check_file_reports_io_errors_as_unreadable(tmp_path: Path) -> None:
    result = check_file(
        Task(str(tmp_path / "nope"), "nope", every=True, holdings=False)
    )
    assert (result.verdict, result.reason) == (
        "unreadable",
        "No such file or directory",
    )


def test_first_violation_only_is_rejected_without_a_verdict(tmp_path: Path) -> None:
    path = tmp_path / "bad.safetensors"
    path.write_bytes(GOOD + b"!")
    result = check_file(Task(str(path), "bad", every=False, holdings=False))
    assert result.verdict == "rejected"
    assert [error.rule for error in result.errors] == ["LAYOUT-TRAILING"]


class _Capped(list[stspec.SafetensorsError]):
    omitted = {"DTYPE-NAME": 41}  # noqa: RUF012 - a stand-in for Violations


def test_violations_beyond_the_readers_cap_are_counted(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "bad.safetensors"
    path.write_bytes(GOOD + b"!")
    (error,) = stspec.validate(path)
    # (check.py imports validate where it calls it)
    monkeypatch.setattr(_pipeline, "validate", lambda *_, **__: _Capped([error]))
    status, out, _ = run(capsys, "check", "--all", str(path))
    assert status == 1
    assert out.splitlines()[-1] == f"{path}: DTYPE-NAME: 41 more not shown"
    _, out, _ = run(
        capsys, "check", "--json", "--sarif", str(tmp_path / "s"), str(path)
    )
    assert json.loads(out)["files"][0]["omitted"] == {"DTYPE-NAME": 41}
    log = json.loads((tmp_path / "s").read_text(encoding="utf-8"))
    assert log["runs"][0]["properties"] == {
        "omittedResults": {str(path): {"DTYPE-NAME": 41}}
    }


def test_a_hub_cache_snapshot_of_symlinks_is_checked(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # huggingface_hub's cache: snapshots/<revision>/<name> -> ../../blobs/<hash>
    model = write_model(tmp_path / "made")
    blobs = tmp_path / "hub" / "blobs"
    snapshot = tmp_path / "hub" / "snapshots" / "0123abc"
    blobs.mkdir(parents=True)
    snapshot.mkdir(parents=True)
    for number, path in enumerate(sorted(model.iterdir())):
        path.rename(blobs / f"blob{number}")
        (snapshot / path.name).symlink_to(f"../../blobs/blob{number}")
    status, out, _ = run(capsys, "check", str(tmp_path / "hub"))
    assert status == 0
    # The blobs have no suffix: found through the snapshot's links only.
    assert out.splitlines()[-2:] == [
        f"{snapshot / INDEX}: model valid (2 shards, 3 tensors, 11 parameters)",
        (
            f"{tmp_path / 'hub'}: 3 other files not checked "
            "(blobs/blob0, blobs/blob1, blobs/blob2)"
        ),
    ]


def test_ctrl_c_ends_a_run_without_a_traceback(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    def interrupted(*_: object, **__: object) -> None:
        raise KeyboardInterrupt

    monkeypatch.setattr(_command, "audit", interrupted)
    status, out, err = run(capsys, "check", str(tmp_path))
    assert (status, out, err) == (130, "", "stspec: interrupted\n")
