"""matrix.crash_line: a crash is quoted by its panic, not by stderr's last line."""

import subprocess
from typing import Final

import pytest
from matrix import findings, probe
from matrix.crash_line import crash_line, is_hint, native_crash, observed_crash
from matrix.scrub import scrub

_REGISTRY: Final = "/root/.cargo/registry/src/index.crates.io-1949cf8c6b5b557f"
# Rust >= 1.73 (1.88 and later add the thread's id), with RUST_BACKTRACE=1
_RUST_BACKTRACE: Final = (
    "\nthread 'main' (28486) panicked at "
    f"{_REGISTRY}/safetensors-0.2.8/src/tensor.rs:175:33:\n"
    "range end index 4 out of range for slice of length 0\n"
    "stack backtrace:\n"
    "   0: __rustc::rust_begin_unwind\n"
    "   1: core::slice::index::slice_index_fail\n"
    "   2: safetensors::tensor::SafeTensors::tensors\n"
    "note: Some details are omitted, run with `RUST_BACKTRACE=full` for a verbose"
    " backtrace.\n"
)
# Rust >= 1.73 without a backtrace, from a thread with no name
_RUST_PLAIN: Final = (
    "thread '<unnamed>' panicked at src/serialization/safetensors_reader.rs:33:31:\n"
    "slice index starts at 8 but ends at 7\n"
    "note: run with `RUST_BACKTRACE=1` environment variable to display a backtrace\n"
)
# Rust before 1.73: message and place on one line
_RUST_OLD: Final = (
    "thread 'main' panicked at 'range end index 4 out of range for slice of length"
    " 0', src/tensor.rs:175:33\n"
    "note: run with `RUST_BACKTRACE=1` environment variable to display a backtrace\n"
)
_GO_PANIC: Final = (
    "panic: runtime error: slice bounds out of range [-16:]\n\n"
    "goroutine 1 [running]:\n"
    "github.com/gomlx/go-huggingface/models/safetensors.(*Header).Tensor(...)\n"
    "\t/root/go/pkg/mod/github.com/gomlx/x/safetensors.go:88 +0x1d\n"
    "main.main()\n\t/work/mx/x/src/main.go:30 +0x1d\n"
)
_GO_OOM: Final = (
    "fatal error: runtime: out of memory\n\n"
    "runtime stack:\nruntime.throw({0x5, 0x1})\n\truntime/panic.go:1101 +0x48\n"
)
# a pyo3 panic: Rust's message first, then the Python exception it became
_PYO3: Final = (
    "thread '<unnamed>' panicked at src/lib.rs:10:5:\nslice index starts at 8\n"
    "note: run with `RUST_BACKTRACE=1` environment variable to display a backtrace\n"
    'Traceback (most recent call last):\n  File "open.py", line 3, in <module>\n'
    "pyo3_runtime.PanicException: slice index starts at 8\n"
)


@pytest.mark.parametrize(
    ("stderr", "quoted"),
    [
        (
            _RUST_BACKTRACE,
            (
                f"panicked at {_REGISTRY}/safetensors-0.2.8/src/tensor.rs:175:33: "
                "range end index 4 out of range for slice of length 0"
            ),
        ),
        (
            _RUST_PLAIN,
            (
                "panicked at src/serialization/safetensors_reader.rs:33:31: "
                "slice index starts at 8 but ends at 7"
            ),
        ),
        (
            _RUST_OLD,
            (
                "panicked at 'range end index 4 out of range for slice of length 0',"
                " src/tensor.rs:175:33"
            ),
        ),
        (_GO_PANIC, "panic: runtime error: slice bounds out of range [-16:]"),
        (_GO_OOM, "fatal error: runtime: out of memory"),
        # a Python traceback ends with what was raised, a pyo3 panic's too
        (_PYO3, "pyo3_runtime.PanicException: slice index starts at 8"),
        ("Traceback (most recent call last):\n  x\nKeyError: 'F4'\n", "KeyError: 'F4'"),
        # an abort without a panic (Rust: "memory allocation of N bytes failed")
        ("alloc of 16 bytes failed\n", "alloc of 16 bytes failed"),
        ("read failed\nnote: run with `RUST_BACKTRACE=1` environment variable\n",
         "read failed"),
        ("", ""),
    ],
)  # fmt: skip
def test_a_crash_is_quoted_by_the_line_that_says_why(stderr: str, quoted: str) -> None:
    assert crash_line(stderr) == quoted


def test_the_quote_of_a_panic_is_the_same_on_every_run() -> None:
    """A thread's id is the process's: left out, so results do not churn."""
    other = _RUST_BACKTRACE.replace("(28486)", "(17711)")
    assert crash_line(other) == crash_line(_RUST_BACKTRACE)
    assert "28486" not in crash_line(_RUST_BACKTRACE)


def test_the_hint_and_the_frames_are_never_a_native_crash() -> None:
    assert is_hint("note: run with `RUST_BACKTRACE=1` environment variable")
    assert not is_hint("note: the header is 8 bytes")
    assert native_crash("error: bad header\n  at main.rs:3\n") == ""
    # an empty panic message does not take the hint as the message
    empty = "thread 'main' panicked at src/main.rs:2:5:\n" + _RUST_PLAIN.splitlines()[2]
    assert native_crash(empty) == "panicked at src/main.rs:2:5:"


def test_a_panic_in_cargos_registry_keeps_its_crate_and_version() -> None:
    said = scrub(crash_line(_RUST_BACKTRACE))
    assert said == (
        "panicked at safetensors-0.2.8/src/tensor.rs:175:33: "
        "range end index 4 out of range for slice of length 0"
    )
    # any other absolute path is still cut to the file's name
    assert scrub("at /work/mx/x/src/main.go:30") == "at main.go:30"


def test_the_probe_quotes_a_commands_panic() -> None:
    """What a cmd: program's probe answer records of its crash."""
    for stderr, said in (
        (_RUST_BACKTRACE, "panicked at safetensors-0.2.8/src/tensor.rs:175:33: range"),
        (_GO_PANIC, "panic: runtime error: slice bounds out of range [-16:]"),
    ):
        done = subprocess.CompletedProcess(["stcli"], 101, "", stderr)
        answer = probe._cmd_answer("n_x.safetensors", done)
        assert answer["result"] == "crashed"
        assert answer["error"].startswith(f"exit status 101: {said}")
        assert "RUST_BACKTRACE" not in answer["error"]


# what the suite records of a Rust panic: the hint, then stderr's start, cut
_SUITE: Final = (
    "crashed (exit status 101): exit status 101; last stderr line: note: Some details"
    " are omitted, run with `RUST_BACKTRACE=full` for a verbose backtrace.; stderr: "
    "thread 'main' (17735) panicked at safe..."
)


def test_a_findings_report_quotes_the_panic_the_probe_kept() -> None:
    probed = "exit status 101: panicked at tensor.rs:175:33: range end index 4 \\1"
    assert observed_crash(_SUITE, probed) == (
        "crashed (exit status 101): exit status 101; it printed: "
        "panicked at tensor.rs:175:33: range end index 4 \\1"
    )
    # a probe that kept only the hint: the hint goes, the rest stays
    hint = "exit status 101: " + _RUST_BACKTRACE.splitlines()[-1]
    assert observed_crash(_SUITE, hint) == (
        "crashed (exit status 101): exit status 101; stderr: "
        "thread 'main' panicked at safe..."
    )
    # a managed runtime's exception is quoted as the suite quoted it
    node = "crashed (exit status 70): exit status 70; last stderr line:; stderr: X"
    assert observed_crash(node, "exit status 70: RangeError: y") == node


def test_the_observed_line_of_a_rust_crash_in_a_report() -> None:
    got = {"outcome": "crashed", "detail": f"crashed on n_x: {_SUITE}", "ok": False}
    answer = probe._cmd_answer(
        "n_x.safetensors", subprocess.CompletedProcess(["x"], 101, "", _RUST_BACKTRACE)
    )
    line = findings._observed("n_x", got, answer)
    assert line == (
        "crashed (exit status 101): exit status 101; it printed: panicked at "
        "safetensors-0.2.8/src/tensor.rs:175:33: range end index 4 out of range "
        "for slice of length 0"
    )
