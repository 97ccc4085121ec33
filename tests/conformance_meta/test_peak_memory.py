"""Memory is judged by the measured peak for commands and for small files too: a
buffer sized by a claim that RLIMIT_DATA cannot see (a shared mapping) is a
``resource`` failure, and correct readers of the same files are unaffected."""

from __future__ import annotations

import resource
import sys
from pathlib import Path
from typing import Any

import pytest
from _suite_runner import run_suite

from stspec_conformance.adapters.command import _Run

IMPLS = Path(__file__).resolve().parent / "impls"
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


def test_a_peak_no_higher_than_the_suites_own_is_not_the_childs() -> None:
    # A forked child starts with the suite's pages counted in its peak.
    own = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
    inherited = _Run(0, b"", b"", 0.0, 0.0, max_rss=own)
    assert inherited.own_peak() is None
    grown = _Run(0, b"", b"", 0.0, 0.0, max_rss=own + (512 << 20))
    assert grown.own_peak() == own + (512 << 20)
    assert _Run(0, b"", b"", 0.0, 0.0).own_peak() is None


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
