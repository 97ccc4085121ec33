"""Python implementations run in a killable worker: native crashes and hangs are
outcomes, programming errors are crashes, and REJECTS names what rejects."""

from __future__ import annotations

import re
import tempfile
from dataclasses import fields
from pathlib import Path

import pytest
from _suite_runner import Run, run_suite, shared_run

from stspec_conformance._model import Content, Outcome, TensorDigest
from stspec_conformance.adapters import ImplError, resolve
from stspec_conformance.adapters._base import status_of
from stspec_conformance.adapters._wire import (
    HEADER,
    OUTCOME_FIELDS,
    WireError,
    decode,
    encode,
    outcome_from,
    outcome_to,
)

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


@pytest.mark.parametrize("which", ["ready", "outcome"])
def test_an_answer_that_runs_code_is_refused_as_malformed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, which: str
) -> None:
    # A pickled answer whose __reduce__ runs code would take over pytest's
    # process and could make a reader that rejects everything pass.
    marker = tmp_path / "ran-in-pytest"
    monkeypatch.setenv("PICKLE_ANSWERS_MARKER", str(marker))
    monkeypatch.setenv("PICKLE_ANSWERS_WHICH", which)
    impl = str(IMPLS / "pickle_answers.py")
    run = run_suite(impl, "--no-smoke-gate", "-k", "y_arith_zero", tmp_path=tmp_path)
    assert not marker.exists()
    assert run.returncode in {1, 4}, run.output[-3000:]
    assert "is not JSON" in run.output, run.output[-3000:]
    if which == "outcome":
        outcomes = {run.test(t)["outcome"] for t in run.results}
        assert outcomes == {"invalid-output"}, run.output[-3000:]


def _answer(**changes: object) -> dict[str, object]:
    outcome = Outcome(
        "accepted",
        content=Content(
            {"k": "v\udc80"},
            {
                "w": TensorDigest("F32", (2,), 8, "ab" * 32),
                "big": TensorDigest("U8", (1 << 30,), 1 << 30, "", ((0, "cd"),)),
            },
        ),
        message="fine",
        peak_memory=1024,
        seconds=0.5,
    )
    encoded = outcome_to(outcome)
    encoded.update(changes)
    return encoded


def test_an_outcome_crosses_the_wire_unchanged() -> None:
    sent = _answer()
    frame = encode({"kind": "outcome", "outcome": sent})
    received = outcome_from(decode(frame[HEADER.size :])["outcome"])
    assert outcome_to(received) == sent
    assert set(sent) == OUTCOME_FIELDS
    assert {f.name for f in fields(Outcome)} - {"details"} == OUTCOME_FIELDS


@pytest.mark.parametrize(
    ("changes", "says"),
    [
        ({"status": "passed"}, "unknown status"),
        ({"peak_memory": "1024"}, "peak_memory is not an integer"),
        ({"seconds": True}, "seconds is not a finite number"),
        ({"message": None}, "message is not a string"),
        ({"content": {"metadata": None, "tensors": []}}, "not a content object"),
        ({"extra": 1}, "unknown ['extra']"),
    ],
)
def test_a_malformed_outcome_says_what_differed(
    changes: dict[str, object], says: str
) -> None:
    with pytest.raises(WireError, match=re.escape(says)):
        outcome_from(_answer(**changes))


@pytest.mark.parametrize(
    "payload",
    [b"\x80\x04K\x01.", b"[" * 100_000, b'{"kind": 1}', b'{"kind": "a", "kind": "b"}'],
    ids=["pickle", "deep", "kind-not-a-string", "repeated-key"],
)
def test_a_message_that_is_not_a_json_object_is_refused(payload: bytes) -> None:
    with pytest.raises(WireError):
        decode(payload)


def test_an_in_process_run_the_implementation_ends_is_not_green(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    temporary = tmp_path / "tmp"  # the run's TMPDIR: nothing may stay in it
    temporary.mkdir()
    monkeypatch.setenv("TMPDIR", str(temporary))
    adapter = tmp_path / "ends_pytest.py"
    adapter.write_text(
        "import os\n\n\ndef load(path):\n    os._exit(0)\n", encoding="utf-8"
    )
    run = run_suite(
        str(adapter), "--in-process", "-k", "y_arith_zero", tmp_path=tmp_path
    )
    assert run.returncode == 3, run.output[-3000:]
    assert "ended with exit status 0 before pytest finished it" in run.output
    # the load it ended never removed its staging folder: the watcher did
    assert list(temporary.iterdir()) == []
    # an honest in-process run keeps its own status
    honest = run_suite(
        "reference", "--in-process", "-k", "y_arith_zero_first", tmp_path=tmp_path
    )
    assert honest.returncode == 0, honest.output[-3000:]
    assert "finished it" not in honest.output


@pytest.mark.slow
def test_a_server_stopped_at_its_warm_up_leaves_no_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # the warm-up load hangs; the server is killed with its files inside
    from stspec_conformance.adapters import isolated  # noqa: PLC0415

    adapter = tmp_path / "hangs.py"
    adapter.write_text("import time\ndef load(path):\n    time.sleep(60)\n")
    temporary = tmp_path / "tmp"
    temporary.mkdir()
    monkeypatch.setattr(isolated, "_START_SECONDS", 3.0)
    monkeypatch.setattr(tempfile, "tempdir", str(temporary))
    with pytest.raises(ImplError, match=r"did not start: no answer within 3 s"):
        resolve(str(adapter), isolate=True)
    assert list(temporary.iterdir()) == []
