"""matrix.probe: what a reader loaded, and how two readers differ."""

import sys
from pathlib import Path

import pytest
from matrix import probe, render
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


def test_differentials_group_readers_and_name_the_worst_difference() -> None:
    def result(name: str, answer: probe.Answer) -> dict[str, object]:
        return {"implementation": {"name": name}, "probe": {"n_x": answer}}

    results = [
        result("first-wins", _answer(a=["I32", [1], "aa"])),
        result("last-wins", _answer(a=["F32", [1], "aa"])),
        result("also-last", _answer(a=["F32", [1], None])),
        result("strict", {"result": "rejected"}),
    ]
    ((case, kind, groups),) = render.differentials(results)
    assert (case, kind) == ("n_x", "dtype")
    assert [names for names, _ in groups] == [
        ["first-wins"],
        ["last-wins", "also-last"],
    ]
