"""Every rule an invalid case breaks is listed: also_breaks and the x_ class."""

from __future__ import annotations

from functools import cache

import pytest
from literal_rules import EVALUATED, broken_rules

from stspec.dtypes import BITS
from stspec.rules import RULES_BY_ID
from stspec_corpus import all_cases
from stspec_corpus._model import Case, make


@cache
def invalid_file_cases() -> tuple[Case, ...]:
    return tuple(c for c in all_cases() if c.verdict == "invalid" and c.data)


def test_also_breaks_is_every_further_rule_read_without_precedence() -> None:
    # The evaluator reads each rule statement on its own (SPEC 7's order of
    # the size rules included, which the section itself states).
    wrong = []
    for case in invalid_file_cases():
        assert case.data is not None
        found = broken_rules(case.data, dict(BITS))
        listed = set(case.rules) & EVALUATED
        further = found - set(case.rules)
        if not listed <= found or further != set(case.also_breaks):
            wrong.append((case.id, case.rules, case.also_breaks, sorted(found)))
    assert wrong == []


def test_many_n_files_break_a_rule_of_a_later_group_and_say_so() -> None:
    flagged = [c.id for c in invalid_file_cases() if c.also_breaks]
    assert len(flagged) >= 34, flagged
    assert all(c.id[0] in "nx" for c in all_cases() if c.also_breaks)


def test_x_cases_name_every_must_rule_of_their_first_group() -> None:
    multi = [c for c in all_cases() if c.multi_fault]
    assert len(multi) >= 2
    for case in multi:
        assert case.verdict == "invalid"
        assert len(case.rules) >= 2, case.id
        assert all(RULES_BY_ID[r].level == "MUST" for r in case.rules), case.id
        assert case.provenance.kind == "bug-report", case.id
        assert case.provenance.ref is not None
        assert case.provenance.ref in case.description, case.id


@pytest.mark.parametrize(
    ("case_id", "rules", "also"),
    [
        ("n_a", ["LAYOUT-HOLE", "LAYOUT-OVERLAP"], []),  # n_ with two rules
        ("x_layout_a", ["LAYOUT-HOLE"], []),  # x_ with one rule
        ("x_layout_a", ["LAYOUT-HOLE", "HEADER-PADDING"], []),  # x_ with a MAY rule
        ("y_layout_a", ["LAYOUT-HOLE"], ["LAYOUT-TRAILING"]),  # y_ breaking rules
        ("n_layout_a", ["LAYOUT-HOLE"], ["LAYOUT-HOLE"]),  # a repeated rule
    ],
)
def test_the_builder_refuses_a_wrong_fault_count(
    case_id: str, rules: list[str], also: list[str]
) -> None:
    with pytest.raises(ValueError, match=case_id):
        make(case_id, rules, "a case", data=b"", also_breaks=also)


def test_reports_name_their_upstream_issue() -> None:
    reports = {
        c.provenance.ref: c.id
        for c in all_cases()
        if c.provenance.kind == "bug-report" and c.provenance.ref
    }
    for ref in (
        "gomlx/go-huggingface#57",
        "google-ai-edge/LiteRT#9254",
        "kekzl/imp#1603",
        "huggingface/safetensors#808",
        "tensorflow/tensorflow#116632",
    ):
        assert ref in reports, ref
        assert ref in next(c for c in all_cases() if c.id == reports[ref]).description
