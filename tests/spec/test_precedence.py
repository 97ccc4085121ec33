"""Rule precedence (SPEC §12.1): normative, followed by the steps, the corpus,
the reference and a reader written from the steps alone."""

from __future__ import annotations

import mmap
import re
import struct
from functools import cache
from typing import TYPE_CHECKING

import pytest
from literal_reader import read

import stspec
from stspec.rules import RULES, RULES_BY_ID
from stspec_corpus import all_cases, materialise

if TYPE_CHECKING:
    from pathlib import Path


from test_spec import rule_definitions, spec_text

_ID = re.compile(r"`([A-Z][A-Z0-9]*(?:-[A-Z0-9]+)+)`")


def section(title: str) -> str:
    return spec_text().split(f"\n### {title}\n", 1)[1].split("\n#", 1)[0]


@cache
def groups() -> dict[str, int]:
    """Rule id -> its precedence group (1-6), as §12.1's numbered list states."""
    sections = {entry[0]: entry[4] for entry in rule_definitions()}
    found: dict[str, int] = {}
    items = re.findall(r"^(\d)\. (.+?)(?=^\d\. |^$)", section("12.1 Rule precedence"),
                       re.MULTILINE | re.DOTALL)  # fmt: skip
    for number, text in items:
        named = set(_ID.findall(text))
        for numbers in re.findall(r"the rules of (§[\d, §and]+)", text):
            wanted = set(re.findall(r"§(\d+)", numbers))
            named |= {
                rule.id
                for rule in RULES
                if rule.scope == "reader" and sections[rule.id] in wanted
            }
        for rule_id in named:
            if rule_id in found and found[rule_id] != int(number):
                raise AssertionError(
                    f"{rule_id} is in groups {found[rule_id]} and {number}"
                )
            found.setdefault(rule_id, int(number))
    return found


def test_every_must_reader_rule_has_exactly_one_precedence_group() -> None:
    must = {r.id for r in RULES if r.scope == "reader" and r.level == "MUST"}
    named = groups()
    assert must <= set(named), must - set(named)
    assert [named[r] for r in ("FILE-PREFIX", "HEADER-LIMIT", "HEADER-BOUNDS")] == [
        1,
        2,
        3,
    ]
    assert named["HEADER-UTF8"] == 4
    assert named["LAYOUT-BOUNDS"] == named["JSON-SYNTAX"] == 5
    assert {named[r] for r in ("LAYOUT-HOLE", "LAYOUT-OVERLAP", "LAYOUT-TRAILING")} == {
        6
    }


def test_the_steps_reach_the_groups_in_precedence_order() -> None:
    steps = section("12.2 Steps")
    order = [
        rule_id
        for rule_id in _ID.findall(steps)
        if rule_id in RULES_BY_ID and RULES_BY_ID[rule_id].level == "MUST"
    ]
    must = {r for r in groups() if RULES_BY_ID[r].level == "MUST"}
    assert set(order) == must, must ^ set(order)
    ranks = [groups()[rule_id] for rule_id in order]
    assert ranks == sorted(ranks), list(zip(order, ranks, strict=True))


def test_read_precedence_is_a_rule_that_cites_the_groups() -> None:
    rule = RULES_BY_ID["READ-PRECEDENCE"]
    assert (rule.level, rule.scope) == ("SHOULD", "processing")
    assert "§12.1" in rule.statement
    assert "does\nnot fix which violation" not in spec_text()


# A character-level pure-Python parser needs about a minute of CPU for the
# 1.8 million entries of the densest header; its verdict is the same kind as
# y_layout_50000_tensors', which is read.
SLOW = frozenset({"y_layout_dense_header_at_limit"})


@pytest.mark.slow  # the whole corpus through a second reader: 7 CPU-s
@pytest.mark.no_cover  # a reader of the tests' own: nothing of stspec to cover
def test_a_reader_following_the_steps_passes_check_rules_on_the_corpus(
    tmp_path: Path,
) -> None:
    wrong = []
    for case in all_cases():
        if case.id in SLOW:
            continue
        if case.data is not None:
            result = read(case.data)
        else:
            path = materialise(case.id, tmp_path)
            with (
                path.open("rb") as handle,
                mmap.mmap(handle.fileno(), 0, access=mmap.ACCESS_READ) as mapped,
            ):
                result = read(mapped)  # type: ignore[arg-type]
            path.unlink()
        # --check-rules: an n_ case is rejected naming a rule it lists
        if case.verdict == "invalid":
            ok = result.rule in case.rules
        else:
            ok = result.verdict == case.verdict
        if not ok:
            wrong.append((case.id, case.rules, result.rule, result.tolerated))
    assert wrong == []


def _file(header: str, data: bytes = b"") -> bytes:
    raw = header.encode()
    return struct.pack("<Q", len(raw)) + raw + data


_F32 = '"dtype":"F32","shape":[1],"data_offsets":[0,4]'
# Files breaking rules of several groups, or several rules of one group.
MULTI = {
    "leading-ws-then-trailing-junk": _file(" {}x"),
    "whitespace-only": _file("        "),
    "trailing-junk-after-bad-dtype": _file(
        '{"a":{"dtype":"X","shape":[1],"data_offsets":[0,4]}} x', bytes(4)
    ),
    "fraction-then-duplicate": _file(
        '{"a":{"dtype":"F32","shape":[1.5],"data_offsets":[0,4]},"a":{' + _F32 + "}}",
        bytes(4),
    ),
    "out-of-bounds-then-bad-dtype": _file(
        '{"a":{"dtype":"F32","shape":[100],"data_offsets":[0,400]},'
        '"b":{"dtype":"Q","shape":[1],"data_offsets":[4,8]}}',
        bytes(8),
    ),
    "reversed-pair-of-wrong-size": _file(
        '{"a":{"dtype":"F32","shape":[3],"data_offsets":[4,0]}}', bytes(4)
    ),
    "limit-and-bounds": struct.pack("<Q", 2**64 - 1) + b"{}",
    "utf8-and-no-object": _file("  ") + b"\xff",
    "missing-offsets-leaves-bytes-uncovered": _file(
        '{"a":{"dtype":"F32","shape":[1]}}', bytes(4)
    ),
}


def _reference_rule(data: bytes) -> str | None:
    try:
        with stspec.read(data):
            return None
    except stspec.SafetensorsError as error:
        return error.rule


@pytest.mark.parametrize("name", MULTI)
def test_reference_and_steps_name_a_must_rule_of_the_first_group(name: str) -> None:
    data = MULTI[name]
    reference, steps = _reference_rule(data), read(data).rule
    assert reference is not None
    assert steps is not None
    for rule_id in (reference, steps):
        assert RULES_BY_ID[rule_id].level == "MUST", (reference, steps)
    assert groups()[reference] == groups()[steps], (reference, steps)
    broken = {error.rule for error in stspec.validate(data, limit=None)}
    first = min(groups()[r] for r in broken if RULES_BY_ID[r].level == "MUST")
    assert groups()[steps] == first, (steps, broken)
