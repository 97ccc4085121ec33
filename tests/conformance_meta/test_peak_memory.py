"""Memory is judged by the measured peak for commands and for small files too: a
buffer sized by a claim that RLIMIT_DATA cannot see (a shared mapping) is a
``resource`` failure, and correct readers of the same files are unaffected."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from _suite_runner import run_suite

from stspec_conformance.adapters._process import status_kib
from stspec_conformance.adapters.command import _Run

IMPLS = Path(__file__).resolve().parent / "impls"
ROOT = Path(__file__).resolve().parents[2]
# 10 bytes claiming a 4 GiB header; the other file claims 1,000 bytes.
CLAIMS = "(n_prefix_n_2pow32 and not plus_header) or n_prefix_n_1000_tiny_file"
HOSTILE = "test_must_reject[n_prefix_n_2pow32]"
MODEST = "test_must_reject[n_prefix_n_1000_tiny_file]"


@pytest.mark.parametrize(
    "impl",
    [
        str(IMPLS / "shared_claim.py"),
        (
            f"cmd:{sys.executable} {IMPLS / 'cmd_reader.py'} "
            "--on=n_prefix_n_2pow32.safetensors:shared"
        ),
    ],
    ids=["isolated", "command"],
)
def test_a_buffer_filled_from_a_claim_is_a_resource_failure(
    impl: str, tmp_path: Path
) -> None:
    run = run_suite(impl, "-k", CLAIMS, tmp_path=tmp_path)
    assert run.returncode == 1, run.output[-3000:]
    entry = run.test(HOSTILE)
    assert entry["result"] == "failed", entry
    assert entry["outcome"] == "resource", entry
    assert entry["message"].startswith("resource (resident): used "), entry
    assert entry["memory"] == "resident", entry
    assert "(peak) for a file of 10 bytes" in entry["message"], entry
    assert run.results[MODEST] == "passed", run.results
    assert run.report["summary"]["rules_violated"] == {}


def test_a_correct_command_passes_the_same_files(tmp_path: Path) -> None:
    run = run_suite(
        f"cmd:{sys.executable} {IMPLS / 'cmd_reader.py'}",
        "-k",
        CLAIMS,
        tmp_path=tmp_path,
    )
    assert run.returncode == 0, run.output[-3000:]
    assert run.results == {HOSTILE: "passed", MODEST: "passed"}


def test_a_kernel_mark_no_higher_than_the_suites_own_is_not_the_childs() -> None:
    # A forked child starts with the suite's pages counted in its mark.
    own = (status_kib(os.getpid(), "VmHWM") or 0) * 1024
    inherited = _Run(0, b"", b"", 0.0, 0.0, max_rss=own)
    assert inherited.own_peak() is None
    grown = _Run(0, b"", b"", 0.0, 0.0, max_rss=own + (512 << 20))
    assert grown.own_peak() == own + (512 << 20)
    assert _Run(0, b"", b"", 0.0, 0.0).own_peak() is None


def test_a_sampled_peak_counts_however_large_the_suite_is() -> None:
    # samples are taken after exec: only the program's own pages are in them
    own = (status_kib(os.getpid(), "VmHWM") or 0) * 1024
    run = _Run(0, b"", b"", 0.0, 0.0, max_rss=own, sampled_rss=own // 2)
    assert run.own_peak() == own // 2


def test_an_allocator_that_refuses_with_an_ordinary_error_is_a_resource_failure(
    tmp_path: Path,
) -> None:
    # torch says RuntimeError("... can't allocate memory ..."), not MemoryError.
    run = run_suite(
        str(IMPLS / "allocator_refusal.py"), "-k", CLAIMS, tmp_path=tmp_path
    )
    assert run.returncode == 1, run.output[-3000:]
    entry = run.test(HOSTILE)
    assert entry["outcome"] == "resource", entry
    assert "an allocation failed under the memory allowance" in entry["message"], entry
    assert run.results[MODEST] == "passed", run.results


def _hostile_entry(action: str, tmp_path: Path) -> dict[str, Any]:
    """The 4 GiB claim's entry when the command does ACTION on it.

    The run fails, and the modest claim beside it still passes.
    """
    run = run_suite(
        f"cmd:{sys.executable} {IMPLS / 'cmd_reader.py'} "
        f"--on=n_prefix_n_2pow32.safetensors:{action}",
        "-k",
        CLAIMS,
        tmp_path=tmp_path,
    )
    assert run.returncode == 1, run.output[-3000:]
    assert run.results[MODEST] == "passed", run.results
    return run.test(HOSTILE)


def test_a_crash_after_a_large_buffer_is_a_crash_that_names_the_excess(
    tmp_path: Path,
) -> None:
    # An IndexError is not an allocation failure: an exception just over the
    # allowance is reported as the exception it is, with the memory it took.
    entry = _hostile_entry("shared-then-crash", tmp_path)
    assert entry["outcome"] == "exception", entry
    assert entry["message"].startswith("exception on n_prefix_n_2pow32 (it used "), (
        entry
    )
    assert "): exception (IndexError)" in entry["message"], entry
    assert "(peak) for a file of 10 bytes" in entry["message"], entry


def test_an_allocation_failure_after_a_large_buffer_is_a_resource_failure(
    tmp_path: Path,
) -> None:
    # The same peak, but the program dies saying an allocation failed (Rust's
    # words, then abort): that is running out of memory, not a crash.
    entry = _hostile_entry("shared-then-oom", tmp_path)
    assert entry["outcome"] == "resource", entry
    assert "memory allocation of 4294967296 bytes failed" in entry["message"], entry


# A reader whose helper process fills 300 MiB of shared memory (RLIMIT_DATA
# does not count it) for half a second and ends unwaited (SIGCHLD ignored: its
# usage reaches no wait4) before the reader answers.
HELPER_FILLS = """
import json, mmap, os, signal, sys, time
if sys.argv[-1] == "--describe":
    print(json.dumps({"protocol": 2, "name": "helper", "version": "1"}))
    sys.exit(0)
if b'"weight"' in open(sys.argv[-1], "rb").read():  # the runtime's own peak
    print(json.dumps({"result": "rejected"}))
    sys.exit(1)
signal.signal(signal.SIGCHLD, signal.SIG_IGN)
done, told = os.pipe()
if os.fork() == 0:
    os.close(done)
    shared = mmap.mmap(-1, 300 << 20)
    for page in range(0, len(shared), mmap.PAGESIZE):
        shared[page] = 1
    time.sleep(0.5)
    os._exit(0)  # closes told: the reader goes on
os.close(told)
os.read(done, 1)
time.sleep(0.5)  # its exit completes
print(json.dumps({"result": "rejected", "rule": "LAYOUT-HOLE"}))
sys.exit(1)
"""


# Loads FILE with the command adapter and prints the peak it measured.  A
# small process of its own: a child starts with the suite's pages in its peak,
# so a large xdist worker's runtime peak would hide a few hundred MiB.
DRIVER = """
import sys
from stspec_conformance.adapters.command import CommandAdapter
adapter = CommandAdapter([sys.executable, sys.argv[1]], memory_limit=None)
assert not adapter.describe_error, adapter.describe_error
outcome = adapter.attempt_load(sys.argv[2], timeout=30)
print(outcome.status, outcome.peak_memory)
"""


# Touches 400 MiB, frees it, then runs the driver and passes on its output.
BIG_PARENT = """
import subprocess, sys
block = bytearray(400 << 20)
for page in range(0, len(block), 4096):
    block[page] = 1
del block
done = subprocess.run([sys.executable, "-c", *sys.argv[1:]], check=False)
sys.exit(done.returncode)
"""


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="procfs: Linux")
def test_a_helper_process_is_in_the_sampled_peak(tmp_path: Path) -> None:
    # what the program's own wait4 usage and peak mark cannot show: only the
    # samples of the tree below it, taken every SAMPLE_SECONDS
    # started by a process whose peak was far above the helper's: the
    # driver's ru_maxrss holds that peak (Linux folds it in at exec), as it
    # holds a large xdist worker's
    status, peak, said = _driven(tmp_path, HELPER_FILLS, big_parent=True)
    assert status == "rejected", said
    # 300 MiB filled; unsampled, the peak is about zero
    assert int(peak) >= 250 << 20, said


def _driven(
    tmp_path: Path, program_text: str, *, big_parent: bool = False
) -> tuple[str, str, str]:
    """Load a file with ``program_text`` through DRIVER: status, peak, output."""
    program = tmp_path / "program.py"
    program.write_text(program_text, encoding="utf-8")
    path = ROOT / "corpus" / "files" / "n_layout_hole_between_tensors.safetensors"
    parent = [BIG_PARENT] if big_parent else []
    done = subprocess.run(
        [sys.executable, "-c", *parent, DRIVER, str(program), str(path)],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    status, peak = done.stdout.split()
    return status, peak, done.stdout


# The first helper waits while 200 children exit at once and stay unreaped
# (zombies), then fills 300 MiB: more processes than a sample would read if
# zombies counted, the helper found last if the newest came first.  It
# resets its peak mark before it exits: only the samples can see it.
WIDE_TREE = """
import json, mmap, os, sys, time
if sys.argv[-1] == "--describe":
    print(json.dumps({"protocol": 2, "name": "wide", "version": "1"}))
    sys.exit(0)
if b'"weight"' in open(sys.argv[-1], "rb").read():  # the runtime's own peak
    print(json.dumps({"result": "rejected"}))
    sys.exit(1)
go, told = os.pipe()
filler = os.fork()
if filler == 0:
    os.close(told)
    os.read(go, 1)
    shared = mmap.mmap(-1, 300 << 20)
    for page in range(0, len(shared), mmap.PAGESIZE):
        shared[page] = 1
    time.sleep(1.5)
    shared.close()
    with open("/proc/self/clear_refs", "w") as refs:  # its peak mark reset
        refs.write("5")
    os._exit(0)
os.close(go)
for _ in range(200):
    if os.fork() == 0:
        os._exit(0)
os.write(told, b"x")
os.waitpid(filler, 0)
print(json.dumps({"result": "rejected", "rule": "LAYOUT-HOLE"}))
sys.exit(1)
"""


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="procfs: Linux")
def test_a_helper_among_many_exited_processes_is_in_the_sampled_peak(
    tmp_path: Path,
) -> None:
    status, peak, said = _driven(tmp_path, WIDE_TREE)
    assert status == "rejected", said
    assert int(peak) >= 250 << 20, said
