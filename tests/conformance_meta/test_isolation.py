"""Python implementations run in a killable worker: native crashes and hangs are
outcomes, programming errors are crashes, and REJECTS names what rejects."""

from __future__ import annotations

from pathlib import Path

import pytest
from _suite_runner import Run, run_suite, shared_run

from stspec_conformance.adapters import ImplError, resolve
from stspec_conformance.adapters._base import status_of

IMPLS = Path(__file__).resolve().parent / "impls"
LARGE = "test_large and (beyond_4gib or size_mismatch)"


def test_native_segfault_sleep_and_spin_are_outcomes(tmp_path: Path) -> None:
    run = run_suite(
        str(IMPLS / "native_faults.py"),
        "-k",
        "y_prefix_smallest_file or y_text_padding_none or y_structure_name_dotted "
        "or y_dtype_f16_values",
        "--case-timeout=1",
        "--wall-timeout=20",  # the spinning load needs 2-3 s of CPU first
        tmp_path=tmp_path,
    )
    assert run.returncode == 1, run.output[-3000:]  # the run finished
    segfault = run.test("test_must_accept[y_prefix_smallest_file]")
    assert "SIGSEGV" in segfault["message"], segfault
    asleep = run.test("test_must_accept[y_text_padding_none]")
    assert "wall-clock" in asleep["message"], asleep
    spinning = run.test("test_must_accept[y_structure_name_dotted]")
    assert "CPU time" in spinning["message"], spinning
    assert run.results["test_must_accept[y_dtype_f16_values]"] == "passed"


def test_in_process_mode_still_runs(tmp_path: Path) -> None:
    run = run_suite(
        str(IMPLS / "declared_rejects.py"),
        "--in-process",
        "-k",
        "n_prefix_file_1_byte or y_dtype_f16_values",
        tmp_path=tmp_path,
    )
    assert run.returncode == 0, run.output[-3000:]
    assert run.report["implementation"]["kind"] == "in-process"
    assert "(in-process)" in run.output


def _declared_rejects(factory: pytest.TempPathFactory) -> Run:
    """A reader declaring its rejection type, with one bug (a KeyError)."""
    select = "y_dtype_f16_values or n_prefix_file_empty or n_prefix_file_1_byte"
    impl = str(IMPLS / "declared_rejects.py")
    return shared_run(impl, "-k", select, tmp_path_factory=factory)


def test_the_report_says_the_run_was_isolated(
    tmp_path_factory: pytest.TempPathFactory,
) -> None:
    run = _declared_rejects(tmp_path_factory)
    assert run.results["test_must_accept[y_dtype_f16_values]"] == "passed"
    assert run.report["implementation"]["kind"] == "isolated"
    assert "(isolated)" in run.output


def test_an_import_error_on_every_file_stops_the_run(tmp_path: Path) -> None:
    impl = str(IMPLS / "broken_import.py")
    run = run_suite(impl, "-k", "n_prefix", tmp_path=tmp_path)
    assert run.returncode == 4, run.output[-3000:]  # pytest.ExitCode.USAGE_ERROR
    assert "ModuleNotFoundError" in run.output
    assert "passed" not in run.output
    # past the gate, each of those "rejections" is a crash, not a pass
    ungated = run_suite(
        impl, "--no-smoke-gate", "-k", "n_prefix_file_empty", tmp_path=tmp_path
    )
    entry = ungated.test("test_must_reject[n_prefix_file_empty]")
    assert entry["result"] == "failed"
    assert "ModuleNotFoundError" in entry["message"]


def test_rejects_names_the_rejection_type(
    tmp_path_factory: pytest.TempPathFactory,
) -> None:
    run = _declared_rejects(tmp_path_factory)
    assert run.results["test_must_reject[n_prefix_file_1_byte]"] == "passed"
    bug = run.test("test_must_reject[n_prefix_file_empty]")
    assert bug["result"] == "failed"
    assert "KeyError" in bug["message"]


@pytest.mark.parametrize(
    ("exc", "rejects", "status"),
    [
        (ValueError("bad"), None, "rejected"),
        (KeyError("k"), None, "rejected"),
        (AttributeError("x"), None, "exception"),
        (ModuleNotFoundError("m"), None, "exception"),
        (NameError("n"), None, "exception"),
        (NotImplementedError(), None, "exception"),
        (AssertionError(), None, "exception"),
        (RecursionError(), None, "exception"),
        (MemoryError(), None, "exception"),  # the adapter makes it resource
        (SystemExit(1), None, "exception"),
        (ValueError("bad"), (KeyError,), "exception"),
        (KeyError("k"), (KeyError,), "rejected"),
    ],
)
def test_exception_classes(
    exc: BaseException, rejects: tuple[type[BaseException], ...] | None, status: str
) -> None:
    assert status_of(exc, rejects) == status


def test_a_bad_rejects_is_a_usage_error(tmp_path: Path) -> None:
    adapter = tmp_path / "bad_rejects.py"
    adapter.write_text("REJECTS = 'ValueError'\ndef load(path):\n    return {}, None\n")
    with pytest.raises(ImplError, match="REJECTS must be an exception type"):
        resolve(str(adapter), isolate=True)


@pytest.mark.parametrize("impl", ["whole_file.py", "mapped.py"])
def test_bytes_and_buffer_returns_pass_the_large_cases_at_the_defaults(
    impl: str, tmp_path: Path
) -> None:
    run = run_suite(str(IMPLS / impl), "-k", LARGE, tmp_path=tmp_path)
    assert run.returncode == 0, run.output[-3000:]
    assert run.results["test_must_accept[y_layout_offsets_beyond_4gib]"] == "passed"
