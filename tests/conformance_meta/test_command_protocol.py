"""Command protocol 2: a rejection is an answer, everything else is a crash, a
hang or ``resource``; a program that cannot run stops the run before any case."""

from __future__ import annotations

import json
import shutil
import sys
import textwrap
from pathlib import Path

import pytest
from _suite_runner import ROOT, run_suite

from stspec_conformance._capabilities import Capabilities
from stspec_conformance._limits import Limits
from stspec_conformance._verdicts import malformed_acceptance
from stspec_conformance.adapters.command import CommandAdapter, parse_answer

READER = Path(__file__).resolve().parent / "impls" / "cmd_reader.py"
FILES = ROOT / "corpus" / "files"
LIMITS = Limits(cpu_seconds=5, wall_seconds=20)
LARGE = "test_large and (beyond_4gib or size_mismatch)"
# Answers echoing metadata nested 100,000 levels: json.loads alone would raise
# RecursionError inside the suite.
_DEEP = "[" * 100_000 + "]" * 100_000
DEEP_ACCEPTED = (
    f'{{"result": "accepted", "metadata": {{"m": {_DEEP}}}, "tensors": {{}}}}'
)
DEEP_REJECTED = f'{{"result": "rejected", "reason": {_DEEP}}}'


def reader(*switches: str) -> str:
    return f"cmd:{sys.executable} {READER} {' '.join(switches)}".rstrip()


def _script(tmp_path: Path, body: str) -> CommandAdapter:
    script = tmp_path / "prog.py"
    script.write_text(textwrap.dedent(body))
    return CommandAdapter(
        [sys.executable, str(script)], memory_limit=2048 << 20, limits=LIMITS
    )


def test_a_rejection_is_a_positive_answer(tmp_path: Path) -> None:
    adapter = _script(
        tmp_path,
        """
        import json, sys
        if sys.argv[1] == "--describe":
            print(json.dumps({"protocol": 2, "name": "p", "version": "1"}))
        else:
            print(json.dumps({"result": "rejected", "rule": "FILE-PREFIX"}))
            sys.exit(1)
        """,
    )
    assert adapter.protocol == 2
    outcome = adapter.attempt_load(
        str(FILES / "n_prefix_file_empty.safetensors"), timeout=5
    )
    assert outcome.status == "rejected"
    assert outcome.rule == "FILE-PREFIX"


@pytest.mark.parametrize(
    ("body", "status", "says"),
    [
        ("raise RuntimeError('boom')", "exception", "RuntimeError: boom"),
        ("sys.stderr.write('FILE-PREFIX'); sys.exit(1)", "crashed", "exit status 1"),
        ('print(\'{"result": "rejected"}\')', "invalid-output", "exits 1"),
        ("print('not json')", "invalid-output", "not one JSON object"),
        ("import os; os.kill(os.getpid(), 11)", "crashed", "SIGSEGV"),
        ("bytearray(1 << 40)", "resource", "MemoryError"),
        (f"print({DEEP_ACCEPTED!r})", "invalid-output", "nests deeper than 64"),
        (f"print({DEEP_REJECTED!r}); sys.exit(1)", "crashed", "exit status 1"),
    ],
)
def test_anything_but_an_answer_is_not_a_rejection(
    tmp_path: Path, body: str, status: str, says: str
) -> None:
    adapter = _script(
        tmp_path, f"import sys\nif sys.argv[1] != '--describe':\n    {body}\n"
    )
    outcome = adapter.attempt_load(
        str(FILES / "n_prefix_file_empty.safetensors"), timeout=5
    )
    assert outcome.status == status, outcome
    assert says in outcome.message + outcome.crash, outcome


@pytest.mark.parametrize(
    ("body", "says"),
    [
        ('print(\'{"result": "rejected"}\')', 'exit 0 with "result": "rejected"'),
        (
            'print(\'{"result": "accepted", "tensors": {}}\'); sys.exit(1)',
            'exit 1 with "result": "accepted"',
        ),
    ],
)
def test_an_exit_status_contradicting_the_answer_is_no_verdict(
    tmp_path: Path, body: str, says: str
) -> None:
    adapter = _script(
        tmp_path, f"import sys\nif sys.argv[1] != '--describe':\n    {body}\n"
    )
    outcome = adapter.attempt_load(
        str(FILES / "n_prefix_file_empty.safetensors"), timeout=5
    )
    assert outcome.status == "invalid-output", outcome
    assert outcome.message.startswith(f"inconsistent answer: {says}"), outcome
    assert not malformed_acceptance(outcome)  # an n_ case is not "accepted" by it


def test_an_inconsistent_rejection_fails_as_invalid_output(tmp_path: Path) -> None:
    run = run_suite(
        reader("--exit0"),
        "-k",
        "n_layout_hole_between_tensors or y_prefix_smallest_file",
        tmp_path=tmp_path,
    )
    assert run.returncode == 1, run.output[-3000:]
    assert run.results["test_must_accept[y_prefix_smallest_file]"] == "passed"
    entry = run.test("test_must_reject[n_layout_hole_between_tensors]")
    assert entry["result"] == "failed", entry
    assert entry["outcome"] == "invalid-output", entry
    assert "inconsistent answer" in entry["message"], entry
    assert run.report["summary"]["rules_violated"] == {}, run.report["summary"]


def test_protocol_1_accepted_answers_still_work(tmp_path: Path) -> None:
    adapter = _script(
        tmp_path,
        """
        import json, sys
        if sys.argv[1] != "--describe":
            print(json.dumps({"metadata": None, "tensors": {
                "t": {"dtype": "U8", "shape": [2], "hex": "0102"}}}))
        """,
    )
    assert adapter.protocol == 1
    outcome = adapter.attempt_load(
        str(FILES / "n_prefix_file_empty.safetensors"), timeout=5
    )
    assert outcome.status == "accepted"
    assert outcome.content is not None
    assert outcome.content.tensors["t"].nbytes == 2


def test_a_missing_nbytes_stays_unknown(tmp_path: Path) -> None:
    # the size the reader hashed is not known: never shown as dtype x shape
    adapter = _script(
        tmp_path,
        """
        import json, sys
        if sys.argv[1] != "--describe":
            print(json.dumps({"result": "accepted", "metadata": None, "tensors": {
                "t": {"dtype": "F4", "shape": [2, 3], "sha256": "AB" * 32}}}))
        """,
    )
    outcome = adapter.attempt_load(
        str(FILES / "n_prefix_file_empty.safetensors"), timeout=5
    )
    assert outcome.content is not None
    assert outcome.content.tensors["t"].nbytes == -1
    assert outcome.content.tensors["t"].sha256 == "ab" * 32
    assert "(size not given)" in outcome.content.tensors["t"].describe()


def test_windows_only_above_256_mib_and_at_the_defined_starts(tmp_path: Path) -> None:
    adapter = _script(
        tmp_path,
        """
        import json, sys
        if sys.argv[1] != "--describe":
            n = int(sys.argv[1].rsplit("-", 1)[-1]) if False else 1 << 20
            print(json.dumps({"result": "accepted", "metadata": None, "tensors": {
                "t": {"dtype": "U8", "shape": [1 << 20], "windows": [[0, 64 * "a"]]}}}))
        """,
    )
    outcome = adapter.attempt_load(
        str(FILES / "n_prefix_file_empty.safetensors"), timeout=5
    )
    assert outcome.status == "invalid-output"
    assert "windows are for tensors above" in outcome.message


def test_header_only_answers_need_the_declaration(tmp_path: Path) -> None:
    body = """
        import json, sys
        if sys.argv[1] == "--describe":
            print(json.dumps({"protocol": 2, "capabilities": {"header_only": HEADER}}))
        else:
            print(json.dumps({"result": "accepted", "metadata": None, "tensors": {
                "t": {"dtype": "U8", "shape": [2]}}}))
        """
    path = str(FILES / "n_prefix_file_empty.safetensors")
    declared = _script(tmp_path, body.replace("HEADER", "True"))
    assert declared.capabilities == Capabilities(header_only=True)
    assert declared.attempt_load(path, timeout=5).status == "accepted"
    undeclared = _script(tmp_path, body.replace("HEADER", "False"))
    outcome = undeclared.attempt_load(path, timeout=5)
    assert outcome.status == "invalid-output"
    assert "declare header_only" in outcome.message


@pytest.mark.parametrize(
    ("impl", "says"),
    [
        (reader("--on=.safetensors:traceback"), "RuntimeError: a bug, not a rejection"),
        (
            f"cmd:{shutil.which('node') or 'node'} no-such-reader.mjs",
            "--describe failed",
        ),
        (
            f"cmd:{shutil.which('java') or 'java'} NoSuchReaderClass",
            "--describe failed",
        ),
    ],
    ids=["python-traceback", "node-missing-script", "java-missing-class"],
)
def test_a_program_that_cannot_run_stops_the_run(
    impl: str, says: str, tmp_path: Path
) -> None:
    program = impl[4:].split(maxsplit=1)[0]
    if shutil.which(program) is None:
        pytest.skip(f"needs {program}")
    run = run_suite(impl, "-k", "n_prefix", tmp_path=tmp_path)
    assert run.returncode == 4, run.output[-3000:]  # pytest.ExitCode.USAGE_ERROR
    assert says in run.output, run.output[-3000:]
    assert "passed" not in run.output


def test_crashes_hangs_and_tracebacks_are_outcomes(tmp_path: Path) -> None:
    run = run_suite(
        reader(
            "--on=y_prefix_smallest_file.safetensors:kill9",
            "--on=y_text_padding_none.safetensors:sleep",
            "--on=y_structure_name_dotted.safetensors:spin",
            "--on=n_prefix_file_empty.safetensors:exit3",
            "--on=n_prefix_file_1_byte.safetensors:traceback",
        ),
        "-k",
        (
            "y_prefix_smallest_file or y_text_padding_none or y_structure_name_dotted "
            "or n_prefix_file_empty or n_prefix_file_1_byte or n_prefix_n_zero"
        ),
        "--case-timeout=1",
        "--wall-timeout=20",  # the spinning reader needs 2 s of CPU first
        tmp_path=tmp_path,
    )
    killed = run.test("test_must_accept[y_prefix_smallest_file]")
    assert "signal 9" in killed["message"], killed
    asleep = run.test("test_must_accept[y_text_padding_none]")
    assert "hung" in asleep["message"]
    assert "wall-clock" in asleep["message"]
    spinning = run.test("test_must_accept[y_structure_name_dotted]")
    assert "hung" in spinning["message"]
    assert "CPU time" in spinning["message"]
    assert (
        "exit status 3" in run.test("test_must_reject[n_prefix_file_empty]")["message"]
    )
    traceback = run.test("test_must_reject[n_prefix_file_1_byte]")
    assert traceback["result"] == "failed"  # not a rejection
    assert "RuntimeError" in traceback["message"]
    assert run.results["test_must_reject[n_prefix_n_zero]"] == "passed"


def test_a_readme_reader_passes_the_large_cases_at_the_defaults(
    tmp_path: Path,
) -> None:
    # a mapping reader answering windows; whole-file reading is the in-process
    # test's (test_isolation), which costs the same 4 GiB read
    run = run_suite(reader("--mmap"), "-k", LARGE, tmp_path=tmp_path)
    assert run.returncode == 0, run.output[-3000:]
    assert run.results["test_must_accept[y_layout_offsets_beyond_4gib]"] == "passed"
    assert (
        run.results["test_must_reject[n_example_format_notes_size_mismatch]"]
        == "passed"
    )


def test_header_only_validator_passes_with_its_declaration_and_fails_when_lax(
    tmp_path: Path,
) -> None:
    select = (
        "y_dtype_f16_values or y_layout_50000_tensors or n_layout_hole_between_tensors"
    )
    strict = run_suite(reader("--header-only"), "-k", select, tmp_path=tmp_path)
    assert strict.returncode == 0, strict.output[-3000:]
    lax = run_suite(reader("--header-only", "--lax"), "-k", select, tmp_path=tmp_path)
    assert lax.returncode == 1
    failed = lax.test("test_must_reject[n_layout_hole_between_tensors]")
    assert failed["result"] == "failed"
    assert "accepted" in failed["message"]


def test_a_reader_allocating_from_a_claim_is_a_resource_failure(tmp_path: Path) -> None:
    run = run_suite(
        reader("--on=n_layout_bounds_end_2pow53_plus_1.safetensors:alloc"),
        "-k",
        "n_layout_bounds_end_2pow53_plus_1",
        tmp_path=tmp_path,
    )
    entry = run.test("test_must_reject[n_layout_bounds_end_2pow53_plus_1]")
    assert entry["result"] == "failed"
    assert entry["message"].startswith("resource (reserved):"), entry
    assert entry["memory"] == "reserved", entry
    report = json.dumps(run.report)
    assert "resource" in report


def test_a_declared_dtype_gap_is_not_applicable_and_an_undeclared_one_fails(
    tmp_path: Path,
) -> None:
    select = "y_dtype_f64_values or y_dtype_f32_values"
    declared = run_suite(
        reader("--no-f64", "--declare-no-f64"), "-k", select, tmp_path=tmp_path
    )
    assert declared.returncode == 0, declared.output[-3000:]
    assert declared.results["test_must_accept[y_dtype_f64_values]"] == "not-applicable"
    assert declared.results["test_must_accept[y_dtype_f32_values]"] == "passed"
    undeclared = run_suite(reader("--no-f64"), "-k", select, tmp_path=tmp_path)
    assert undeclared.returncode == 1
    assert undeclared.results["test_must_accept[y_dtype_f64_values]"] == "failed"


def test_answer_depth_is_judged_before_decoding_and_strings_do_not_count() -> None:
    with pytest.raises(ValueError, match="nests deeper than 64 levels"):
        parse_answer(DEEP_ACCEPTED.encode())
    brackets = "[{" * 100  # inside a string: not nesting
    shallow = {"result": "accepted", "metadata": {"k": brackets}, "tensors": {}}
    assert parse_answer(json.dumps(shallow).encode()).metadata == {"k": brackets}
