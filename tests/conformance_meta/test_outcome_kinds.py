"""The outcome vocabulary says what happened: a native crash is not a managed
exception, reserved address space is not used memory, and failing open is
neither a rejection nor a crash."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from _suite_runner import ROOT, run_suite

from stspec_conformance._limits import Limits
from stspec_conformance.adapters import FailedOpen, status_of
from stspec_conformance.adapters._base import InProcessAdapter
from stspec_conformance.adapters._stderr import read_death
from stspec_conformance.adapters.command import CommandAdapter, parse_answer

FILES = ROOT / "corpus" / "files"
JUDGED = Path(__file__).resolve().parent / "judged"

GO_PANIC = (
    "panic: runtime error: index out of range [3] with length 3\n\n"
    "goroutine 1 [running]:\nmain.parse(...)\n\t/src/main.go:41 +0x1d\n"
    "main.main()\n\t/src/main.go:12 +0x25\nexit status 2\n"
)
GO_OOM = "fatal error: runtime: out of memory\n\n" + "".join(
    f"goroutine {i} [running]:\nruntime.throw({{0x4c1, 0x16}})\n\t/go/src/proc.go:{i}\n"
    for i in range(1, 33)
)
RUST_PANIC = (
    "\nthread 'main' panicked at src/main.rs:18:40:\n"
    "attempt to multiply with overflow\n"
    "note: run with `RUST_BACKTRACE=1` environment variable to display a backtrace\n"
)
# Rust 1.88 and later name the thread's id
RUST_188_PANIC = (
    "\nthread 'main' (28486) panicked at src/tensor.rs:175:33:\n"
    "range end index 8 out of range for slice of length 7\n"
    "note: run with `RUST_BACKTRACE=1` environment variable to display a backtrace\n"
)
NODE_RANGE = (
    "file:///w/reader.mjs:9\n    const n = view.getBigUint64(0, true);\n"
    "                   ^\n\nRangeError: Offset is outside the bounds of the DataView\n"
    "    at DataView.getBigUint64 (<anonymous>)\n    at file:///w/reader.mjs:9:20\n\n"
    "Node.js v22.1.0\n"
)
JAVA_NPE = (
    'Exception in thread "main" java.lang.NullPointerException: Cannot invoke '
    '"Object.toString()"\n\tat Reader.main(Reader.java:33)\n'
)
PY_KEY = (
    'Traceback (most recent call last):\n  File "/w/r.py", line 3, in <module>\n'
    "    entry['data_offsets']\nKeyError: 'data_offsets'\n"
)
CPP_BAD_ALLOC = (
    "terminate called after throwing an instance of 'std::bad_alloc'\n"
    "  what():  std::bad_alloc\n"
)


@pytest.mark.parametrize(
    ("err", "status", "kind", "line"),
    [
        (GO_PANIC, "crashed", "panic", "panic: runtime error: index out of range"),
        (RUST_PANIC, "crashed", "panic", "attempt to multiply with overflow"),
        (RUST_188_PANIC, "crashed", "panic", "range end index 8 out of range"),
        (NODE_RANGE, "exception", "RangeError", "RangeError: Offset is outside"),
        (JAVA_NPE, "exception", "NullPointerException", "java.lang.NullPointer"),
        (PY_KEY, "exception", "KeyError", "KeyError: 'data_offsets'"),
        (GO_OOM, "resource", "fatal error", "fatal error: runtime: out of memory"),
        (CPP_BAD_ALLOC, "resource", "abort", "std::bad_alloc"),
    ],
)
def test_stderr_says_how_a_program_died(
    err: str, status: str, kind: str, line: str
) -> None:
    death = read_death(err.encode())
    assert death is not None
    assert (death.status, death.kind) == (status, kind)
    assert line in death.line


def test_stderr_that_names_no_known_death_is_unknown() -> None:
    assert read_death(b"") is None
    assert read_death(b"goroutine 1 [running]:\nmain.main()\n") is None
    assert read_death(b"During handling of the above exception\n") is None


def _script(tmp_path: Path, body: str) -> CommandAdapter:
    script = tmp_path / "reader.py"
    script.write_text(
        "import sys\nif sys.argv[1] == '--describe':\n"
        '    print(\'{"protocol": 2, "name": "t", "version": "1"}\')\n'
        f"    sys.exit(0)\n{body}\n",
        encoding="utf-8",
    )
    return CommandAdapter(
        [sys.executable, str(script)], memory_limit=2048 << 20, limits=Limits()
    )


def _dies(err: str, code: int) -> str:
    return f"sys.stderr.write({err!r}); sys.exit({code})"


@pytest.mark.parametrize(
    ("body", "status", "says"),
    [
        (_dies(GO_PANIC, 2), "crashed", "it said: panic: runtime error: index out"),
        (_dies(GO_OOM, 2), "resource", "fatal error: runtime: out of memory"),
        (_dies(NODE_RANGE, 1), "exception", "it said: RangeError: Offset is outside"),
        (
            'print(\'{"result": "unjudged", "reason": "could not parse"}\')',
            "fail-open",
            "could not parse",
        ),
    ],
)
def test_a_commands_death_is_named_by_its_runtimes_words(
    tmp_path: Path, body: str, status: str, says: str
) -> None:
    adapter = _script(tmp_path, body)
    outcome = adapter.attempt_load(
        str(FILES / "n_prefix_file_empty.safetensors"), timeout=5
    )
    assert outcome.status == status, outcome
    assert says in outcome.message, outcome.message
    if status == "resource":  # the limit refused an allocation: address space
        assert outcome.memory == "reserved"
        assert outcome.describe().startswith("resource (reserved)")
    if status == "crashed":  # the panic, not the outermost goroutine frame
        assert outcome.crash == "panic, exit status 2"
        assert "main.main()" not in outcome.message.split("; stderr:")[0]


def test_the_head_of_a_long_stderr_is_kept(tmp_path: Path) -> None:
    # 200 KiB of goroutine stacks after the fatal error: still resource
    body = _dies(GO_OOM + "\tgoroutine frame\n" * 12_000, 2)
    outcome = _script(tmp_path, body).attempt_load(
        str(FILES / "n_prefix_file_empty.safetensors"), timeout=10
    )
    assert outcome.status == "resource", outcome


class PanicException(BaseException):
    pass


@pytest.mark.parametrize(
    ("exc", "rejects", "status"),
    [
        (ValueError("bad"), (ValueError,), "rejected"),
        (KeyError("data_offsets"), (ValueError,), "exception"),
        (AttributeError("x"), None, "exception"),
        (SystemExit(3), None, "exception"),
        (PanicException("slice index starts at 8 but ends at 7"), None, "crashed"),
        (PanicException("index out of range"), (BaseException,), "crashed"),
        (FailedOpen("not a clean verdict"), (ValueError,), "fail-open"),
        (FailedOpen("not a clean verdict"), (FailedOpen,), "fail-open"),
    ],
)
def test_python_exceptions_are_classified(
    exc: BaseException, rejects: tuple[type[BaseException], ...] | None, status: str
) -> None:
    assert status_of(exc, rejects) == status


def test_an_in_process_memory_error_is_reserved_memory() -> None:
    class Allocates(InProcessAdapter):
        def load(self, path: str) -> object:  # type: ignore[override]
            raise MemoryError(path)

    outcome = Allocates().attempt_load("x", timeout=0)
    assert (outcome.status, outcome.memory) == ("resource", "reserved")


def test_failing_open_is_its_own_failure(tmp_path: Path) -> None:
    run = run_suite(
        str(JUDGED / "fails_open.py"),
        "-k",
        "n_prefix_file_empty or n_layout_hole_between_tensors or y_dtype_f32_values",
        tmp_path=tmp_path,
    )
    assert run.returncode == 1, run.output[-3000:]
    assert run.results["test_must_accept[y_dtype_f32_values]"] == "passed"
    for case in ("n_prefix_file_empty", "n_layout_hole_between_tensors"):
        test = run.test(f"test_must_reject[{case}]")
        assert (test["result"], test["outcome"]) == ("failed", "fail-open"), test
        assert test["failure"] == "fail-open"
        assert "NOT a clean verdict" in test["message"]
    summary = run.report["summary"]
    assert "FILE-PREFIX" not in summary["rules_violated"]  # no verdict, no rule


def test_a_managed_exception_is_not_a_crash(tmp_path: Path) -> None:
    run = run_suite(
        str(JUDGED / "raises_key_error.py"),
        "-k",
        "n_structure_missing_data_offsets or y_dtype_f32_values",
        tmp_path=tmp_path,
    )
    assert run.returncode == 1, run.output[-3000:]
    assert run.results["test_must_accept[y_dtype_f32_values]"] == "passed"
    test = run.test("test_must_reject[n_structure_missing_data_offsets]")
    assert (test["outcome"], test["crash"]) == ("exception", "KeyError"), test
    assert test["failure"] == "exception"


def test_a_failure_message_shows_the_bytes_returned() -> None:
    # a hex answer of 4 bytes for F32[4] is 4 bytes, not dtype x shape's 16;
    # a sha256 answer without nbytes has no size to show
    answer = (
        b'{"result": "accepted", "metadata": null, "tensors": {'
        b'"a": {"dtype": "F32", "shape": [4], "hex": "00000000"},'
        b'"b": {"dtype": "F32", "shape": [4], "sha256": "' + b"0" * 64 + b'"}}}'
    )
    content = parse_answer(answer)
    assert content.tensors["a"].describe().startswith("F32[4] 4 bytes sha256")
    assert content.tensors["b"].describe().startswith("F32[4] (size not given)")
