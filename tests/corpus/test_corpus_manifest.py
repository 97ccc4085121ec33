"""corpus/: the manifest, its schema, the files, and reproducibility."""

from __future__ import annotations

import json
import shutil
from functools import cache
from pathlib import Path
from typing import Any

import jsonschema  # type: ignore[import-untyped]

import stspec_corpus
from stspec.dtypes import DTYPES
from stspec.rules import RULES_BY_ID
from stspec_corpus import _lint

CORPUS = Path(__file__).resolve().parents[2] / "corpus"


@cache
def manifest() -> dict[str, Any]:
    data: dict[str, Any] = json.loads((CORPUS / "manifest.json").read_text("utf-8"))
    return data


def entries() -> list[dict[str, Any]]:
    return list(manifest()["cases"])


def test_schema_is_draft_2020_12() -> None:
    schema = json.loads((CORPUS / "manifest.schema.json").read_text("utf-8"))
    assert schema["$schema"] == "https://json-schema.org/draft/2020-12/schema"
    jsonschema.Draft202012Validator.check_schema(schema)


def test_manifest_validates_against_its_schema() -> None:
    assert _lint.lint_schema(CORPUS) == []


def test_schema_rejects_a_bad_entry() -> None:
    schema = json.loads((CORPUS / "manifest.schema.json").read_text("utf-8"))
    validator = jsonschema.Draft202012Validator(schema)
    good = next(e for e in entries() if e["id"] == "n_layout_hole_between_tensors")
    bad_cases = [
        {**good, "id": "y_layout_hole_between_tensors"},  # prefix vs verdict
        {**good, "rules": ["LAYOUT-HOLE", "LAYOUT-OVERLAP"]},  # n_ with two rules
        {**good, "id": "x_layout_hole_between_tensors"},  # x_ with one rule
        {**good, "also_breaks": ["HEADER-PADDING"]},  # a MAY rule
        {  # a valid case cannot break rules
            **next(e for e in entries() if e["id"].startswith("y_")),
            "also_breaks": ["LAYOUT-HOLE"],
        },
        {**good, "rules": ["WRITE-VALID"]},  # a writer rule
        {**good, "expected": {"metadata": None, "tensors": {}}},  # n_ with content
        {**good, "recipe": {"name": "sparse", "params": {}}},  # file and recipe
        {**good, "provenance": {"kind": "bug-report"}},  # a report without ref
    ]
    for bad in bad_cases:
        errors = list(validator.iter_errors({**manifest(), "cases": [bad]}))
        assert errors, bad
    assert not list(validator.iter_errors({**manifest(), "cases": [good]}))


def test_top_level_fields() -> None:
    data = manifest()
    assert data["version"] == stspec_corpus.__version__
    assert data["spec"]
    assert [e["id"] for e in entries()] == sorted(e["id"] for e in entries())


def test_entries_agree_with_ids_verdicts_rules_and_files() -> None:
    assert _lint.lint_entries(CORPUS) == []


def test_totals_size_and_distinct_files() -> None:
    assert _lint.lint_totals(CORPUS) == []
    assert len(entries()) >= 200
    assert _lint.committed_size(CORPUS) < 5 * 1024 * 1024


def test_committed_corpus_equals_a_fresh_generation() -> None:
    assert stspec_corpus.check(CORPUS) == []


def test_check_reports_every_kind_of_difference(tmp_path: Path) -> None:
    copy = tmp_path / "corpus"
    shutil.copytree(CORPUS / "files", copy / "files")
    for name in ("manifest.json", "manifest.schema.json"):
        shutil.copy(CORPUS / name, copy / name)
    assert stspec_corpus.check(copy) == []
    flipped = copy / "files" / "y_prefix_smallest_file.safetensors"
    flipped.write_bytes(flipped.read_bytes()[:-1] + b"]")
    (copy / "files" / "n_layout_trailing_one_byte.safetensors").unlink()
    (copy / "files" / "x_stale.safetensors").write_bytes(b"")
    with (copy / "manifest.json").open("a", encoding="utf-8") as handle:
        handle.write(" ")
    problems = stspec_corpus.check(copy)
    assert problems == [
        "manifest.json: differs from a fresh generation",
        "files/x_stale.safetensors: not generated (stale)",
        "files/n_layout_trailing_one_byte.safetensors: missing",
        "files/y_prefix_smallest_file.safetensors: differs from a fresh generation",
    ]


def test_generate_removes_stale_files(tmp_path: Path) -> None:
    (tmp_path / "files").mkdir()
    (tmp_path / "files" / "n_gone.safetensors").write_bytes(b"x")
    stspec_corpus.generate(tmp_path)
    assert not (tmp_path / "files" / "n_gone.safetensors").exists()
    assert stspec_corpus.check(tmp_path) == []


def test_tags_name_family_dtypes_and_size() -> None:
    for entry in entries():
        tags = set(entry["tags"])
        assert entry["id"].split("_")[1] in tags, entry["id"]
        assert ("large" in tags) == ("recipe" in entry), entry["id"]
        for tensor in entry.get("expected", {}).get("tensors", {}).values():
            assert f"dtype:{tensor['dtype']}" in tags, entry["id"]


def test_expected_content_only_for_accepted_cases() -> None:
    for entry in entries():
        assert ("expected" in entry) == (entry["verdict"] != "invalid"), entry["id"]


def test_rule_levels_by_verdict() -> None:
    for entry in entries():
        levels = {RULES_BY_ID[rule].level for rule in entry["rules"]}
        if entry["verdict"] == "invalid":
            # an n_ case names one rule, an x_ case every rule of its first group
            assert (len(entry["rules"]) == 1) == entry["id"].startswith("n_")
            assert levels == {"MUST"}
        if entry["verdict"] == "tolerated":
            assert levels == {"MAY"}


def test_every_dtype_has_a_valid_case_with_values() -> None:
    valued: dict[str, list[Any]] = {}
    for entry in entries():
        if entry["verdict"] != "valid":
            continue
        for tensor in entry["expected"].get("tensors", {}).values():
            if tensor.get("values"):
                valued.setdefault(tensor["dtype"], []).extend(tensor["values"])
    assert set(valued) == {dt.name for dt in DTYPES}
    specials = {"F16", "BF16", "F32", "F64", "F8_E5M2"}
    for name in specials:
        assert {"NaN", "Infinity", "-Infinity", "-0.0"} <= set(valued[name]), name
    for name in ("F8_E4M3", "F8_E8M0", "F8_E4M3FNUZ", "F8_E5M2FNUZ"):
        assert "NaN" in valued[name], name


def test_provenance_kinds() -> None:
    kinds = {entry["provenance"]["kind"] for entry in entries()}
    assert {"generator", "spec-example", "bug-report"} <= kinds
    refs = {entry["provenance"].get("ref") for entry in entries()}
    for ref in (
        "huggingface/safetensors#401",
        "huggingface/safetensors#849",
        "TOB-SFTN-7",
    ):
        assert ref in refs


def test_every_number_is_exact_in_a_parser_of_doubles() -> None:
    """JavaScript's JSON.parse keeps integers up to 2^53-1; floats never appear."""
    numbers: list[str] = []

    def number(token: str) -> int:
        numbers.append(token)
        return 0

    def no_float(token: str) -> float:
        raise AssertionError(f"a float in the manifest: {token}")

    json.loads(
        (CORPUS / "manifest.json").read_text("utf-8"),
        parse_int=number,
        parse_float=no_float,
    )
    assert numbers
    assert max(int(token) for token in numbers) <= 2**53 - 1
