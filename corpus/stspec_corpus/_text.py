"""Family `text`: the header's encoding and what surrounds the JSON object."""

from __future__ import annotations

from stspec_corpus._model import (
    GENERATOR,
    Case,
    assemble,
    bug,
    build,
    entry,
    make,
    obj,
    ported,
    tensor,
)

_BASE = build([tensor("a", "F32", [2], [1.5, -2.0])])
_ENTRY = entry("F32", [2], 0, 8)
_HEADER = _BASE.header.encode()
_BUFFER = _BASE.data[-8:]


def _file(header: bytes, buffer: bytes = _BUFFER, *, align: int | None = 8) -> bytes:
    return assemble(header, buffer, align=align)


def _named(name: bytes) -> bytes:
    """Return a header whose one tensor has the raw (possibly ill-formed) name bytes."""
    return b'{"' + name + b'":' + _ENTRY.encode() + b"}"


def _meta_value(value: bytes) -> bytes:
    """Return a header with metadata {"k": <raw value bytes>} before the tensor."""
    return b'{"__metadata__":{"k":"' + value + b'"},"a":' + _ENTRY.encode() + b"}"


def _utf8() -> list[Case]:
    bad_names = [
        ("invalid_byte_ff", b"a\xff", "the byte 0xff (never valid in UTF-8) in a name"),
        ("lone_continuation_80", b"a\x80", "a lone continuation byte 0x80 in a name"),
        ("truncated_sequence", b"a\xe2\x82", "a 3-byte sequence cut after 2 bytes"),
        ("overlong_nul_c080", b"a\xc0\x80", "overlong NUL C0 80 (modified UTF-8)"),
        ("overlong_3byte_e080af", b"a\xe0\x80\xaf", "overlong 3-byte '/' E0 80 AF"),
        ("encoded_surrogate_eda080", b"a\xed\xa0\x80", "an encoded surrogate ED A0 80"),
        (
            "cesu8_pair",
            b"\xed\xa0\xbd\xed\xb8\x80",
            "CESU-8 (two encoded surrogates) of U+1F600 as a name",
        ),
        (
            "latin1_name",
            b"caf\xe9",
            "a Latin-1 name: 0xE9 not followed by continuations",
        ),
        (
            "five_byte_form",
            b"\xf8\x88\x80\x80\x80",
            "an obsolete 5-byte form F8 88 80 80 80",
        ),
    ]
    out = [
        make(
            f"n_text_utf8_{fault}",
            ["HEADER-UTF8"],
            f"ill-formed UTF-8: {what}",
            data=_file(_named(name)),
            tags=["security"],
        )
        for fault, name, what in bad_names
    ]
    out += [
        make(
            "n_text_utf8_overlong_c0af_metadata",
            ["HEADER-UTF8"],
            "ill-formed UTF-8: overlong '/' C0 AF inside a metadata value",
            data=_file(_meta_value(b"\xc0\xaf")),
            tags=["security"],
        ),
        make(
            "n_text_utf8_above_max_f4908080",
            ["HEADER-UTF8"],
            "ill-formed UTF-8: F4 90 80 80 encodes U+110000, above U+10FFFF",
            data=_file(_meta_value(b"\xf4\x90\x80\x80")),
        ),
        make(
            "n_text_utf8_in_padding",
            ["HEADER-UTF8"],
            "a valid object whose 0x20 padding holds one 0xff byte",
            data=_file(_HEADER + b"   \xff   ", align=None),
        ),
        make(
            "n_text_utf16le_header",
            ["HEADER-UTF8"],
            "the header encoded as UTF-16LE with a BOM (FF FE 7B 00 ...)",
            data=_file(b"\xff\xfe" + _BASE.header.encode("utf-16-le")),
        ),
    ]
    names = ["\u00e9", "\u20ac", "\U0001f600", "\U0010ffff"]
    multi = build([tensor(n, "U8", [1], [i]) for i, n in enumerate(names)])
    nonchar = build(
        [tensor(n, "U8", [1], [7]) for n in ["\ufffe\uffff", "\u2028\u2029"]]
    )
    meta = {"k\u00e9": "\u65e5\u672c\U0001f600", "max": "\U0010ffff"}
    out += [
        make(
            "y_text_utf8_multibyte_names",
            ["HEADER-UTF8"],
            "names of 2-, 3- and 4-byte UTF-8 characters up to U+10FFFF, written raw",
            data=multi.data,
            expected=multi.expected,
        ),
        make(
            "y_text_utf8_noncharacters",
            ["HEADER-UTF8"],
            "names with noncharacters U+FFFE U+FFFF and separators U+2028 U+2029 (raw)",
            data=nonchar.data,
            expected=nonchar.expected,
        ),
        make(
            "y_text_utf8_metadata",
            ["HEADER-UTF8", "META-STRING"],
            "metadata keys and values with raw multibyte UTF-8",
            data=build([], meta).data,
            expected=build([], meta).expected,
        ),
    ]
    return out


def _object() -> list[Case]:
    bad = [
        (
            "bom_before_object",
            b"\xef\xbb\xbf" + _HEADER,
            _BUFFER,
            "a UTF-8 BOM before the {",
        ),
        ("whitespace_only", b" " * 8, b"", "a header of eight spaces, no object"),
        ("top_level_array", b"[]", b"", "the header is [] (an array)"),
        ("top_level_number", b"1", b"", "the header is the number 1"),
        ("top_level_string", b'"x"', b"", 'the header is the string "x"'),
        ("top_level_null", b"null", b"", "the header is null"),
        ("top_level_true", b"true", b"", "the header is true"),
        (
            "top_level_string_of_object",
            b'"{}"',
            b"",
            "the header is a JSON string holding {}",
        ),
        (
            "top_level_array_of_entries",
            b"[" + _ENTRY.encode() + b"]",
            b"",
            "the header is an array holding one tensor entry",
        ),
        ("not_json", b"safetensors", b"", "the header is plain text"),
        ("nul_before_object", b"\x00" + _HEADER, _BUFFER, "a NUL byte before the {"),
        (
            "nbsp_before_object",
            b"\xc2\xa0" + _HEADER,
            _BUFFER,
            "U+00A0 (not JSON whitespace) before the {",
        ),
        (
            "form_feed_before_object",
            b"\x0c" + _HEADER,
            _BUFFER,
            "0x0C form feed before the {",
        ),
        (
            "vertical_tab_before_object",
            b"\x0b" + _HEADER,
            _BUFFER,
            "0x0B vertical tab before the {",
        ),
    ]
    out = [
        make(
            f"n_text_{fault}",
            ["HEADER-OBJECT"],
            what,
            data=_file(header, buffer),
        )
        for fault, header, buffer, what in bad
    ]
    out.append(
        make(
            "y_text_object_at_first_byte",
            ["HEADER-OBJECT", "HEADER-LEADING-WS"],
            "the canonical form: { is the first header byte, 0x20 padding after }",
            data=_BASE.data,
            expected=_BASE.expected,
        )
    )
    return out


def _whitespace() -> list[Case]:
    leading = [
        ("space", b" ", "one 0x20"),
        ("tab", b"\t", "one 0x09"),
        ("lf", b"\n", "one 0x0A"),
        ("cr", b"\r", "one 0x0D"),
        ("crlf_mixed", b"\r\n\t \r\n", "CR LF TAB SPACE CR LF"),
    ]
    out = [
        make(
            f"i_text_leading_{fault}",
            ["HEADER-LEADING-WS"],
            f"{what} before the {{ (JSON whitespace; writers never produce it)",
            data=_file(ws + _HEADER),
            expected=_BASE.expected,
        )
        for fault, ws, what in leading
    ]
    page = 4096 - 8 - len(_HEADER)
    out.append(
        make(
            "i_text_leading_spaces_page_aligned",
            ["HEADER-LEADING-WS"],
            f"{page} leading spaces so the data starts at file offset 4096",
            data=_file(b" " * page + _HEADER, align=None),
            expected=_BASE.expected,
            provenance=bug("huggingface/safetensors#686"),
        )
    )
    trailing = [
        ("tab", b"\t", "0x09 bytes"),
        ("lf", b"\n", "0x0A bytes"),
        ("cr", b"\r", "0x0D bytes"),
    ]
    out += [
        make(
            f"i_text_padding_{fault}",
            ["HEADER-PADDING"],
            f"the header is padded with {what} instead of 0x20",
            data=assemble(_HEADER, _BUFFER, pad=pad),
            expected=_BASE.expected,
            provenance=bug("ohdearquant/lattice#1468")
            if fault == "tab"
            else bug("huggingface/safetensors#775"),
        )
        for fault, pad, what in trailing
    ]
    out += [
        make(
            "i_text_padding_cr_space_tab_lf",
            ["HEADER-PADDING"],
            "padding CR SPACE TAB LF after the object (the reference's own test)",
            data=_file(_HEADER + b"\r \t \n", align=None),
            expected=_BASE.expected,
            provenance=ported("huggingface/safetensors test_whitespace_padded_header"),
        ),
        make(
            "i_text_leading_and_trailing_lf",
            ["HEADER-LEADING-WS", "HEADER-PADDING"],
            "an LF before the { and LF padding after the }",
            data=_file(b"\n" + _HEADER + b"\n", align=None),
            expected=_BASE.expected,
        ),
    ]
    pretty = (
        b'{\n\t"a" : {\r\n  "dtype" :\t"F32" ,\n  "shape" : [ 2 ] ,'
        b'\n  "data_offsets" : [ 0 ,\t8 ]\n\t}\n}'
    )
    out += [
        make(
            "y_text_padding_spaces",
            ["HEADER-PADDING", "HEADER-TRAILING"],
            "100 bytes of 0x20 padding after the object",
            data=_file(_HEADER + b" " * 100, align=None),
            expected=_BASE.expected,
        ),
        make(
            "y_text_padding_none",
            ["HEADER-PADDING"],
            f"no padding: the object's }} is the last header byte (N = {len(_HEADER)})",
            data=_file(_HEADER, align=None),
            expected=_BASE.expected,
            provenance=bug("ml-explore/mlx#4439"),
        ),
        make(
            "y_text_whitespace_between_tokens",
            ["HEADER-LEADING-WS", "HEADER-PADDING", "JSON-SYNTAX"],
            "pretty-printed: SPACE TAB LF CR between tokens, { first, 0x20 after }",
            data=_file(pretty),
            expected=_BASE.expected,
        ),
    ]
    return out


def _trailing() -> list[Case]:
    bad = [
        ("nul_padding", _HEADER + b"\x00" * 5, "NUL bytes instead of 0x20 padding"),
        ("nul_then_spaces", _HEADER + b"\x00    ", "one NUL, then 0x20 padding"),
        ("two_objects", _HEADER + b"{}", "a second object {} after the first"),
        ("junk", _HEADER + b" x", "the byte 'x' after the object"),
        ("comma", _HEADER + b",", "a comma after the object"),
        ("extra_brace", _HEADER + b"}", "an extra } after the object"),
        ("null_literal", _HEADER + b"null", "the literal null after the object"),
        (
            "form_feed",
            _HEADER + b"\x0c",
            "0x0C form feed (not JSON whitespace) after }",
        ),
        ("nbsp", _HEADER + b"\xc2\xa0", "U+00A0 (not JSON whitespace) after }"),
        (
            "second_header",
            _HEADER + obj([("b", entry("F32", [0], 8, 8))]).encode(),
            "a second object naming another tensor after the first",
        ),
    ]
    out = [
        make(
            f"n_text_trailing_{fault}",
            ["HEADER-TRAILING"],
            what,
            data=_file(header),
            provenance=bug("ruvnet/RuView#1522")
            if fault == "nul_padding"
            else GENERATOR,
        )
        for fault, header, what in bad
    ]
    out.append(
        make(
            "n_text_trailing_writer_empty_metadata",
            ["HEADER-TRAILING"],
            "the reference writer's output for metadata={} and no tensors: "
            '{},"__metadata__":{}}',
            data=_file(b'{},"__metadata__":{}}', b""),
            provenance=bug("huggingface/safetensors#466"),
        )
    )
    return out


# huggingface_hub's remote reader asks first for bytes 0-100000 (100,001
# bytes); a header longer than the 99,993 bytes that leaves after the prefix
# needs a second Range request.
_FIRST_RANGE = 100_001


def _range_boundary() -> list[Case]:
    out = []
    for case_id, n, what in (
        ("y_text_header_fills_first_range", _FIRST_RANGE - 8,
         "fills a first 100,001-byte range"),
        ("y_text_header_straddles_first_range", _FIRST_RANGE - 7,
         "ends 1 byte past a 100,001-byte range"),
    ):  # fmt: skip
        short = build([tensor("a", "F32", [2], [1.5, -2.0])], {"k": ""}, align=None)
        filler = "x" * (n - len(short.header.encode()))
        built = build([tensor("a", "F32", [2], [1.5, -2.0])], {"k": filler}, align=None)
        assert len(built.header.encode()) == n  # noqa: S101 - the case's point
        out.append(
            make(
                case_id,
                ["HEADER-BOUNDS"],
                f"a {n:,}-byte header that {what}",
                data=built.data,
                expected=built.expected,
            )
        )
    return out


def cases() -> list[Case]:
    """Return the family's cases."""
    return [*_utf8(), *_object(), *_whitespace(), *_trailing(), *_range_boundary()]
