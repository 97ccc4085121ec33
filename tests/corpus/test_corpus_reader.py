"""Every case agrees with the strict reference reader (verdict, rules, content)."""

from __future__ import annotations

import dataclasses
import hashlib
import json
from pathlib import Path

import pytest

import stspec
import stspec_corpus
from stspec_corpus import _lint, _registry
from stspec_corpus._large import SHA256_ZEROS_2POW32, sha256_of_zeros
from stspec_corpus._model import Case
from stspec_corpus._recipes import run

CORPUS = Path(__file__).resolve().parents[2] / "corpus"
FILE_CASES = [case for case in stspec_corpus.all_cases() if case.data is not None]
RECIPE_CASES = [case for case in stspec_corpus.all_cases() if case.recipe is not None]
# the densest header has its own, cheaper content check in test_dense_header
DENSE = "y_layout_dense_header_at_limit"


@pytest.mark.parametrize("case", FILE_CASES, ids=lambda case: case.id)
def test_file_case_agrees_with_reference(case: Case) -> None:
    assert _lint.lint_case(case, CORPUS / "files" / f"{case.id}.safetensors") == []


@pytest.mark.parametrize(
    "case", [c for c in RECIPE_CASES if c.id != DENSE], ids=lambda case: case.id
)
def test_recipe_case_materialises_and_agrees(case: Case, tmp_path: Path) -> None:
    path = stspec_corpus.materialise(case.id, tmp_path)
    assert path == tmp_path / f"{case.id}.safetensors"
    assert path.stat().st_size == case.size
    if case.sha256 is not None:
        digest = hashlib.sha256()
        with path.open("rb") as handle:
            for chunk in iter(lambda: handle.read(1 << 22), b""):
                digest.update(chunk)
        assert digest.hexdigest() == case.sha256
    assert _lint.lint_case(case, path) == []


def test_unhashed_recipes_are_deterministic() -> None:
    # Recipes with a sha256 are checked against it above; the rest run twice.
    for case in RECIPE_CASES:
        if case.sha256 is None:
            assert case.recipe is not None
            first = run(case.recipe.name, case.recipe.params)
            assert first == run(case.recipe.name, case.recipe.params), case.id
            assert first.size == case.size


def test_recipe_plans_are_the_recipe_cases_own() -> None:
    # materialise() runs a recipe case's plan alone; all_cases() checks the
    # plans against the cases, and a plan that drifts from its case fails it
    _registry.check_plans(stspec_corpus.all_cases())
    case = next(c for c in RECIPE_CASES if c.id == "y_layout_50000_tensors")
    assert case.recipe is not None
    drifted = stspec_corpus.Recipe(
        case.recipe.name, {"count": 49_999}, case.size, case.sha256
    )
    with pytest.raises(ValueError, match=r"differ from their cases: \['y_layout_50000"):
        _registry.check_plans(
            dataclasses.replace(c, recipe=drifted) if c is case else c
            for c in RECIPE_CASES
        )
    with pytest.raises(ValueError, match=r"differ from their cases: \['y_layout_50000"):
        _registry.check_plans(c for c in RECIPE_CASES if c is not case)


def test_sparse_recipe_costs_no_disk(tmp_path: Path) -> None:
    path = stspec_corpus.materialise("y_layout_offsets_beyond_4gib", tmp_path)
    assert path.stat().st_size > 2**32
    allocated = getattr(path.stat(), "st_blocks", 0) * 512
    assert allocated < 1 << 20
    with stspec.read(path) as loaded:
        assert loaded.tensors["tail"].begin == 2**32
        assert bytes(loaded.tensor_bytes("tail")) == bytes(range(1, 9))


def test_sha256_of_2pow32_zero_bytes() -> None:
    assert sha256_of_zeros(2**32) == SHA256_ZEROS_2POW32


def test_materialise_writes_file_cases_too(tmp_path: Path) -> None:
    path = stspec_corpus.materialise("n_layout_hole_between_tensors", tmp_path / "sub")
    committed = CORPUS / "files" / "n_layout_hole_between_tensors.safetensors"
    assert path.read_bytes() == committed.read_bytes()
    with pytest.raises(KeyError):
        stspec_corpus.materialise("n_no_such_case", tmp_path)


def test_summarised_expectation_is_recoverable() -> None:
    data = json.loads((CORPUS / "manifest.json").read_text("utf-8"))
    entry = next(e for e in data["cases"] if e["id"] == "y_layout_50000_tensors")
    full = stspec_corpus.expected_of("y_layout_50000_tensors")
    assert full is not None
    tensors = full["tensors"]
    assert isinstance(tensors, dict)
    assert len(tensors) == entry["expected"]["tensor_count"] == 50_000
    # The schema's definition, restated: what any reader loads, no JSON form.
    lines = sorted(
        f"{name.encode().hex()} {t['dtype']} {','.join(t['shape'])} {t['sha256']}\n"
        for name, t in tensors.items()
    )
    digest = hashlib.sha256("".join(lines).encode("ascii")).hexdigest()
    assert digest == entry["expected"]["tensors_sha256"]
    assert stspec_corpus.expected_of("n_layout_hole_between_tensors") is None


def test_lint_reports_a_disagreement(tmp_path: Path) -> None:
    case = stspec_corpus.case_by_id("n_layout_hole_between_tensors")
    wrong = Case(case.id, ("LAYOUT-OVERLAP",), case.description, case.tags, case.data)
    path = stspec_corpus.materialise(case.id, tmp_path)
    (problem,) = _lint.lint_case(wrong, path)
    assert "validate reports ['LAYOUT-HOLE']" in problem
    valid = stspec_corpus.case_by_id("y_dtype_f32_values")
    assert valid.expected is not None
    tensor = valid.expected.tensors["t"]
    changed = type(tensor)(
        tensor.dtype, tensor.shape, tensor.nbytes, tensor.sha256, ("1.0",) * 11
    )
    broken = Case(
        valid.id,
        valid.rules,
        valid.description,
        valid.tags,
        valid.data,
        expected=type(valid.expected)(None, {"t": changed}),
    )
    path = stspec_corpus.materialise(valid.id, tmp_path)
    (problem,) = _lint.lint_case(broken, path)
    assert "values decode to" in problem


def test_manifest_expectations_match_the_reference() -> None:
    """The manifest's own JSON (not the generator's model) against stspec.read."""
    data = json.loads((CORPUS / "manifest.json").read_text("utf-8"))
    checked = 0
    for entry in data["cases"]:
        if entry["verdict"] != "valid" or "file" not in entry:
            continue
        expected = entry["expected"]
        with stspec.read(CORPUS / entry["file"]) as loaded:
            assert loaded.metadata == expected["metadata"], entry["id"]
            assert set(loaded.tensors) == set(expected["tensors"]), entry["id"]
            for name, want in expected["tensors"].items():
                info = loaded.tensors[name]
                got = bytes(loaded.tensor_bytes(name))
                assert info.dtype == want["dtype"], (entry["id"], name)
                assert [str(d) for d in info.shape] == want["shape"], (
                    entry["id"],
                    name,
                )
                assert len(got) == info.nbytes == want["nbytes"], (entry["id"], name)
                assert hashlib.sha256(got).hexdigest() == want["sha256"], (
                    entry["id"],
                    name,
                )
        checked += 1
    assert checked >= 80
