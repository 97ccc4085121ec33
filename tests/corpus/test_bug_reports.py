"""Every public report of a safetensors parser bug maps to cases that catch it.

docs/data/parser-bug-reports.json is the table docs/reference/corpus.md shows:
each report, the bug, and the corpus cases a reader with that bug fails.
"""

from __future__ import annotations

import json
import re
from functools import cache
from pathlib import Path
from typing import Any

import pytest

import stspec
from stspec_corpus import all_cases

TABLE = (
    Path(__file__).resolve().parents[2] / "docs" / "data" / "parser-bug-reports.json"
)
_CASE = re.compile(r"`([nx]_[a-z0-9_]+)`")
# the reports no case caught before the cases that cite them
NEW = {"gomlx/go-huggingface#57", "google-ai-edge/LiteRT#9254", "kekzl/imp#1603"}
_LINK = re.compile(
    r"^\[([\w.-]+/[\w.-]+#\d+)\]\(https://github\.com/([\w.-]+/[\w.-]+)/"
)


@cache
def rows() -> list[list[Any]]:
    table: dict[str, Any] = json.loads(TABLE.read_text("utf-8"))
    return list(table["rows"])


def cases_of(row: list[Any]) -> list[str]:
    return _CASE.findall(str(row[3]))


def test_fourteen_reports_each_with_a_link_and_cases() -> None:
    assert len(rows()) == 14
    for row in rows():
        match = _LINK.match(str(row[0]))
        assert match, row[0]
        assert match.group(1).split("#")[0] == match.group(2), row[0]
        assert cases_of(row), row[0]


def test_every_case_is_an_invalid_corpus_case_the_reference_rejects() -> None:
    by_id = {case.id: case for case in all_cases()}
    for row in rows():
        for case_id in cases_of(row):
            case = by_id[case_id]
            assert case.verdict == "invalid", case_id
            if case.data is not None:
                assert stspec.validate(case.data), case_id


def test_reports_behind_new_cases_are_their_provenance() -> None:
    by_id = {case.id: case for case in all_cases()}
    for row in rows():
        report = _LINK.match(str(row[0])).group(1)  # type: ignore[union-attr]
        cited = [c for c in cases_of(row) if by_id[c].provenance.ref == report]
        if report in NEW:
            assert cited, report


def test_hf_rejects_every_case() -> None:
    safetensors = pytest.importorskip("safetensors")
    by_id = {case.id: case for case in all_cases()}
    accepted = []
    for row in rows():
        for case_id in cases_of(row):
            data = by_id[case_id].data
            if data is None:
                continue  # a recipe: its HEADER-LIMIT fault is refused before reading
            try:
                safetensors.deserialize(data)
            except Exception:  # noqa: BLE001, S112 - any rejection counts
                continue
            accepted.append(case_id)
    assert accepted == []
