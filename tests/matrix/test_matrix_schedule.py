"""``python -m matrix --jobs N``: N rows at a time, longest first."""

import json
import signal
import subprocess
import sys
import threading
from pathlib import Path

import pytest
from matrix import __main__ as cli
from matrix import envs, runner, schedule
from matrix.impls import Impl, by_name

ROWS = ("djl", "jlama", "tinygrad", "hayward", "npm-safetensors")


def _record(results: Path, name: str, seconds: object) -> None:
    record = {"run": {"seconds": seconds, "complete": True}}
    (results / f"{name}.json").write_text(json.dumps(record))


def _recorded(results: Path) -> None:
    results.mkdir(exist_ok=True)
    _record(results, "djl", 937)
    _record(results, "jlama", 1242)
    _record(results, "tinygrad", 443)
    # hayward: no results file; npm-safetensors: a results file without seconds
    (results / "npm-safetensors.json").write_text(json.dumps({"setup_error": "x"}))


def test_longest_first_unknown_before_known(tmp_path: Path) -> None:
    _recorded(tmp_path)
    order = schedule.longest_first([by_name(n) for n in ROWS], tmp_path)
    assert [impl.name for impl in order] == [
        "hayward",
        "npm-safetensors",
        "jlama",
        "djl",
        "tinygrad",
    ]


def test_last_seconds_ignores_what_is_not_a_duration(tmp_path: Path) -> None:
    _record(tmp_path, "djl", "937")
    _record(tmp_path, "jlama", True)  # a bool is no duration
    assert schedule.last_seconds(by_name("djl"), tmp_path) is None
    assert schedule.last_seconds(by_name("jlama"), tmp_path) is None
    assert schedule.last_seconds(by_name("tinygrad"), tmp_path) is None


@pytest.fixture(autouse=True)
def _no_setup(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(envs, "setup", lambda _: None)


def _main(results: Path, *args: str) -> int:
    only = [arg for name in ROWS for arg in ("--only", name)]
    return cli.main(["run", *only, "--results", str(results), *args])


def test_jobs_run_rows_at_once_longest_first(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _recorded(tmp_path)
    started: list[str] = []
    running = 0
    most = 0
    lock = threading.Lock()
    # the first two rows only go on once both are running at the same time
    pair = threading.Barrier(2, timeout=60)

    def run(impl: Impl, results: Path, **_: object) -> Path:
        nonlocal running, most
        with lock:
            started.append(impl.name)
            first_two = len(started) <= 2
            running += 1
            most = max(most, running)
        if first_two:
            pair.wait()
        out = results / f"{impl.name}.json"
        out.write_text(json.dumps({"run": {"seconds": 1}}))
        with lock:
            running -= 1
        return out

    monkeypatch.setattr(runner, "run", run)
    assert _main(tmp_path, "-j", "2") == 0
    assert most == 2  # never more than --jobs
    assert set(started[:2]) == {"hayward", "npm-safetensors"}
    assert started[2:] == ["jlama", "djl", "tinygrad"]
    for name in ROWS:  # each row wrote its own results file
        assert json.loads((tmp_path / f"{name}.json").read_text()) == {
            "run": {"seconds": 1}
        }


def test_one_job_keeps_the_order_given(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _recorded(tmp_path)
    started: list[str] = []

    def run(impl: Impl, results: Path, **_: object) -> Path:
        started.append(impl.name)
        return results / f"{impl.name}.json"

    monkeypatch.setattr(runner, "run", run)
    assert _main(tmp_path) == 0
    assert started == list(ROWS)


@pytest.mark.parametrize("jobs", ["1", "3"])
def test_a_failing_row_is_reported_and_the_others_run(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    jobs: str,
) -> None:
    _recorded(tmp_path)
    done: list[str] = []

    def run(impl: Impl, results: Path, **_: object) -> Path:
        if impl.name in {"jlama", "hayward"}:
            msg = f"{impl.name} broke"
            raise OSError(msg)
        done.append(impl.name)
        return results / f"{impl.name}.json"

    monkeypatch.setattr(runner, "run", run)
    assert _main(tmp_path, "--jobs", jobs) == 1
    assert sorted(done) == ["djl", "npm-safetensors", "tinygrad"]
    err = capsys.readouterr().err
    assert "[matrix] run of jlama failed: OSError: jlama broke\n" in err
    assert "[matrix] run of hayward failed: OSError: hayward broke\n" in err
    summary = [
        line for line in err.splitlines() if line.startswith("[matrix] run failed")
    ]
    if jobs == "1":
        assert summary == ["[matrix] run failed: jlama, hayward"]
    else:
        assert summary == ["[matrix] run failed: hayward, jlama"]


def test_jobs_below_one_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit):
        _main(tmp_path, "-j", "0")
    assert "--jobs must be at least 1, not 0" in capsys.readouterr().err


def test_children_of_a_row_thread_take_sigint() -> None:
    """A background runner ignores SIGINT; the suite it starts must not.

    The time limit stops a row's pytest with SIGINT (it still writes its
    report); that holds for rows started in threads (--jobs) too.
    """
    before = signal.getsignal(signal.SIGINT)
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # as under `python -m matrix &`
    try:
        runner.pass_sigint()
        seen: list[str] = []
        probe = "import signal; print(signal.getsignal(signal.SIGINT).__name__)"
        row = threading.Thread(
            target=lambda: seen.append(
                subprocess.run(
                    [sys.executable, "-c", probe],
                    capture_output=True, text=True, check=True, timeout=60,
                ).stdout.strip()
            )
        )  # fmt: skip
        row.start()
        row.join()
    finally:
        signal.signal(signal.SIGINT, before)
    assert seen == ["default_int_handler"]
