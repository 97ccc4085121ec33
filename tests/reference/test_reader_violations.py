"""Every reader rule: the exact rule id and byte offset of one fault."""

from __future__ import annotations

import pytest
from stfiles import U8_PAIR, entry, file_from, file_of

import stspec

BIG = 2**64 - 1
VALID_ENTRY = '{"dtype":"U8","shape":[1],"data_offsets":[0,1]}'


def one(body: str) -> bytes:
    """A file with one U8[1] tensor 'a' whose entry text is ``body``."""
    return file_of('{"a":' + body + "}", b"x")


CASES = [
    # file container
    pytest.param(b"", "FILE-PREFIX", 0, id="empty-file"),
    pytest.param(b"\x02\0\0\0\0\0\0", "FILE-PREFIX", 0, id="seven-bytes"),
    pytest.param(b"\xff" * 8 + b"{}", "HEADER-LIMIT", 0, id="n-2^64-1"),
    pytest.param((2**63).to_bytes(8, "little") + b"{}", "HEADER-LIMIT", 0, id="n-2^63"),
    pytest.param(
        (100_000_001).to_bytes(8, "little") + b"{}", "HEADER-LIMIT", 0, id="n-limit+1"
    ),
    pytest.param(
        (100_000_000).to_bytes(8, "little") + b"{}", "HEADER-BOUNDS", 0, id="n-at-limit"
    ),
    pytest.param(b"\x03\0\0\0\0\0\0\0{}", "HEADER-BOUNDS", 0, id="n-past-end"),
    # header text
    pytest.param(file_of(b""), "HEADER-OBJECT", 8, id="n-zero"),
    pytest.param(file_of(b"   "), "HEADER-OBJECT", 11, id="only-spaces"),
    pytest.param(file_of(b"\xef\xbb\xbf{}"), "HEADER-OBJECT", 8, id="bom"),
    pytest.param(file_of(b"[]"), "HEADER-OBJECT", 8, id="array"),
    pytest.param(file_of(b'{"\xc0\xaf":1}'), "HEADER-UTF8", 10, id="overlong"),
    pytest.param(file_of(b"{}  \xff"), "HEADER-UTF8", 12, id="bad-byte-in-padding"),
    pytest.param(
        file_of(b'{"\xed\xa0\x80":1}'), "HEADER-UTF8", 10, id="encoded-surrogate"
    ),
    pytest.param(file_of(b" {}"), "HEADER-LEADING-WS", 8, id="leading-space"),
    pytest.param(file_of(b"\n\t{}"), "HEADER-LEADING-WS", 8, id="leading-lf-tab"),
    pytest.param(file_of(b"{} \r"), "HEADER-PADDING", 11, id="trailing-cr"),
    pytest.param(file_of(b"{}\n  "), "HEADER-PADDING", 10, id="trailing-lf"),
    pytest.param(file_of(b"{}\0"), "HEADER-TRAILING", 10, id="nul-padding"),
    pytest.param(file_of(b"{}{}"), "HEADER-TRAILING", 10, id="two-objects"),
    pytest.param(file_of(b"{} \t x"), "HEADER-TRAILING", 13, id="junk-after-ws"),
    # JSON grammar
    pytest.param(file_of(b"{"), "JSON-SYNTAX", 9, id="unclosed"),
    pytest.param(file_of(b'{"a":1,}'), "JSON-SYNTAX", 15, id="trailing-comma"),
    pytest.param(file_of(b'{"a":[1,]}'), "JSON-SYNTAX", 16, id="trailing-comma-array"),
    pytest.param(file_of(b'{"a" 1}'), "JSON-SYNTAX", 13, id="missing-colon"),
    pytest.param(file_of(b'{"a":1 "b":2}'), "JSON-SYNTAX", 15, id="missing-comma"),
    pytest.param(file_of(b"{a:1}"), "JSON-SYNTAX", 9, id="bare-name"),
    pytest.param(file_of(b"{'a':1}"), "JSON-SYNTAX", 9, id="single-quotes"),
    pytest.param(file_of(b'{"a":NaN}'), "JSON-SYNTAX", 13, id="nan"),
    pytest.param(file_of(b'{"a":01}'), "JSON-SYNTAX", 14, id="leading-zero"),
    pytest.param(file_of(b"{}//x"), "HEADER-TRAILING", 10, id="comment-after"),
    pytest.param(file_of(b'{/*x*/"a":1}'), "JSON-SYNTAX", 9, id="comment-inside"),
    pytest.param(file_of(b'{"a\x01":1}'), "JSON-SYNTAX", 11, id="raw-control-char"),
    pytest.param(file_of(b'{"\\x":1}'), "JSON-SYNTAX", 10, id="bad-escape"),
    pytest.param(file_of(b'{"a":tru}'), "JSON-SYNTAX", 13, id="bad-literal"),
    pytest.param(file_of(b'{"a":"x}'), "JSON-SYNTAX", 13, id="unterminated-string"),
    pytest.param(
        file_of(b'{"a":' + b"[" * 127 + b"]" * 127 + b"}"),
        "JSON-DEPTH",
        8 + 5 + 126,
        id="depth-128",
    ),
    pytest.param(
        file_of(b'{"a":' + b'{"b":' * 100_000 + b"}" * 100_001),
        "JSON-DEPTH",
        13 + 5 * 126,
        id="object-bomb",
    ),
    pytest.param(
        file_of('{"\\ud800":' + VALID_ENTRY + "}", b"x"),
        "JSON-SURROGATE",
        9,
        id="lone-high",
    ),
    pytest.param(
        file_of(b'{"__metadata__":{"k":"\\udc00"}}'),
        "JSON-SURROGATE",
        29,
        id="lone-low-value",
    ),
    pytest.param(
        file_of(b'{"__metadata__":{"k":"\\ud83dx"}}'),
        "JSON-SURROGATE",
        29,
        id="high-then-x",
    ),
    pytest.param(
        file_of('{"a":' + VALID_ENTRY + ',"\\u0061":' + VALID_ENTRY + "}", b"xx"),
        "KEY-UNIQUE",
        b'"\\u0061"',
        id="dup-name-after-unescaping",
    ),
    pytest.param(
        file_of(b'{"__metadata__":{},"__metadata__":{}}'),
        "KEY-UNIQUE",
        27,
        id="dup-metadata",
    ),
    pytest.param(
        file_of(b'{"__metadata__":{"k":"1","k":"2"}}'),
        "KEY-UNIQUE",
        33,
        id="dup-metadata-key",
    ),
    pytest.param(
        one('{"dtype":"U8","dtype":"U8","shape":[1],"data_offsets":[0,1]}'),
        "KEY-UNIQUE",
        27,
        id="dup-field",
    ),
    # numbers
    pytest.param(
        one('{"dtype":"U8","shape":[-1],"data_offsets":[0,1]}'),
        "NUM-INTEGER",
        36,
        id="negative",
    ),
    pytest.param(
        one('{"dtype":"U8","shape":[1.0],"data_offsets":[0,1]}'),
        "NUM-INTEGER",
        36,
        id="fraction",
    ),
    pytest.param(
        one('{"dtype":"U8","shape":[1],"data_offsets":[0,1e0]}'),
        "NUM-INTEGER",
        b"1e0",
        id="exponent",
    ),
    pytest.param(
        one('{"dtype":"U8","shape":[1],"data_offsets":[-0,1]}'),
        "NUM-INTEGER",
        b"-0",
        id="minus-zero",
    ),
    pytest.param(
        one('{"dtype":"U8","shape":[1],"data_offsets":[0,18446744073709551616]}'),
        "NUM-RANGE",
        b"18446744073709551616",
        id="2^64",
    ),
    pytest.param(
        one('{"dtype":"U8","shape":[1,1,99999999999999999999],"data_offsets":[0,1]}'),
        "NUM-RANGE",
        b"99999999999999999999",
        id="20-digits-in-a-canonical-entry",
    ),
    pytest.param(
        one('{"dtype":"U8","shape":[' + "1" * 10_000 + '],"data_offsets":[0,1]}'),
        "NUM-RANGE",
        36,
        id="10000-digits",
    ),
    pytest.param(
        one('{"dtype":"U8","shape":[' + "9" * 40 + '],"data_offsets":[0,1]}'),
        "NUM-RANGE",
        36,
        id="40-digits",
    ),
    # structure
    pytest.param(one("1"), "ENTRY-OBJECT", 13, id="entry-number"),
    pytest.param(
        one('["U8",[1],[0,1]]'), "ENTRY-OBJECT", 13, id="entry-positional-array"
    ),
    pytest.param(
        one('{"shape":[1],"data_offsets":[0,1]}'), "ENTRY-FIELDS", 13, id="no-dtype"
    ),
    pytest.param(
        file_of('{"a":{"dtype":"U8","shape":[0]}}'), "ENTRY-FIELDS", 13, id="no-offsets"
    ),
    pytest.param(
        one('{"dtype":"U8","shape":[1],"data_offsets":[0,1],"x":{"y":[1.5,null]}}'),
        "ENTRY-UNKNOWN",
        b'{"y"',
        id="unknown-field",
    ),
    pytest.param(
        one('{"dtype":"u8","shape":[1],"data_offsets":[0,1]}'),
        "DTYPE-NAME",
        22,
        id="lower-case-dtype",
    ),
    pytest.param(
        one('{"dtype":{"U8":null},"shape":[1],"data_offsets":[0,1]}'),
        "DTYPE-NAME",
        22,
        id="externally-tagged-dtype",
    ),
    pytest.param(
        one('{"dtype":8,"shape":[1],"data_offsets":[0,1]}'),
        "DTYPE-NAME",
        22,
        id="numeric-dtype",
    ),
    pytest.param(
        one('{"dtype":null,"shape":[1],"data_offsets":[0,1]}'),
        "DTYPE-NAME",
        22,
        id="null-dtype",
    ),
    pytest.param(
        one('{"dtype":"U8","shape":1,"data_offsets":[0,1]}'),
        "SHAPE-ARRAY",
        35,
        id="shape-number",
    ),
    pytest.param(
        one('{"dtype":"U8","shape":["1"],"data_offsets":[0,1]}'),
        "SHAPE-ARRAY",
        36,
        id="shape-string-dim",
    ),
    pytest.param(
        one('{"dtype":"U8","shape":[true],"data_offsets":[0,1]}'),
        "SHAPE-ARRAY",
        36,
        id="shape-bool-dim",
    ),
    pytest.param(
        one('{"dtype":"U8","shape":[1],"data_offsets":[0,1,1]}'),
        "OFFSETS-PAIR",
        b"[0,1,1]",
        id="three-offsets",
    ),
    pytest.param(
        one('{"dtype":"U8","shape":[1],"data_offsets":{"0":1}}'),
        "OFFSETS-PAIR",
        b'{"0"',
        id="offsets-object",
    ),
    pytest.param(
        one('{"dtype":"U8","shape":[1],"data_offsets":[0,"1"]}'),
        "OFFSETS-PAIR",
        b'"1"]',
        id="offset-string",
    ),
    pytest.param(
        file_of(b'{"__metadata__":"x"}'), "META-OBJECT", 24, id="metadata-string"
    ),
    pytest.param(
        file_of(b'{"__metadata__":[]}'), "META-OBJECT", 24, id="metadata-array"
    ),
    pytest.param(
        file_of(b'{"__metadata__":null}'), "META-NULL", 24, id="metadata-null"
    ),
    pytest.param(
        file_of(b'{"__metadata__":{"k":1}}'), "META-STRING", 29, id="metadata-int"
    ),
    pytest.param(
        file_of(b'{"__metadata__":{"k":{"x":"y"}}}'),
        "META-STRING",
        29,
        id="metadata-nested",
    ),
    pytest.param(
        file_of(b'{"__metadata__":{"dtype":"U8","shape":[1]}}'),
        "META-STRING",
        46,
        id="metadata-tensor-like",
    ),
    # sizes
    pytest.param(
        file_from({"a": entry("F32", [2**32, 2**32], 0, 0)}),
        "SIZE-OVERFLOW",
        b"[4294967296",
        id="product-overflow",
    ),
    pytest.param(
        file_from({"a": entry("U8", [2**61], 0, 0)}),
        "SIZE-OVERFLOW",
        b"[2305843009213693952",
        id="bits-overflow",
    ),
    pytest.param(
        file_from({"a": entry("U8", [BIG] * 1000, 0, 0)}),
        "SIZE-OVERFLOW",
        b"[18446744073709551615",
        id="thousand-huge-dims",
    ),
    pytest.param(
        file_from({"a": entry("F4", [3], 0, 2)}, b"xx"),
        "SIZE-BITS",
        b"[3]",
        id="odd-f4",
    ),
    pytest.param(
        file_from({"a": entry("F4", [], 0, 1)}, b"x"), "SIZE-BITS", b"[]", id="rank0-f4"
    ),
    pytest.param(
        file_from({"a": entry("F6_E2M3", [2], 0, 2)}, b"xx"),
        "SIZE-BITS",
        b"[2]",
        id="f6-pair",
    ),
    pytest.param(
        file_from({"a": entry("F32", [2], 0, 4)}, b"xxxx"),
        "SIZE-MATCH",
        b"[0,4]",
        id="size-mismatch",
    ),
    pytest.param(
        file_from({"a": entry("F32", [], 0, 0)}),
        "SIZE-MATCH",
        b"[0,0]",
        id="rank0-empty-range",
    ),
    # layout
    pytest.param(
        file_from({"a": entry("U8", [2], 0, 2), "b": entry("U8", [1], 3, 2)}, b"xyz"),
        "OFFSETS-ORDER",
        b"[3,2]",
        id="reversed-offsets",
    ),
    # A reversed pair states no size (SPEC 12.1) and is in bounds when its
    # end is (SPEC 8.1), however its offsets compare with the buffer.
    pytest.param(
        file_from({"a": entry("F32", [2], 10, 0)}, bytes(10)),
        "OFFSETS-ORDER",
        b"[10,0]",
        id="reversed-span-not-size",
    ),
    pytest.param(
        file_from(
            {"a": entry("F32", [1], 0, 4), "b": entry("F32", [1], 12, 4)}, b"x" * 8
        ),
        "OFFSETS-ORDER",
        b"[12,4]",
        id="reversed-begin-past-buffer",
    ),
    pytest.param(
        file_from({"a": entry("U8", [2], 0, 2)}, b"x"),
        "LAYOUT-BOUNDS",
        b"[0,2]",
        id="buffer-too-short",
    ),
    pytest.param(
        file_from({"a": entry("U8", [1], 0, 1), "e": entry("U8", [0], 8, 8)}, b"x"),
        "LAYOUT-BOUNDS",
        b"[8,8]",
        id="empty-past-end",
    ),
    pytest.param(
        file_from({"a": entry("U8", [1], 0, 1), "b": entry("U8", [1], 2, 3)}, b"xyz"),
        "LAYOUT-HOLE",
        ("data", 1),
        id="hole",
    ),
    pytest.param(
        file_from({"a": entry("U8", [1], 1, 2)}, b"xy"),
        "LAYOUT-HOLE",
        ("data", 0),
        id="first-not-at-zero",
    ),
    pytest.param(
        file_from({"a": entry("U8", [2], 0, 2), "b": entry("U8", [1], 1, 2)}, b"xy"),
        "LAYOUT-OVERLAP",
        ("data", 1),
        id="partial-overlap",
    ),
    pytest.param(
        file_from({"a": entry("U8", [2], 0, 2), "b": entry("U8", [2], 0, 2)}, b"xy"),
        "LAYOUT-OVERLAP",
        ("data", 0),
        id="full-overlap",
    ),
    pytest.param(
        file_from({"a": entry("U8", [2], 0, 2), "e": entry("U8", [0], 1, 1)}, b"xy"),
        "LAYOUT-OVERLAP",
        ("data", 1),
        id="empty-inside",
    ),
    pytest.param(
        file_from({"a": entry("U8", [1], 0, 1)}, b"xPK\x05\x06"),
        "LAYOUT-TRAILING",
        ("data", 1),
        id="polyglot-tail",
    ),
    pytest.param(
        file_of(b"{}", b"x"), "LAYOUT-TRAILING", 10, id="data-without-tensors"
    ),
]


Where = int | bytes | tuple[str, int]


def offset_of(data: bytes, where: Where) -> int:
    """An absolute offset, the first occurrence of a byte string in the
    header, or ("data", k): byte k of the buffer after the header."""
    if isinstance(where, int):
        return where
    if isinstance(where, bytes):
        return data.index(where, 8)
    return 8 + int.from_bytes(data[:8], "little") + where[1]


@pytest.mark.parametrize(("data", "rule", "where"), CASES)
def test_validate_reports_exactly_the_one_fault(
    data: bytes, rule: str, where: Where
) -> None:
    found = [(error.rule, error.offset) for error in stspec.validate(data)]
    assert found == [(rule, offset_of(data, where))]


@pytest.mark.parametrize(("data", "rule", "where"), CASES)
def test_read_raises_the_fault(data: bytes, rule: str, where: Where) -> None:
    with pytest.raises(stspec.SafetensorsError) as caught:
        stspec.read(data)
    assert (caught.value.rule, caught.value.offset) == (rule, offset_of(data, where))


def test_every_reader_rule_has_a_case_here() -> None:
    covered = {param.values[1] for param in CASES}
    reader_rules = {rule.id for rule in stspec.RULES if rule.scope == "reader"}
    assert reader_rules <= covered


def test_validate_collects_every_violation_in_offset_order() -> None:
    data = file_of(
        ' {"__metadata__":{"k":1},"a":{"dtype":"X","shape":[1],"data_offsets":[0,1],'
        '"z":0},"b":{"dtype":"U8","shape":[2],"data_offsets":[2,4]}}\t',
        b"xy",
    )
    found = [(error.rule, error.offset) for error in stspec.validate(data)]
    # "b" ends past the 2-byte buffer, so it is left out of the tiling and
    # the buffer's tail is not judged: no hole or trailing bytes on top.
    assert found == [
        ("HEADER-LEADING-WS", 8),
        ("META-STRING", data.index(b"1}")),
        ("DTYPE-NAME", data.index(b'"X"')),
        ("ENTRY-UNKNOWN", data.index(b"0}")),
        ("LAYOUT-BOUNDS", data.index(b"[2,4]")),
        ("HEADER-PADDING", data.index(b"\t")),
    ]


def test_a_reversed_pair_past_the_buffer_breaks_the_bounds_too() -> None:
    # Begin and end both past the 8-byte buffer: two rules of one group, at
    # the pair; read() names the order, which the reference lists first.
    data = file_from({"a": entry("F32", [2], 12, 10)}, b"x" * 8)
    at = data.index(b"[12,10]")
    found = [(error.rule, error.offset) for error in stspec.validate(data)]
    assert found == [("OFFSETS-ORDER", at), ("LAYOUT-BOUNDS", at)]
    with pytest.raises(stspec.SafetensorsError) as caught:
        stspec.read(data)
    assert caught.value.rule == "OFFSETS-ORDER"


def test_a_syntax_error_stops_the_pipeline_after_earlier_faults() -> None:
    data = file_of('{"a":{"dtype":"U8","shape":[1],"data_offsets":[0,1]},"a":1,}')
    assert [error.rule for error in stspec.validate(data)] == [
        "KEY-UNIQUE",
        "JSON-SYNTAX",
    ]


def test_duplicate_names_suspend_the_layout_rules() -> None:
    data = file_from({"a": entry("U8", [1], 0, 1)}, b"x")
    doubled = file_of(data[8:-1].replace(b"}}", b"},") + data[9:-1], b"x")
    assert [error.rule for error in stspec.validate(doubled)] == ["KEY-UNIQUE"]


def test_offsets_are_bytes_not_characters_in_non_ascii_headers() -> None:
    data = file_of('{"\u00e9\u00e9":' + VALID_ENTRY + ',"z":1}', b"x")
    (error,) = stspec.validate(data)
    # The two-byte characters put the value of "z" two bytes after its
    # character position.
    text = data[8:].decode()
    assert text.index(":1}") + 1 + 8 + 2 == data.index(b":1}") + 1
    assert (error.rule, error.offset) == ("ENTRY-OBJECT", data.index(b":1}") + 1)


def test_message_names_rule_offset_and_header_path() -> None:
    with pytest.raises(stspec.SafetensorsError) as caught:
        stspec.read(file_from({"w.0": entry("F32", [2], 0, 4)}, b"xxxx"))
    assert str(caught.value) == (
        "data_offsets span 4 bytes, expected 8 for F32 [2] (at byte 57, header "
        '$["w.0"]["data_offsets"]) [SIZE-MATCH]'
    )


def test_a_valid_pair_reads_back() -> None:
    assert stspec.validate(U8_PAIR) == []


def test_a_fault_in_a_name_the_parse_stopped_after_has_no_path() -> None:
    errors = stspec.validate(file_of(b'{"\\ud800" 1}'))
    assert [(error.rule, error.offset, error.path) for error in errors] == [
        ("JSON-SURROGATE", 9, ()),
        ("JSON-SYNTAX", 18, ()),
    ]
