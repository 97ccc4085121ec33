"""The command protocol's JSON Schemas: shipped, valid, in step with the suite,
applied to every answer, and on demand through ``check-program``."""

from __future__ import annotations

import hashlib
import json
import re
import sys
import textwrap
from pathlib import Path
from typing import Any

import pytest
from jsonschema import Draft202012Validator  # type: ignore[import-untyped]

import stspec_conformance
from stspec_conformance import _check_program, _examples, _protocol
from stspec_conformance.__main__ import main as entry
from stspec_conformance._capabilities import DTYPE_ORDER, KEYS, Capabilities
from stspec_conformance.adapters.command import parse_answer, write_request

ROOT = Path(__file__).resolve().parents[2]
READER = Path(__file__).resolve().parent / "impls" / "cmd_reader.py"
PAGE = ROOT / "docs" / "reference" / "command-protocol.md"
SHA = hashlib.sha256(b"\x01\x02").hexdigest()


def _accepted(**tensor: object) -> dict[str, Any]:
    entry = {"dtype": "U8", "shape": [2], "sha256": SHA, **tensor}
    return {"result": "accepted", "metadata": None, "tensors": {"w": entry}}


@pytest.mark.parametrize("message", _protocol.SCHEMAS)
def test_each_schema_is_valid_draft_2020_12_and_in_the_package(message: Any) -> None:
    path = _protocol.schema_path(message)
    package = Path(stspec_conformance.__file__).parent
    assert path.parent == package / "schemas"
    Draft202012Validator.check_schema(_protocol.schema(message))


def test_an_unknown_message_has_no_schema() -> None:
    with pytest.raises(ValueError, match="the messages are describe, read-answer"):
        _protocol.schema_path("hello")  # type: ignore[arg-type]


def test_the_describe_schema_declares_what_the_suite_reads() -> None:
    described = _protocol.schema("describe")
    assert set(described["properties"]["capabilities"]["properties"]) == set(KEYS)
    assert described["$defs"]["dtypes"]["items"]["enum"] == list(DTYPE_ORDER)


def test_the_suites_write_request_follows_its_schema() -> None:
    tensors = {
        f"t{i}": (dtype, (2,), bytes(2 * 8 * (i % 4 + 1) // 8 or 1))
        for i, dtype in enumerate(DTYPE_ORDER)
    }
    for metadata in ({"format": "pt"}, None):
        request = write_request(tensors, metadata)
        assert _protocol.problems("write-request", request) == []
    wrong = write_request({"w": ("U8", (2,), b"\x01\x02")}, None)
    wrong["tensors"]["w"]["hex"] = "ABC"
    assert _protocol.problems("write-request", wrong) == [
        "$.tensors.w.hex: 'ABC' does not match '^([0-9a-f]{2})*$'"
    ]


def _message_of(block: dict[str, Any]) -> _protocol.Message:
    if "protocol" in block:
        return "describe"
    if block.get("result") in {"written", "refused"}:
        return "write-answer"
    if "result" in block:
        return "read-answer"
    return "write-request"


def test_every_message_the_page_shows_follows_its_schema() -> None:
    blocks = re.findall(r"```json\n(.*?)```", PAGE.read_text("utf-8"), re.DOTALL)
    shown: dict[str, Any] = {}
    for block in blocks:
        message = json.loads(block)
        shown[message.get("result", _message_of(message))] = message
        assert _protocol.problems(_message_of(message), message) == [], block
    assert set(shown) == {
        "describe", "accepted", "rejected", "unjudged",
        "write-request", "written", "refused",
    }  # fmt: skip
    [(name, tensor)] = shown["accepted"]["tensors"].items()
    content = parse_answer(json.dumps(shown["accepted"]).encode())
    assert content.tensors[name].sha256 == tensor["sha256"]


@pytest.mark.parametrize(
    "answer",
    [
        pytest.param(_accepted(), id="sha256"),
        pytest.param(_accepted(sha256=SHA.upper(), nbytes=2), id="upper-case"),
        pytest.param(_accepted(sha256=None, hex="0102"), id="hex"),
        pytest.param(
            {"metadata": {"k": "v"}, "tensors": {}}, id="protocol-1-no-result"
        ),
        pytest.param(
            {"result": "accepted", "tensors": {}, "reason": "extra keys ignored"},
            id="extra-keys",
        ),
    ],
)
def test_well_formed_answers_are_read(answer: dict[str, Any]) -> None:
    if answer.get("tensors", {}).get("w", {}).get("sha256", "") is None:
        del answer["tensors"]["w"]["sha256"]
    assert _protocol.problems("read-answer", answer) == []
    parse_answer(json.dumps(answer).encode())


@pytest.mark.parametrize(
    ("answer", "says"),
    [
        (_accepted(shape=[-1]), "$.tensors.w.shape[0]: -1 is less than the minimum"),
        (_accepted(shape=[True]), "$.tensors.w.shape[0]: True is not of type"),
        (_accepted(sha256="AB"), "$.tensors.w.sha256: 'AB' does not match"),
        (_accepted(hex="012"), "$.tensors.w.hex: '012' does not match"),
        (_accepted(windows=[[0]]), "$.tensors.w.windows[0]: [0] is too short"),
        (
            {"result": "accepted", "metadata": {"k": 1}, "tensors": {}},
            "$.metadata: {'k': 1} is not valid under any of the given schemas",
        ),
        ({"result": "accepted"}, "$: 'tensors' is a required property"),
        ({"result": "maybe", "tensors": {}}, "$.result: 'accepted' was expected"),
    ],
)
def test_a_malformed_accepted_answer_is_refused_where_it_breaks(
    answer: dict[str, Any], says: str
) -> None:
    with pytest.raises(ValueError, match="breaks the protocol's read-answer schema"):
        parse_answer(json.dumps(answer).encode())
    assert says in "\n".join(_protocol.problems("read-answer", answer))


def test_a_rejection_and_a_refusal_carry_strings() -> None:
    assert _protocol.problems("read-answer", {"result": "rejected"}) == []
    assert _protocol.problems("read-answer", {"result": "rejected", "rule": 5}) == [
        "$.rule: 5 is not of type 'string'"
    ]
    assert _protocol.problems("write-answer", {"result": "written"}) == []
    assert _protocol.problems("write-answer", {"result": "refused", "reason": []}) == [
        "$.reason: [] is not of type 'string'"
    ]


def test_a_header_only_answer_needs_the_declaration_beyond_the_schema() -> None:
    answer = _accepted(sha256=None)
    del answer["tensors"]["w"]["sha256"]
    assert _protocol.problems("read-answer", answer) == []  # the schema allows it
    parse_answer(json.dumps(answer).encode(), Capabilities(header_only=True))
    with pytest.raises(ValueError, match="declare header_only"):
        parse_answer(json.dumps(answer).encode())


def test_a_huge_value_is_quoted_clipped() -> None:
    answer = _accepted(sha256="x" * 1_000_000)
    [problem] = _protocol.problems("read-answer", answer)
    assert len(problem) < 200
    assert problem.endswith("does not match '^[0-9a-fA-F]{64}$'")


@pytest.mark.parametrize(
    ("described", "says"),
    [
        ({"protocol": 3}, "$.protocol: 3 is not one of [1, 2]"),
        ({"protocol": 2, "name": 7}, "$.name: 7 is not of type 'string'"),
        ({"protocol": 2, "version": 1.0}, "$.version: 1.0 is not of type 'string'"),
    ],
)
def test_a_describe_answer_outside_the_schema_is_said(
    described: dict[str, Any], says: str
) -> None:
    assert says in _protocol.problems("describe", described)


def test_examples_prints_the_installed_paths(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert entry(["examples", "reader.mjs"]) == 0
    path = Path(capsys.readouterr().out.strip())
    assert path == Path(stspec_conformance.__file__).parent / "examples" / "reader.mjs"
    assert path.is_file()
    assert entry(["examples"]) == 0
    listed = capsys.readouterr().out
    for name in _examples.EXAMPLES:
        assert str(_examples.example_path(name)) in listed
        assert _examples.example_path(name).is_file()


def test_the_entry_point_says_its_commands(capsys: pytest.CaptureFixture[str]) -> None:
    assert entry(["nonsense"]) == 2
    assert "check-program" in capsys.readouterr().out


def test_check_program_wants_a_command(capsys: pytest.CaptureFixture[str]) -> None:
    assert _check_program.main(["./my_adapter.py"]) == 2
    assert "checks command programs" in capsys.readouterr().out


def test_check_program_passes_a_correct_reader(
    capsys: pytest.CaptureFixture[str],
) -> None:
    status = _check_program.main([f"cmd:{sys.executable} {READER}"])
    out = capsys.readouterr().out
    assert status == 0, out
    for case in _check_program.CASES:
        assert f"ok      {case}: " in out
    assert "smoke gate: a minimal valid file loads with the right content" in out
    assert out.endswith(f"0 problem(s) in the answers of {sys.executable} {READER}\n")


BROKEN = """
    import json, sys
    if sys.argv[1] == "--describe":
        print(json.dumps({"protocol": 2, "name": "broken", "version": "1",
                          "capabilities": {"write": True}}))
    elif sys.argv[1] == "--write":
        print(json.dumps({"result": "refused", "reason": ["not", "a", "string"]}))
        sys.exit(1)
    else:
        print(json.dumps({"result": "accepted", "metadata": None, "tensors": {
            "weight": {"dtype": "F32", "shape": [-8], "sha256": "AB"}}}))
"""


def test_check_program_names_what_is_wrong(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    program = tmp_path / "broken.py"
    program.write_text(textwrap.dedent(BROKEN))
    status = _check_program.main(
        [f"cmd:{sys.executable} {program}", "--case", "n_prefix_file_empty"]
    )
    out = capsys.readouterr().out
    assert status == 1, out
    lines = out.splitlines()
    assert lines[0].startswith("ok      --describe: broken 1 (command), protocol 2")
    assert lines[1].startswith("PROBLEM smoke gate: ")
    assert "$.tensors.weight.shape[0]: -8 is less than the minimum of 0" in lines[1]
    assert lines[2].startswith("PROBLEM n_prefix_file_empty: invalid-output: ")
    assert "$.tensors.weight.sha256: 'AB' does not match" in lines[2]
    assert lines[3].startswith("PROBLEM --write (U8[2, 2], one metadata key): ")
    assert "$.reason: ['not', 'a', 'string'] is not of type 'string'" in lines[3]
    assert lines[-1].endswith(
        f"3 problem(s) in the answers of {sys.executable} {program}"
    )


def test_a_bad_tensor_among_many_equal_ones_is_found() -> None:
    tensors = {
        f"t{i}": {"dtype": "U8", "shape": [0], "sha256": SHA} for i in range(9999)
    }
    tensors["last"] = {"dtype": "U8", "shape": [0.5], "sha256": SHA}
    answer = {"result": "accepted", "metadata": {"k": 2}, "tensors": tensors}
    assert _protocol.problems("read-answer", answer) == [
        "$.metadata: {'k': 2} is not valid under any of the given schemas",
        "$.tensors.last.shape[0]: 0.5 is not of type 'integer'",
    ]
