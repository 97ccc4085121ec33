"""matrix.probe: what a reader loaded, and how two readers differ."""

import hashlib
import importlib.util
import json
import sys
from dataclasses import replace
from pathlib import Path
from types import ModuleType

import pytest
from matrix import probe, render_diff, render_html, render_md
from matrix.impls import by_name

REPO = Path(__file__).resolve().parents[2]
FILES = REPO / "corpus" / "files"


def _answer(**tensors: list[object]) -> probe.Answer:
    return {"result": "accepted", "tensors": tensors}


@pytest.mark.parametrize(
    ("other", "expected"),
    [
        (_answer(a=["F32", [1], "aa"]), None),
        (_answer(a=["F32", [1], None]), None),  # a header-only reader
        (_answer(a=["F32", [1], "bb"]), "bytes"),
        (_answer(b=["F32", [1], "aa"]), "names"),
        (_answer(a=["I32", [1], "aa"]), "dtype"),
        (_answer(a=["F32", [], "aa"]), "shape"),
        (_answer(a=["F32", 1, "aa"]), "shape"),  # a shape passed through as is
        (_answer(a=["I32", [], "bb"]), "bytes"),  # the worst is named
    ],
)
def test_difference(other: probe.Answer, expected: str | None) -> None:
    assert probe.difference(_answer(a=["F32", [1], "aa"]), other) == expected


def test_a_probe_of_the_reference_in_this_environment() -> None:
    names = ["n_layout_hole_between_tensors", "i_text_leading_space"]
    answers = probe.probe(
        by_name("reference"),
        [FILES / f"{n}.safetensors" for n in names],
        python=Path(sys.executable),
    )
    assert answers["n_layout_hole_between_tensors"]["result"] == "rejected"
    assert "LAYOUT-HOLE" in answers["n_layout_hole_between_tensors"]["error"]
    assert answers["i_text_leading_space"]["result"] == "rejected"


def _result(name: str, answer: probe.Answer, case: str = "n_x") -> dict[str, object]:
    """One implementation's results, holding only its probe answer on ``case``."""
    return {"implementation": {"name": name}, "probe": {case: answer}}


def test_differentials_group_readers_and_name_the_worst_difference() -> None:
    results = [
        _result("first-wins", _answer(a=["I32", [1], "aa"])),
        _result("last-wins", _answer(a=["F32", [1], "aa"])),
        _result("also-last", _answer(a=["F32", [1], None])),
        _result("strict", {"result": "rejected"}),
    ]
    ((case, kind, groups),) = render_diff.differentials(results)
    assert (case, kind) == ("n_x", "dtype")
    assert [names for names, _ in groups] == [
        ["first-wins"],
        ["last-wins", "also-last"],
    ]


def _nested(levels: int) -> str:
    return "[" * levels + '"deep"' + "]" * levels


def test_decode_keeps_shallow_values_and_summarises_deep_ones() -> None:
    assert probe.decode('{"a": [[1]], "b": "[[[{"}') == {"a": [[1]], "b": "[[[{"}
    value = probe.decode('{"m": ' + _nested(100_000) + ', "after": 1}')
    assert value["after"] == 1
    inner = value["m"]
    for _ in range(probe.MAX_DEPTH - 1):  # the object is the first level
        (inner,) = inner
    assert isinstance(inner, str)
    assert inner.startswith(f"<JSON nested {100_000 - probe.MAX_DEPTH + 1} levels")
    # deep content is still compared: a different deep value, a different summary
    other = probe.decode('{"m": ' + _nested(100_001) + ', "after": 1}')
    assert other != value


@pytest.mark.parametrize(
    "text", ["[" * 300, "[" * 300 + "]" * 299, '{"a": "unterminated'], ids=str.__len__
)
def test_decode_still_refuses_text_that_is_not_json(text: str) -> None:
    with pytest.raises(ValueError, match=r"never closed|Expecting|Unterminated"):
        probe.decode(text)


DEEP_ANSWER = """#!{python}
import sys
deep = "[" * 100000 + '"x"' + "]" * 100000
if sys.argv[1].endswith("not_json.safetensors"):
    print("Segmentation fault? no: just not JSON")
    sys.exit(0)
print('{{"result": "accepted", "metadata": {{"echo": ' + deep + '}}, "tensors": '
      '{{"t": {{"dtype": "U8", "shape": [1], "hex": "01"}}}}}}')
"""


def test_a_command_echoing_content_100000_levels_deep_was_accepted(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # a cmd: implementation whose program is a script in a scratch environment
    monkeypatch.setenv("STSPEC_MATRIX_DIR", str(tmp_path))
    program = tmp_path / "deep-echo" / "bin" / "deep-echo"
    program.parent.mkdir(parents=True)
    program.write_text(DEEP_ANSWER.format(python=sys.executable))
    program.chmod(0o755)
    impl = replace(by_name("hf-rust-0.8.0"), name="deep-echo", wrapper="deep-echo")
    files = [str(tmp_path / "x.safetensors"), str(tmp_path / "not_json.safetensors")]
    answers = probe.probe_cmd(impl, files)
    deep = answers[files[0]]
    assert deep["result"] == "accepted"
    assert deep["tensors"] == {"t": ["U8", [1], hashlib.sha256(b"\x01").hexdigest()]}
    assert "levels below depth" in json.dumps(deep["metadata"])
    json.dumps(deep, indent=1)  # what results/NAME.json does with it
    assert answers[files[1]]["result"] == "invalid-output"


DEEP_WRAPPER = """
def load(path):
    deep = "x"
    for _ in range(100_000):
        deep = [deep]
    return {"t": ("U8", [1], b"\\x01")}, {"echo": deep}
"""


def test_a_python_reader_echoing_content_100000_levels_deep_was_accepted(
    tmp_path: Path,
) -> None:
    wrapper = tmp_path / "deep_wrapper.py"
    wrapper.write_text(DEEP_WRAPPER)
    # probe= takes a file under matrix/wrappers/; an absolute path replaces that
    impl = replace(by_name("reference"), probe=str(wrapper))
    answers = probe.probe(
        impl, [FILES / "y_dtype_f32_values.safetensors"], python=Path(sys.executable)
    )
    answer = answers["y_dtype_f32_values"]
    assert answer["result"] == "accepted"
    assert answer["metadata"] == "<nested too deep for json.dumps>"
    assert answer["tensors"]["t"][:2] == ["U8", [1]]


VALID_CASE = {
    "id": "y_x",
    "verdict": "valid",
    "rules": [],
    "expected": {
        "metadata": None,
        "tensors": {"a": {"dtype": "F32", "shape": ["1"], "sha256": "aa"}},
    },
}


def test_what_a_valid_case_states_compares_with_what_readers_loaded() -> None:
    stated = probe.stated(VALID_CASE)
    assert stated == _answer(a=["F32", [1], "aa"])
    assert not probe.differs(stated, _answer(a=["F32", [1], "aa"]))
    assert probe.differs(stated, _answer(a=["F32", [1], "bb"]))
    assert probe.stated({**VALID_CASE, "verdict": "invalid"}) is None


def test_a_differential_on_a_valid_file_names_the_group_that_loaded_it_right() -> None:
    results = [
        _result("right", _answer(a=["F32", [1], "aa"]), case="y_x"),
        _result("wrong", _answer(a=["U8", [1], "aa"]), case="y_x"),
    ]
    text = render_md.render_markdown(results, [VALID_CASE])
    assert "  - right: 'a' F32[1] aa (as the valid file states)" in text
    assert "  - wrong: 'a' U8[1] aa\n" in text
    assert "(as the valid file states)" in render_html.render_html(
        results, [VALID_CASE]
    )


def _probe_module() -> ModuleType:
    path = REPO / "matrix" / "wrappers" / "_probe.py"
    spec = importlib.util.spec_from_file_location("probe_under_test", path)
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


class _NoShape:
    """A wrapper whose reader loads {"a":{}} as a tensor without a shape."""

    @staticmethod
    def load(_path: str) -> tuple[dict[str, tuple[object, ...]], None]:
        return {"a": (None, None)}, None


class _Broken:
    @staticmethod
    def load(_path: str) -> tuple[dict[str, tuple[object, ...]], None]:
        raise MemoryError


def test_an_answer_that_is_not_tensors_is_invalid_output_not_a_crash() -> None:
    probe_file = _probe_module()
    answer = probe_file.probe(_NoShape, "x.safetensors")
    assert answer["result"] == "invalid-output"
    assert "NoneType" in answer["error"]
    assert probe_file.probe(_Broken, "x.safetensors")["result"] == "crashed"


def _declaring(dtypes: list[str], probed: dict[str, str]) -> dict[str, object]:
    return {
        "implementation": {"described": {"capabilities": {"read_dtypes": dtypes}}},
        "probe": {case: {"result": result} for case, result in probed.items()},
    }


_DTYPE_CASES: dict[str, dict[str, object]] = {
    "y_c64": {"verdict": "valid", "tags": ["dtype", "dtype:C64"]},
    "y_f32_a": {"verdict": "valid", "tags": ["dtype:F32"]},
    "y_f32_b": {"verdict": "valid", "tags": ["dtype:F32"]},
    "y_mixed": {"verdict": "valid", "tags": ["dtype:F32", "dtype:C64"]},
    "n_c64": {"verdict": "invalid", "tags": ["dtype:C64"]},
}


def test_a_declared_dtype_the_library_refuses_is_named() -> None:
    probed = {"y_c64": "rejected", "y_f32_a": "rejected", "y_f32_b": "accepted",
              "y_mixed": "accepted", "n_c64": "accepted"}  # fmt: skip
    got = probe.declared_but_refused(_declaring(["C64", "F32"], probed), _DTYPE_CASES)
    # F32 is read (one of its files was accepted); only C64's one file tells
    assert got == {"C64": ["y_c64"]}
    # an undeclared dtype it refuses is no contradiction
    assert probe.declared_but_refused(_declaring(["F32"], probed), _DTYPE_CASES) == {}
