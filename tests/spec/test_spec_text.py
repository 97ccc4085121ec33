"""SPEC.md as a standard: terminology, grammar, references, upstream record."""

from __future__ import annotations

import json
import re
import struct
from functools import cache

import pytest
from abnf.parser import ParseError, Rule
from test_spec import SPEC_DIR, spec_text

MANIFEST = SPEC_DIR.parent / "corpus" / "manifest.json"
GRAMMAR_LIMIT = 2000  # characters: the ABNF parser backtracks, so keep inputs short


def section(heading: str) -> str:
    return spec_text().split(f"\n{heading}\n", 1)[1].split("\n#", 1)[0]


def test_terminology_defines_the_terms_and_a_conforming_file() -> None:
    terms = section("### 1.2 Terminology")
    for term in (
        "*safetensors file*",
        "*header*",
        "*byte buffer*",
        "*tensor entry*",
        "*tensor*",
        "*metadata*",
        "*reader*",
        "*accepts*",
        "*rejects*",
        "*writer*",
        "*conforming file*",
        "*implementation limit*",
        "*precedence group*",
    ):
        assert term in terms, term
    assert "A *conforming file* is a\n  valid file" in terms


class _Header(Rule):
    """The grammar of SPEC §3.1, loaded from the spec text."""


@cache
def grammar() -> type[Rule]:
    block = section("### 3.1 Grammar").split("```abnf\n", 1)[1].split("```", 1)[0]
    for line in block.splitlines():
        _Header.create(line)
    return _Header


def matches(rule: str, text: str) -> bool:
    try:
        grammar()(rule).parse_all(text)
    except ParseError:
        return False
    return True


@pytest.mark.parametrize(
    ("token", "ok"),
    [
        ("0", True),
        ("18446744073709551615", True),
        ("99999999999999999999", True),  # 20 digits: NUM-RANGE, not the grammar
        ("01", False),
        ("-0", False),
        ("1.0", False),
        ("4e0", False),
        ("123456789012345678901", False),
    ],
)
def test_the_u64_token(token: str, ok: bool) -> None:
    assert matches("u64-token", token) is ok


def _headers() -> list[tuple[str, str, list[str]]]:
    cases = json.loads(MANIFEST.read_text("utf-8"))["cases"]
    out = []
    for case in cases:
        if "file" not in case:
            continue
        data = (SPEC_DIR.parent / "corpus" / case["file"]).read_bytes()
        if len(data) < 8:
            continue
        (length,) = struct.unpack_from("<Q", data)
        if length > GRAMMAR_LIMIT or 8 + length > len(data):
            continue
        try:
            text = data[8 : 8 + length].decode("utf-8")
        except UnicodeDecodeError:
            continue
        out.append((case["id"], text, case["rules"]))
    return out


def test_the_grammar_decides_the_corpus_text_cases() -> None:
    checked = 0
    text_rules = {"JSON-SYNTAX", "HEADER-OBJECT", "HEADER-TRAILING"}
    for case_id, text, rules in _headers():
        if case_id.startswith("y_"):
            assert matches("header", text), case_id
        elif case_id.startswith("i_text"):
            assert not matches("header", text), case_id
            assert matches("tolerated-header", text), case_id
        elif case_id.startswith("n_") and rules[0] in text_rules:
            assert not matches("tolerated-header", text), case_id
        else:
            continue
        checked += 1
    assert checked > 150


def test_references_are_split_and_dtypes_rest_on_standards() -> None:
    references = section("### 1.7 References")
    normative, informative = references.split("**Informative references.**")
    assert "**Normative references.**" in normative
    for document in (
        "RFC 8174",
        "RFC 5234",
        "IEEE 754-2019",
        "OCP 8-bit Floating Point Specification (OFP8)",
        "OCP Microscaling Formats (MX) Specification",
    ):
        assert document in normative, document
    for label in ("[README]", "[FORMAT-NOTES]", "ml_dtypes", "arXiv:2206.02915"):
        assert label in informative, label
        assert label not in normative, label
    dtypes = section("## 6 Dtypes")
    assert "IEEE 754-2019" in dtypes
    assert "OFP8 1.0" in dtypes
    assert "MX 1.0" in dtypes
    assert "which\ndefines them bit for bit" not in dtypes


def test_upstream_is_cited_at_pinned_commits_under_its_new_home() -> None:
    references = section("### 1.7 References")
    assert "https://github.com/safetensors/safetensors" in references
    assert "as of 2026" not in references
    commits = re.findall(r"`([0-9a-f]{40})`", references)
    assert len(commits) >= 2
    assert "huggingface/safetensors/pull" not in spec_text()


def test_open_upstream_proposals_and_32_bit_platforms_are_recorded() -> None:
    open_questions = section("### 14.6 Open questions")
    assert "#695" in open_questions
    assert "`LAYOUT-HOLE`" in open_questions
    assert "#850" in open_questions
    assert "#389" in section("### 14.3 How a dtype is added")
    # Appendix A, the HF deviations, is a companion page of the spec
    page = (SPEC_DIR.parent / "docs" / "spec" / "hf-releases.md").read_text("utf-8")
    appendix = page.split("\n## Reader\n", 1)[1].split("\n## Writer\n", 1)[0]
    assert "32-bit platforms" in appendix
    assert "win32" in appendix


def test_conformance_classes_match_the_suites_declarations_one_to_one() -> None:
    from stspec_conformance._capabilities import KEYS  # noqa: PLC0415

    classes = section("### 1.5 Conformance classes")
    rows = [
        line.split(" | ")
        for line in classes.splitlines()
        if line.startswith("| **") and line.count(" | ") == 4
    ]
    assert len(rows) >= 7
    named: list[str] = []
    for row in rows:
        declared = re.findall(r"`(\w+)(?:: \w+)?`", row[-1])
        named += [key for key in declared if key != "save"]
    missing = set(KEYS) - set(named)
    assert not missing, f"add a conformance class row to SPEC 1.5 for {missing}"
    assert sorted(named) == sorted(KEYS), named
    assert "nothing: the defaults" in rows[0][-1]


# --- what moved to companion pages --------------------------------------------


def test_the_normative_text_is_no_api_manual() -> None:
    # the reference's Python API and command are documented in docs/reference;
    # SPEC.md names the project's files and its generator, never stspec's API
    api = re.findall(r"(?<![\w/])stspec(?![\w/])[^\n]{0,30}", spec_text())
    assert api == []
    assert "SafetensorsError" not in spec_text()


def test_the_api_page_gives_the_reported_offset_of_every_reader_rule() -> None:
    from stspec.rules import RULES  # noqa: PLC0415

    page = (SPEC_DIR.parent / "docs" / "reference" / "python-api.md").read_text("utf-8")
    table = page.split("\n## How a violation is reported\n", 1)[1].split("\n## ", 1)[0]
    covered: set[str] = set()
    for row in table.splitlines()[1:]:
        if not row.startswith("| ") or row.startswith(("| rule ", "|---")):
            continue
        for token in re.findall(r"`([A-Z][A-Z0-9-]*\*?)`", row.split(" | ")[0]):
            named = {
                rule.id
                for rule in RULES
                if rule.id == token
                or (token.endswith("*") and rule.id.startswith(token[:-1]))
            }
            assert named, token
            covered |= named
    assert covered == {rule.id for rule in RULES if rule.scope == "reader"}
    assert "123-how-the-strict-reference-reports-a-violation-informative" in page
    pointer = section(
        "### 12.3 How the strict reference reports a violation (informative)"
    )
    assert "](../docs/reference/python-api.md#how-a-violation-is-reported)" in pointer
