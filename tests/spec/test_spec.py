"""spec/SPEC.md and spec/header.schema.json agree with the rule registry."""

from __future__ import annotations

import json
import re
import struct
from functools import cache
from pathlib import Path

import jsonschema  # type: ignore[import-untyped]
import pytest

import stspec
from stspec import schema as _schema
from stspec.audit.shard_checks import SHARD_CHECKS, SHARD_CHECKS_BY_ID
from stspec.dtypes import DTYPES
from stspec.rules import RULES, RULES_BY_ID, U64_MAX

SPEC_DIR = Path(__file__).resolve().parents[2] / "spec"
SPEC_PATH = SPEC_DIR / "SPEC.md"
SCHEMA_PATH = SPEC_DIR / "header.schema.json"
CASES_PAGE = SPEC_DIR.parent / "docs" / "spec" / "corpus-cases.md"
SHARDS_PAGE = SPEC_DIR.parent / "docs" / "spec" / "sharded-checkpoints.md"
SEEDS = frozenset(
    {
        "safetensors-README-0.4.5.txt",
        "safetensors-README-recent.txt",
        "safetensors-README-zh.txt",
        "safetensors-format-structure.md",
    }
)

_ID = r"[A-Z][A-Z0-9]*(?:-[A-Z0-9]+)+"
_DEFINITION = re.compile(rf"^\*\*({_ID})\*\* \((\w+), (\w+)\) (.+)$")
_SECTION = re.compile(r"^## (\d+|Appendix [A-Z])\b")
_BACKTICKED = re.compile(r"`([^`\n]+)`")
_INDEX_ROW = re.compile(
    rf"^\| \[`({_ID})`\]\(#([a-z0-9-]+)\) \| (\w+) \| (\w+) \| (\w+) \| §(\d+) "
    r"\| (\d+) \|$",
    re.MULTILINE,
)
_ANCHOR = re.compile(r'^<a id="([a-z0-9-]+)"></a>$', re.MULTILINE)
_LINK = re.compile(r"\]\(#([^)]+)\)")
_HEADING_LINE = re.compile(r"^#{1,6} (.+)$", re.MULTILINE)
# A requirement: the word followed by a verb, not used as a noun ("a MUST rule").
_REQUIREMENT = re.compile(
    r"(?<![Aa] )(?<!the )(?<!to )(?<!from )(?<!one )"
    r"\b(MUST|SHOULD|MAY)\b(?! rules?\b)(?= (NOT )?[a-z])"
)
_REFERENCE_LABEL = re.compile(r"\[(README|README-0\.4\.5|README-zh|FORMAT-NOTES)\]")
_DTYPE_ROW = re.compile(r"^\| `(\w+)` \| (\d+) \| ([\d.]+) \|", re.MULTILINE)
_HEX_LINE = re.compile(r"^[0-9a-f]{8}  ((?:[0-9a-f]{2} ?)+?)\s*\|", re.MULTILINE)


@cache
def spec_text() -> str:
    return SPEC_PATH.read_text(encoding="utf-8")


@cache
def shards_text() -> str:
    return SHARDS_PAGE.read_text(encoding="utf-8")


@cache
def schema() -> dict[str, object]:
    loaded: dict[str, object] = json.loads(SCHEMA_PATH.read_text(encoding="utf-8"))
    return loaded


def definitions(
    text: str | None = None,
) -> list[tuple[str, str, str, str, str, list[str]]]:
    """Return (id, level, scope, statement, section, body paragraphs) per definition.

    The body is the paragraphs after the definition line, up to the next
    definition or heading.  ``text`` is SPEC.md unless given.
    """
    found = []
    section = ""
    current: tuple[str, str, str, str, str, list[str]] | None = None
    paragraph: list[str] = []

    def flush() -> None:
        if current is not None and paragraph:
            current[5].append(" ".join(paragraph))
        paragraph.clear()

    for line in (spec_text() if text is None else text).splitlines():
        heading = _SECTION.match(line)
        match = _DEFINITION.match(line)
        if heading or match or line.startswith("#"):
            flush()
            current = None
        if heading:
            section = heading.group(1)
        if match:
            rule_id, level, scope, statement = match.groups()
            current = (rule_id, level, scope, statement, section, [])
            found.append(current)
        elif line.startswith("<a id="):
            flush()
        elif current is not None and not line.startswith("#"):
            if line.strip():
                paragraph.append(line.strip())
            else:
                flush()
    flush()
    return found


def definitions_by_id() -> dict[str, tuple[str, str, str, str, str, list[str]]]:
    return {entry[0]: entry for entry in definitions()}


def rule_definitions() -> list[tuple[str, str, str, str, str, list[str]]]:
    """The definitions of format rules (set checks have the scope ``set``)."""
    return [entry for entry in definitions() if entry[2] != "set"]


def set_check_definitions() -> list[tuple[str, str, str, str, str, list[str]]]:
    """The shard checks' definitions, on the companion page of SPEC.md §13.2."""
    return [entry for entry in definitions(shards_text()) if entry[2] == "set"]


def worked_example() -> bytes:
    block = spec_text().split("### 2.1 Worked example", 1)[1].split("```", 2)[1]
    rows = _HEX_LINE.findall(block)
    return bytes.fromhex("".join(rows).replace(" ", ""))


def validator() -> jsonschema.Draft202012Validator:
    return jsonschema.Draft202012Validator(schema())


def entry(
    dtype: object = "F32", shape: object = (1,), offsets: object = (0, 4)
) -> dict[str, object]:
    shape = list(shape) if isinstance(shape, tuple) else shape
    offsets = list(offsets) if isinstance(offsets, tuple) else offsets
    return {"dtype": dtype, "shape": shape, "data_offsets": offsets}


def file_of(header: bytes, data: bytes = b"") -> bytes:
    return struct.pack("<Q", len(header)) + header + data


# --- SPEC.md against the registry ------------------------------------------


def test_spec_defines_every_registry_rule_exactly_once() -> None:
    defined = [entry[0] for entry in rule_definitions()]
    for rule in RULES:
        assert defined.count(rule.id) == 1, rule.id


def test_spec_defines_no_rule_outside_the_registry() -> None:
    unknown = {entry[0] for entry in rule_definitions()} - set(RULES_BY_ID)
    assert not unknown


def test_each_definition_has_the_registry_level_and_scope() -> None:
    for rule_id, level, scope, *_ in rule_definitions():
        rule = RULES_BY_ID[rule_id]
        assert (level, scope) == (rule.level, rule.scope), rule_id


def test_each_definition_states_the_registry_statement() -> None:
    for rule_id, _, _, statement, *_ in rule_definitions():
        assert statement == RULES_BY_ID[rule_id].statement, rule_id


def test_statements_use_the_keyword_of_their_level() -> None:
    for rule in RULES:
        assert rule.level in rule.statement, rule.id
        if rule.level == "MAY":
            assert "MUST" not in rule.statement, rule.id


def test_only_reader_rules_are_may_and_only_they_decide_verdicts() -> None:
    for rule in RULES:
        if rule.scope == "reader":
            assert rule.level in {"MUST", "MAY"}, rule.id
        else:
            assert rule.level in {"MUST", "SHOULD"}, rule.id


@cache
def corpus_cases() -> dict[str, str]:
    """Rule id -> its "Corpus cases:" paragraph on the companion page."""
    page = CASES_PAGE.read_text(encoding="utf-8")
    found = {}
    for block in page.split("\n## ")[1:]:
        rule_id, _, body = block.partition("\n")
        (paragraph,) = [p for p in body.split("\n\n") if p.startswith("Corpus cases:")]
        found[rule_id.strip()] = " ".join(paragraph.split())
    return found


def test_each_definition_has_a_rationale_a_source_and_its_corpus_cases() -> None:
    for rule_id, *_, body in rule_definitions():
        starts = [paragraph.split(":", 1)[0] for paragraph in body]
        assert starts == ["Rationale", "Source"], rule_id
        assert corpus_cases()[rule_id].startswith("Corpus cases: "), rule_id


def sources() -> dict[str, str]:
    return {entry[0]: entry[5][1] for entry in rule_definitions()}


def test_sources_cite_a_named_reference_or_a_decision_that_exists() -> None:
    decisions = set(re.findall(r"^\*\*(D\d+) ", spec_text(), re.MULTILINE))
    assert decisions
    references = spec_text().split("### 1.7 References", 1)[1].split("\n## ", 1)[0]
    defined = set(re.findall(r"^\* \*\*\[([\w.-]+)\]\*\*", references, re.MULTILINE))
    assert defined == {"README", "README-0.4.5", "README-zh", "FORMAT-NOTES"}
    for rule_id, source in sources().items():
        labels = set(_REFERENCE_LABEL.findall(source))
        cited = set(re.findall(r"\bdecisions? (D\d+)\b", source))
        cited |= set(re.findall(r"\band (D\d+)\b", source))
        assert labels or cited, rule_id
        assert labels <= defined, (rule_id, labels - defined)
        assert cited <= decisions, (rule_id, cited - decisions)


def test_sources_name_the_section_of_each_reference_they_quote() -> None:
    for rule_id, source in sources().items():
        for label in _REFERENCE_LABEL.finditer(source):
            assert source[label.end() :].startswith(' "'), (rule_id, source)


def test_no_source_cites_a_file_that_is_not_in_the_repository() -> None:
    root = SPEC_DIR.parent
    for rule_id, source in sources().items():
        for seed in SEEDS:
            assert seed not in source, rule_id
        for path in re.findall(r"`([\w./-]+\.(?:py|md|json|txt|rs))`", source):
            assert (root / path).is_file(), (rule_id, path)


def test_rule_ids_are_never_reused_across_versions() -> None:
    # Renamed or removed ids stay retired (SPEC §14.2); draft 1 had none removed.
    draft_1 = {
        "FILE-PREFIX", "HEADER-LIMIT", "HEADER-BOUNDS", "HEADER-UTF8", "HEADER-OBJECT",
        "HEADER-LEADING-WS", "HEADER-PADDING", "HEADER-TRAILING", "JSON-SYNTAX",
        "JSON-DEPTH", "JSON-SURROGATE", "KEY-UNIQUE", "NUM-INTEGER", "NUM-RANGE",
        "ENTRY-OBJECT", "ENTRY-FIELDS", "ENTRY-UNKNOWN", "DTYPE-NAME", "SHAPE-ARRAY",
        "OFFSETS-PAIR", "META-OBJECT", "META-NULL", "META-STRING", "SIZE-OVERFLOW",
        "SIZE-BITS", "SIZE-MATCH", "OFFSETS-ORDER", "LAYOUT-BOUNDS", "LAYOUT-HOLE",
        "LAYOUT-OVERLAP", "LAYOUT-TRAILING", "WRITE-RESERVED", "WRITE-CANONICAL",
        "WRITE-VALID", "WRITE-ATOMIC",
    }  # fmt: skip
    assert draft_1 <= set(RULES_BY_ID)
    assert RULES_BY_ID["WRITE-CANONICAL"].level == "SHOULD"
    assert RULES_BY_ID["WRITE-ATOMIC"].level == "SHOULD"


def test_every_backticked_rule_id_exists_in_the_registry() -> None:
    pattern = re.compile(rf"{_ID}|[A-Z]+-\*")
    tokens = {
        token for token in _BACKTICKED.findall(spec_text()) if pattern.fullmatch(token)
    }
    assert "LAYOUT-HOLE" in tokens
    for token in tokens:
        if token.endswith("-*"):
            ids = [*RULES_BY_ID, *SHARD_CHECKS_BY_ID]
            assert any(rule_id.startswith(token[:-1]) for rule_id in ids), token
        else:
            assert token in RULES_BY_ID or token in SHARD_CHECKS_BY_ID, token


def test_rule_index_lists_every_rule_with_level_scope_family_and_section() -> None:
    appendix = spec_text().split("## Appendix B", 1)[1].split("\n## ", 1)[0]
    rows = {row[0]: row[1:] for row in _INDEX_ROW.findall(appendix)}
    assert list(rows) == [rule.id for rule in RULES]
    sections = {entry[0]: entry[4] for entry in rule_definitions()}
    for rule in RULES:
        link, level, scope, family, section, _ = rows[rule.id]
        assert link == rule.id.lower(), rule.id
        assert (level, scope, family, section) == (
            rule.level,
            rule.scope,
            rule.family,
            sections[rule.id],
        ), rule.id


def test_rule_index_counts_the_cases_of_the_committed_manifest() -> None:
    appendix = spec_text().split("## Appendix B", 1)[1].split("\n## ", 1)[0]
    counts = {row[0]: int(row[6]) for row in _INDEX_ROW.findall(appendix)}
    for rule in RULES:
        cited = [case for case, rules in manifest_rules().items() if rule.id in rules]
        assert counts[rule.id] == len(cited), rule.id


# --- navigation: anchors, links, contents, generated parts ------------------


@cache
def manifest_rules() -> dict[str, frozenset[str]]:
    """Case id -> the rules it cites, from the committed corpus/manifest.json."""
    path = SPEC_DIR.parent / "corpus" / "manifest.json"
    cases = json.loads(path.read_text("utf-8"))["cases"]
    return {str(case["id"]): frozenset(case["rules"]) for case in cases}


def test_each_rule_has_its_anchor_on_the_line_before_its_definition() -> None:
    lines = spec_text().splitlines()
    for rule in RULES:
        (index,) = [
            i for i, line in enumerate(lines) if line.startswith(f"**{rule.id}** (")
        ]
        assert lines[index - 1] == f'<a id="{rule.id.lower()}"></a>', rule.id


def test_anchors_are_unique_and_every_in_page_link_resolves() -> None:
    from stspec_corpus._speclinks import slug  # noqa: PLC0415

    anchors = _ANCHOR.findall(spec_text())
    assert len(anchors) == len(set(anchors)) == len(RULES)
    assert _ANCHOR.findall(shards_text()) == [c.id.lower() for c in SHARD_CHECKS]
    targets = set(anchors) | {slug(h) for h in _HEADING_LINE.findall(spec_text())}
    links = _LINK.findall(spec_text())
    assert "layout-hole" in links
    assert "appendix-a-deviations-of-hf-safetensors-080-and-045" in links
    assert set(links) <= targets, set(links) - targets


def test_every_link_to_a_companion_page_resolves() -> None:
    from stspec_corpus._speclinks import slug  # noqa: PLC0415

    links = re.findall(r"\]\(\.\./docs/([^)#]+)(?:#([^)]+))?\)", spec_text())
    assert ("spec/sharded-checkpoints.md", "shard-filename") in links
    for path, fragment in links:
        page = SPEC_DIR.parent / "docs" / path
        assert page.is_file(), path
        text = page.read_text(encoding="utf-8")
        targets = set(_ANCHOR.findall(text))
        targets |= {slug(heading) for heading in _HEADING_LINE.findall(text)}
        assert not fragment or fragment in targets, (path, fragment)


def test_contents_list_every_section_heading() -> None:
    contents = spec_text().split("<!-- contents:start -->", 1)[1].split("<!--", 1)[0]
    body = spec_text().split("<!-- contents:end -->", 1)[1]
    headings = re.findall(r"^#{2,3} (.+)$", body, re.MULTILINE)
    assert re.findall(r"\[(.+)\]\(#", contents) == headings


def test_generated_parts_are_up_to_date() -> None:
    from stspec_corpus._registry import all_cases  # noqa: PLC0415
    from stspec_corpus._speclinks import cases_page, render  # noqa: PLC0415

    assert render(spec_text(), all_cases()) == spec_text(), (
        "run: python -m stspec_corpus spec"
    )
    assert cases_page(all_cases()) == CASES_PAGE.read_text(encoding="utf-8"), (
        "run: python -m stspec_corpus spec"
    )


def test_the_normative_text_lists_no_corpus_cases() -> None:
    # the per-rule case lists live on the companion page: a corpus edit is
    # never an edit of the normative document
    assert "\nCorpus cases:" not in spec_text()
    assert not re.search(r"`[yn]_[a-z]+_[a-z0-9_]+`.*`[yn]_[a-z]+_", spec_text())


def test_each_reader_rule_lists_exactly_the_manifest_cases_citing_it() -> None:
    for rule_id, _, scope, *_ in rule_definitions():
        if scope != "reader":
            continue
        listed = set(re.findall(r"`([ynix]_[a-z0-9_]+)`", corpus_cases()[rule_id]))
        cited = {case for case, rules in manifest_rules().items() if rule_id in rules}
        assert listed == cited, rule_id
        assert listed, rule_id


def test_read_tolerated_lists_every_tolerated_case() -> None:
    listed = set(re.findall(r"`(i_[a-z0-9_]+)`", corpus_cases()["READ-TOLERATED"]))
    assert listed == {case for case in manifest_rules() if case.startswith("i_")}


def normative_sentences_outside_rules(text: str) -> list[str]:
    """Sentences that use an RFC 2119 word as a requirement and name no rule id.

    Skipped: the definition blocks themselves, §1.1 (which defines the words),
    quotations ("..."), code spans without an id, and the words used as nouns
    ("a MUST rule", "MAY rules", "a SHOULD for writers").  What is left is a
    requirement that belongs to no rule.
    """
    text = text.split("### 1.2 ", 1)[1]
    offenders = []
    for block in re.split(r"\n\s*\n", text):
        lines = block.strip().splitlines()
        if any(_DEFINITION.match(line) for line in lines):
            continue
        flat = " ".join(block.split())
        flat = re.sub(
            r"`[^`]*`", lambda m: m.group(0) if "-" in m.group(0) else "x", flat
        )
        flat = re.sub(r'"[^"]*"', "x", flat)
        offenders += [
            sentence
            for sentence in re.split(r"(?<=[.:;!?])\s+(?=[A-Z*`(|])", flat)
            if _REQUIREMENT.search(sentence) and not re.search(rf"`{_ID}`", sentence)
        ]
    return offenders


def test_every_normative_sentence_belongs_to_a_rule() -> None:
    assert normative_sentences_outside_rules(spec_text()) == []


def test_a_requirement_without_a_rule_id_would_be_found() -> None:
    planted = "A reader MUST end every input in acceptance or rejection."
    text = spec_text().replace("## 15 Security considerations\n", planted + "\n\n", 1)
    assert normative_sentences_outside_rules(text) == [planted]
    cited = planted[:-1] + " (`READ-OUTCOME`)."
    text = spec_text().replace("## 15 Security considerations\n", cited + "\n\n", 1)
    assert normative_sentences_outside_rules(text) == []


def test_dtype_table_lists_every_dtype_with_bits_and_release() -> None:
    section = spec_text().split("## 6 Dtypes", 1)[1].split("\n## ", 1)[0]
    rows = _DTYPE_ROW.findall(section)
    assert rows == [(dt.name, str(dt.bits), dt.since) for dt in DTYPES]


def test_the_13_original_dtypes_date_from_the_first_release() -> None:
    originals = {dt.name for dt in DTYPES if dt.since == "0.0.1"}
    assert originals == {
        "BOOL", "U8", "I8", "I16", "U16", "I32", "U32", "I64", "U64",
        "F16", "BF16", "F32", "F64",
    }  # fmt: skip
    assert "0.2.0" not in {dt.since for dt in DTYPES}


def test_spec_version_is_the_packages_and_the_manifests() -> None:
    assert spec_text().startswith("# The safetensors file format\n\nVersion 1.0.")
    assert stspec.SPEC_VERSION == "1.0"
    assert stspec.__version__.startswith(stspec.SPEC_VERSION + ".")
    manifest = json.loads((SPEC_DIR.parent / "corpus" / "manifest.json").read_text())
    assert manifest["spec"] == stspec.SPEC_VERSION


def test_canonical_order_is_descending_declaration_order_then_name() -> None:
    statement = RULES_BY_ID["WRITE-CANONICAL"].statement
    assert "descending dtype declaration order then name" in statement
    assert "alignment" not in statement
    order = [("a", "I64"), ("b", "U64"), ("c", "F64"), ("d", "I32"), ("e", "F32")]
    widths = {dt.name: dt.bits // 8 for dt in DTYPES}
    tensors = {n: stspec.Tensor(d, (1,), bytes(widths[d])) for n, d in order}
    data = stspec.serialize(tensors)
    (length,) = struct.unpack_from("<Q", data)
    header = json.loads(data[8 : 8 + length])
    assert list(header) == ["b", "a", "c", "e", "d"]
    assert "`b, a, c, e, d`" in spec_text()


def test_hf_writes_the_canonical_tensor_order_too() -> None:
    numpy = pytest.importorskip("numpy")
    hf = pytest.importorskip("safetensors.numpy")
    arrays = {
        "a": numpy.zeros(1, numpy.int64),
        "b": numpy.zeros(1, numpy.uint64),
        "c": numpy.zeros(1, numpy.float64),
        "d": numpy.zeros(1, numpy.int32),
        "e": numpy.zeros(1, numpy.float32),
    }
    data = hf.save(arrays)
    (length,) = struct.unpack_from("<Q", data)
    assert list(json.loads(data[8 : 8 + length])) == ["b", "a", "c", "e", "d"]


def test_spec_says_there_are_as_many_dtypes_as_the_table_holds() -> None:
    assert len(DTYPES) == 22
    assert "exactly 22 dtype names" in spec_text()


def test_sub_byte_packing_example_matches_ml_dtypes_codes() -> None:
    ml_dtypes = pytest.importorskip("ml_dtypes")
    numpy = pytest.importorskip("numpy")
    values = numpy.array([1.0, -0.5, 6.0, 0.0], dtype=ml_dtypes.float4_e2m1fn)
    codes = [int(code) & 0xF for code in values.view(numpy.uint8)]
    packed = bytes(codes[i] | codes[i + 1] << 4 for i in range(0, len(codes), 2))
    assert f"`{packed.hex(' ')}`" in spec_text()


# --- sharded checkpoints (§13.2 and its companion page) ---------------------


def test_spec_defines_every_shard_check_once_with_its_severity_and_statement() -> None:
    found = set_check_definitions()
    assert [entry[0] for entry in found] == [check.id for check in SHARD_CHECKS]
    for check_id, severity, _, statement, _, body in found:
        check = SHARD_CHECKS_BY_ID[check_id]
        assert (severity, statement) == (check.severity, check.statement), check_id
        assert body[0].startswith("Rationale: "), check_id


def test_section_13_2_points_to_the_page_that_defines_the_shard_checks() -> None:
    section = spec_text().split("### 13.2 Sharded checkpoints\n", 1)[1]
    section = section.split("\n#", 1)[0]
    assert "](../docs/spec/sharded-checkpoints.md)" in section
    assert len(section.strip().split("\n\n")) == 1, "one paragraph"
    assert [entry for entry in definitions() if entry[2] == "set"] == []


def test_shard_check_ids_never_collide_with_rule_ids() -> None:
    assert not set(SHARD_CHECKS_BY_ID) & set(RULES_BY_ID)


def test_each_shard_check_has_an_anchor_on_the_line_before_it() -> None:
    lines = shards_text().splitlines()
    for check in SHARD_CHECKS:
        (index,) = [
            i for i, line in enumerate(lines) if line.startswith(f"**{check.id}** ")
        ]
        assert lines[index - 1] == f'<a id="{check.id.lower()}"></a>', check.id


# --- the worked example ------------------------------------------------------


def test_worked_example_has_the_layout_the_spec_describes() -> None:
    data = worked_example()
    (length,) = struct.unpack_from("<Q", data)
    assert length == 80
    assert (8 + length) % 8 == 0
    assert data[8:9] == b"{"
    assert data[8 + length - 1 : 8 + length] == b" "
    assert data[8 + length :] == b"\x00\x3c\x00\xc0"


def test_worked_example_is_valid_for_the_reference() -> None:
    assert stspec.validate(worked_example()) == []


def test_worked_example_is_what_the_canonical_writer_emits() -> None:
    tensors = {"a": stspec.Tensor("F16", (2,), b"\x00\x3c\x00\xc0")}
    assert stspec.serialize(tensors, {"k": "v"}) == worked_example()


def test_worked_example_header_is_schema_valid() -> None:
    data = worked_example()
    (length,) = struct.unpack_from("<Q", data)
    validator().validate(json.loads(data[8 : 8 + length]))


# --- the schema --------------------------------------------------------------


def test_schema_is_a_valid_draft_2020_12_schema() -> None:
    jsonschema.Draft202012Validator.check_schema(schema())
    assert schema()["$schema"] == "https://json-schema.org/draft/2020-12/schema"
    assert schema()["$id"] == stspec.HEADER_SCHEMA_ID
    assert f"/{stspec.SPEC_VERSION}/" in stspec.HEADER_SCHEMA_ID
    assert stspec.HEADER_SCHEMA_ID in spec_text()


def test_the_package_resolves_the_schema_by_its_id() -> None:
    assert stspec.header_schema() == schema()


def test_an_installed_package_finds_the_schema_it_ships(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    shipped = tmp_path / "spec"
    shipped.mkdir()
    (shipped / "header.schema.json").write_text(
        SCHEMA_PATH.read_text("utf-8"), encoding="utf-8"
    )
    monkeypatch.setattr(_schema, "_PLACES", (shipped, tmp_path / "missing"))
    assert stspec.header_schema()["$id"] == stspec.HEADER_SCHEMA_ID


def test_an_installation_without_the_schema_says_so(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(_schema, "_PLACES", (tmp_path,))
    with pytest.raises(FileNotFoundError, match=r"header\.schema\.json"):
        stspec.header_schema()


def test_schema_description_says_schema_valid_is_not_valid() -> None:
    description = str(schema()["description"])
    assert "does NOT make the file valid" in description
    assert "spec/SPEC.md section 10" in description
    assert "## 10 Rules a JSON Schema cannot express" in spec_text()


def test_schema_dtype_enum_is_the_registry_dtype_table() -> None:
    defs = schema()["$defs"]
    assert isinstance(defs, dict)
    assert defs["dtype"]["enum"] == [dt.name for dt in DTYPES]


def test_schema_u64_spans_exactly_zero_to_two_to_the_64_minus_one() -> None:
    defs = schema()["$defs"]
    assert isinstance(defs, dict)
    assert defs["u64"] == {
        "description": defs["u64"]["description"],
        "type": "integer",
        "minimum": 0,
        "maximum": U64_MAX,
    }


@pytest.mark.parametrize(
    "header",
    [
        pytest.param({}, id="empty-header"),
        pytest.param({"__metadata__": {}}, id="empty-metadata"),
        pytest.param({"__metadata__": {"": "", "k": "v"}}, id="empty-metadata-key"),
        pytest.param({"a": entry()}, id="one-tensor"),
        pytest.param({"": entry("BOOL", (), (0, 1))}, id="empty-name-rank-0"),
        pytest.param({"a": entry("U8", (0, U64_MAX), (0, 0))}, id="u64-max-dim"),
        pytest.param({"a": entry("F4", (2,), (0, 1))}, id="sub-byte-dtype"),
        pytest.param(
            {"__metadata__": {"dtype": "F32", "shape": "[1]"}},
            id="tensor-like-metadata",
        ),
    ],
)
def test_schema_accepts_headers_writers_produce(header: object) -> None:
    validator().validate(header)


@pytest.mark.parametrize(
    "header",
    [
        pytest.param([], id="top-level-array"),
        pytest.param({"a": ["F32", [1], [0, 4]]}, id="positional-entry"),
        pytest.param({"a": 1}, id="number-entry"),
        pytest.param({"a": entry("F128")}, id="unknown-dtype"),
        pytest.param({"a": entry("f32")}, id="lower-case-dtype"),
        pytest.param({"a": entry({"F32": None})}, id="tagged-dtype"),
        pytest.param({"a": {"dtype": "F32", "shape": [1]}}, id="missing-offsets"),
        pytest.param({"a": {**entry(), "x": 1}}, id="unknown-member"),
        pytest.param({"a": entry("F32", (-1,))}, id="negative-dim"),
        pytest.param({"a": entry("F32", (U64_MAX + 1,))}, id="dim-over-u64"),
        pytest.param({"a": entry("F32", ("1",))}, id="string-dim"),
        pytest.param({"a": entry("F32", 1)}, id="shape-not-array"),
        pytest.param({"a": entry("F32", (1,), (0, 4, 8))}, id="three-offsets"),
        pytest.param({"a": entry("F32", (1,), (4,))}, id="one-offset"),
        pytest.param({"a": entry("F32", (1,), (0, 4.5))}, id="fractional-offset"),
        pytest.param({"__metadata__": {"k": 1}}, id="metadata-number-value"),
        pytest.param({"__metadata__": ["k"]}, id="metadata-array"),
        pytest.param({"__metadata__": None}, id="metadata-null"),
    ],
)
def test_schema_rejects_headers_the_spec_does_not_call_valid(header: object) -> None:
    assert not validator().is_valid(header)


def test_schema_accepts_an_integer_written_as_4_0_which_the_spec_forbids() -> None:
    text = b'{"a":{"dtype":"F32","shape":[4.0],"data_offsets":[0,16]}}'
    assert validator().is_valid(json.loads(text))
    rules = {error.rule for error in stspec.validate(file_of(text, bytes(16)))}
    assert rules == {"NUM-INTEGER"}


def test_schema_cannot_see_duplicate_tensor_names() -> None:
    text = (
        b'{"a":{"dtype":"I32","shape":[1],"data_offsets":[0,4]},'
        b'"a":{"dtype":"F32","shape":[1],"data_offsets":[0,4]}}'
    )
    parsed = json.loads(text)
    assert validator().is_valid(parsed)
    assert parsed["a"]["dtype"] == "F32"  # the parser already dropped one
    rules = {error.rule for error in stspec.validate(file_of(text, bytes(4)))}
    assert rules == {"KEY-UNIQUE"}


def test_readme_has_the_specification_section() -> None:
    page = SPEC_DIR.parent / "docs" / "explanation" / "specification.md"
    readme = page.read_text(encoding="utf-8")
    assert "# How the specification is organised" in readme
    assert "<!-- SECTION: spec -->" not in readme


def test_the_spec_command_checks_and_rewrites_the_generated_parts(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from stspec_corpus._cli import main  # noqa: PLC0415

    assert main(["spec", "--check", str(SPEC_PATH)]) == 0
    stale = tmp_path / "SPEC.md"
    stale.write_text(
        spec_text().replace("](#layout-hole) | MUST", "](#layout-hole) | MAY"),
        encoding="utf-8",
    )
    assert main(["spec", "--check", str(stale)]) == 1
    assert "out of date" in capsys.readouterr().out
    assert main(["spec", str(stale)]) == 0
    assert stale.read_text(encoding="utf-8") == spec_text()


def test_every_added_dtype_has_a_valid_file_a_size_case_and_a_bits_case() -> None:
    # SPEC §14.3: an added dtype gets a valid file, a size case and, for a
    # sub-byte width, a SIZE-BITS case.
    path = SPEC_DIR.parent / "corpus" / "manifest.json"
    cases = json.loads(path.read_text("utf-8"))["cases"]
    size_rules = {"SIZE-OVERFLOW", "SIZE-BITS", "SIZE-MATCH"}
    added = [dt for dt in DTYPES if dt.since != "0.0.1"]
    assert len(added) == 9
    for dt in added:
        tagged = [c for c in cases if f"dtype:{dt.name}" in c["tags"]]
        assert any(c["verdict"] == "valid" for c in tagged), dt.name
        broken = {c["rules"][0] for c in tagged if c["verdict"] == "invalid"}
        assert broken & size_rules, dt.name
        if dt.bits < 8:
            assert "SIZE-BITS" in broken, dt.name


def test_the_cost_of_a_maximal_header_is_the_suites_allowance() -> None:
    from stspec_conformance._limits import (  # noqa: PLC0415
        CPU_BYTES_PER_SECOND,
        DATA_FACTOR,
        HEADER_CPU_BYTES_PER_SECOND,
        HEADER_FACTOR,
        MIB,
        Limits,
    )

    section = spec_text().split("### 1.6 Implementation limits", 1)[1]
    section = section.split("\n### ", 1)[0]
    paragraph = section.split("**The cost of a maximal header.**", 1)[1]
    paragraph = " ".join(paragraph.split("\n\n", 1)[0].split())
    limits = Limits()
    assert f"{limits.cpu_seconds:g} s of CPU time" in paragraph
    assert f"1 s per {CPU_BYTES_PER_SECOND // MIB} MiB of file" in paragraph
    assert f"1 s per {HEADER_CPU_BYTES_PER_SECOND // MIB} MiB of header" in paragraph
    assert f"{limits.memory_budget // MIB} MiB of memory" in paragraph
    assert f"plus {HEADER_FACTOR} bytes per header byte" in paragraph
    assert f"and {DATA_FACTOR} per buffer byte" in paragraph
    size = 8 + 100_000_000
    cpu = limits.cpu_seconds + size / CPU_BYTES_PER_SECOND
    cpu += 100_000_000 / HEADER_CPU_BYTES_PER_SECOND
    memory = limits.memory_budget + HEADER_FACTOR * 100_000_000
    assert f"about {cpu:.1f} s and {memory / 2**30:.1f} GiB" in paragraph
    assert "`y_layout_dense_header_at_limit`" in paragraph
    assert "y_layout_dense_header_at_limit" in manifest_rules()
