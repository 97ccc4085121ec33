"""Family `json`: the accepted JSON grammar, nesting, surrogates and numbers."""

from __future__ import annotations

from typing import Final

from stspec.rules import U64_MAX
from stspec_corpus._model import (
    Case,
    Expected,
    Raw,
    T,
    assemble,
    build,
    entry,
    make,
    obj,
    tensor,
)

_BASE = build([tensor("a", "F32", [2], [1.5, -2.0])])
_BUFFER: Final = _BASE.data[-8:]
_MATRIX = build([tensor("m", "I16", [2, 2], [1, -2, 3, -4])])
_ENTRY: Final = entry("F32", [2], 0, 8)


def _file(header: str | bytes, buffer: bytes = _BUFFER) -> bytes:
    return assemble(header, buffer)


def _syntax() -> list[Case]:
    e = _ENTRY
    bad: list[tuple[str, str | bytes, str]] = [
        (
            "comment_line",
            '{"a":' + e + "// note\n}",
            "a // line comment inside the object",
        ),
        (
            "comment_block",
            '{/* note */"a":' + e + "}",
            "a /* block comment */ before a name",
        ),
        ("comment_hash", '{"a":' + e + "# note\n}", "a # comment inside the object"),
        (
            "trailing_comma_object",
            '{"a":' + e + ",}",
            "a trailing comma before the final }",
        ),
        (
            "trailing_comma_entry",
            '{"a":{"dtype":"F32","shape":[2],"data_offsets":[0,8],}}',
            "a trailing comma inside the tensor entry",
        ),
        (
            "trailing_comma_shape",
            '{"a":' + entry("F32", "[2,]", 0, 8) + "}",
            "a trailing comma in the shape [2,]",
        ),
        (
            "nan_in_shape",
            '{"a":' + entry("F32", "[NaN]", 0, 8) + "}",
            "NaN as a dimension",
        ),
        (
            "infinity_in_offsets",
            '{"a":' + entry("F32", [2], 0, "Infinity") + "}",
            "Infinity as an offset",
        ),
        ("single_quoted_name", "{'a':" + e + "}", "a single-quoted member name"),
        (
            "single_quoted_dtype",
            '{"a":{"dtype":\'F32\',"shape":[2],"data_offsets":[0,8]}}',
            "a single-quoted dtype string",
        ),
        (
            "leading_zero_offset",
            '{"a":' + entry("F32", [2], 0, "08") + "}",
            "the offset 08 (a leading zero)",
        ),
        (
            "leading_zero_dim",
            '{"a":' + entry("F32", "[02]", 0, 8) + "}",
            "the dimension 02 (a leading zero)",
        ),
        (
            "plus_sign_dim",
            '{"a":' + entry("F32", "[+2]", 0, 8) + "}",
            "the dimension +2",
        ),
        ("hex_dim", '{"a":' + entry("F32", "[0x2]", 0, 8) + "}", "the dimension 0x2"),
        (
            "leading_dot_dim",
            '{"a":' + entry("F32", "[.5]", 0, 8) + "}",
            "the dimension .5",
        ),
        (
            "trailing_dot_dim",
            '{"a":' + entry("F32", "[2.]", 0, 8) + "}",
            "the dimension 2.",
        ),
        (
            "empty_array_element",
            '{"a":' + entry("F32", [2], 0, ",8") + "}",
            "an empty element in data_offsets [0,,8]",
        ),
        (
            "missing_comma_in_array",
            '{"a":{"dtype":"F32","shape":[2],"data_offsets":[0 8]}}',
            "no comma between offsets: [0 8]",
        ),
        (
            "missing_comma_between_members",
            '{"a":{"dtype":"F32" "shape":[2],"data_offsets":[0,8]}}',
            "no comma between two entry fields",
        ),
        ("missing_colon", '{"a" ' + e + "}", 'no colon after the name: {"a" {...}}'),
        ("unquoted_name", "{a:" + e + "}", "an unquoted member name"),
        (
            "unterminated_string",
            '{"a',
            "a name string that never closes (padding follows)",
        ),
        (
            "unterminated_object",
            '{"a":' + e,
            "the final } is missing (padding follows)",
        ),
        (
            "unterminated_array",
            '{"a":{"dtype":"F32","shape":[2,"data_offsets":[0,8]}}',
            "the shape's ] is missing",
        ),
        (
            "raw_control_char_in_name",
            b'{"a\x01":' + e.encode() + b"}",
            "a raw 0x01 inside a name",
        ),
        (
            "raw_nul_in_name",
            b'{"a\x00":' + e.encode() + b"}",
            "a raw 0x00 inside a name",
        ),
        (
            "raw_tab_in_name",
            b'{"a\tb":' + e.encode() + b"}",
            "a raw 0x09 inside a name",
        ),
        (
            "raw_newline_in_metadata",
            b'{"__metadata__":{"k":"line\nbreak"},"a":' + e.encode() + b"}",
            "a raw LF inside a metadata value",
        ),
        ("bad_escape_x", '{"a\\x41":' + e + "}", "the escape \\x41 (not JSON)"),
        ("bad_escape_quote", '{"a\\\'":' + e + "}", "the escape \\' (not JSON)"),
        (
            "truncated_unicode_escape",
            '{"a\\u00e":' + e + "}",
            "the escape \\u00e (3 hex digits)",
        ),
        (
            "capital_u_escape",
            '{"a\\U0041":' + e + "}",
            "the escape \\U0041 (capital U)",
        ),
        (
            "python_literal",
            '{"__metadata__":{"k":None},"a":' + e + "}",
            "the Python literal None as a metadata value",
        ),
        (
            "capitalised_literal",
            '{"__metadata__":{"k":True},"a":' + e + "}",
            "the literal True (capitalised) as a metadata value",
        ),
    ]
    out = [
        make(f"n_json_{fault}", ["JSON-SYNTAX"], what, data=_file(header))
        for fault, header, what in bad
    ]
    names = [
        '"\\"q"',
        '"\\\\b"',
        '"\\/s"',
        '"\\b\\f\\n\\r\\t"',
        '"\\u0041\\u00E9"',
        '"d\x7f"',
    ]
    decoded = ['"q', "\\b", "/s", "\b\f\n\r\t", "A\u00e9", "d\x7f"]
    tensors = [tensor(n, "U8", [1], [i + 1]) for i, n in enumerate(decoded)]
    header = obj(
        [(Raw(names[i]), entry("U8", [1], i, i + 1)) for i in range(len(names))]
    )
    out += [
        make(
            "y_json_escapes_in_names",
            ["JSON-SYNTAX", "KEY-UNIQUE"],
            "names spelt with every JSON escape and a raw DEL",
            data=_file(header, b"\x01\x02\x03\x04\x05\x06"),
            expected=Expected(None, {t.name: t.expected() for t in tensors}),
        ),
        make(
            "y_json_escaped_dtype",
            ["DTYPE-NAME", "JSON-SYNTAX"],
            'the dtype spelt "F\\u00332": it unescapes to F32',
            data=_file('{"a":{"dtype":"F\\u00332","shape":[2],"data_offsets":[0,8]}}'),
            expected=_BASE.expected,
        ),
    ]
    return out


def _depth() -> list[Case]:
    bomb = 100_000
    deep = 125  # root object (1) + entry (2) + shape (3) + 125 more = 128 levels
    nested_meta = '{"k":' * 130 + '"v"' + "}" * 130
    return [
        make(
            "n_json_depth_bomb_100000_arrays",
            ["JSON-DEPTH"],
            "the shape is 100,000 nested arrays [[[...]]] (balanced)",
            data=_file('{"a":' + entry("F32", "[" * bomb + "]" * bomb, 0, 8) + "}"),
            tags=["security"],
        ),
        make(
            "n_json_depth_128_in_shape",
            ["JSON-DEPTH"],
            "128 levels: the shape holds 125 more nested arrays",
            data=_file(
                '{"a":' + entry("F32", "[" * (deep + 1) + "]" * (deep + 1), 0, 8) + "}"
            ),
        ),
        make(
            "n_json_depth_objects_in_metadata",
            ["JSON-DEPTH"],
            "a metadata value of 130 nested objects (132 levels)",
            data=_file('{"__metadata__":{"k":' + nested_meta + '},"a":' + _ENTRY + "}"),
            tags=["security"],
        ),
        make(
            "y_json_depth_3",
            ["JSON-DEPTH"],
            "the deepest valid nesting (object, entry, shape array) in a 2x2 tensor",
            data=_MATRIX.data,
            expected=_MATRIX.expected,
        ),
    ]


def _surrogates() -> list[Case]:
    bad = [
        (
            "lone_high_in_name",
            '"\\ud800"',
            "a lone high surrogate escape \\ud800 as a name",
        ),
        (
            "lone_low_in_name",
            '"\\udc00"',
            "a lone low surrogate escape \\udc00 as a name",
        ),
        (
            "high_then_ascii",
            '"\\ud800\\u0041"',
            "\\ud800 followed by \\u0041, not a low one",
        ),
        ("high_then_high", '"\\ud83d\\ud83d"', "two high surrogate escapes in a row"),
        ("reversed_pair", '"\\ude00\\ud83d"', "a surrogate pair in the wrong order"),
        ("high_at_end", '"x\\ud83d"', "a high surrogate escape ends the name"),
    ]
    out = [
        make(
            f"n_json_surrogate_{fault}",
            ["JSON-SURROGATE"],
            what,
            data=_file(obj([(Raw(name), _ENTRY)])),
            tags=["security"],
        )
        for fault, name, what in bad
    ]
    out += [
        make(
            "n_json_surrogate_in_metadata_value",
            ["JSON-SURROGATE"],
            "a lone surrogate escape \\udfff inside a metadata value",
            data=_file('{"__metadata__":{"k":"v\\udfff"},"a":' + _ENTRY + "}"),
        ),
        make(
            "n_json_surrogate_in_metadata_key",
            ["JSON-SURROGATE"],
            "a lone surrogate escape \\ud800 as a metadata key",
            data=_file('{"__metadata__":{"\\ud800":"v"},"a":' + _ENTRY + "}"),
        ),
    ]
    t = tensor("\U0001f600", "F32", [2], [1.5, -2.0])
    out.append(
        make(
            "y_json_surrogate_pair_escape",
            ["JSON-SURROGATE"],
            "a name spelt as the escaped pair \\ud83d\\ude00 (U+1F600)",
            data=_file(obj([(Raw('"\\ud83d\\ude00"'), _ENTRY)])),
            expected=Expected(None, {t.name: t.expected()}),
        )
    )
    return out


def _numbers() -> list[Case]:
    f32_1 = "[0,4]"
    integer: list[tuple[str, str, str, bytes, str]] = [
        ("negative_dim", "[-1]", f32_1, _BUFFER[:4], "the dimension -1"),
        ("negative_zero_dim", "[-0]", "[0,0]", b"", "the dimension -0"),
        ("float_dim", "[1.0]", f32_1, _BUFFER[:4], "the dimension 1.0"),
        ("exponent_dim", "[2e0]", "[0,8]", _BUFFER, "the dimension 2e0"),
        ("exponent_upper_dim", "[1E1,0]", "[0,0]", b"", "the dimension 1E1"),
        ("fraction_dim", "[0.5]", f32_1, _BUFFER[:4], "the dimension 0.5"),
        ("huge_exponent_dim", "[1e400,0]", "[0,0]", b"", "the dimension 1e400"),
        (
            "negative_2pow64_dim",
            "[-18446744073709551616,0]",
            "[0,0]",
            b"",
            "the dimension -2^64",
        ),
        ("float_offset", "[1]", "[0,4.0]", _BUFFER[:4], "the offset 4.0"),
        ("exponent_offset", "[1]", "[0,4e0]", _BUFFER[:4], "the offset 4e0"),
        ("exponent_zero_begin", "[1]", "[0e0,4]", _BUFFER[:4], "the begin offset 0e0"),
        ("negative_zero_begin", "[1]", "[-0,4]", _BUFFER[:4], "the begin offset -0"),
        ("negative_begin", "[1]", "[-4,0]", b"", "the begin offset -4"),
    ]
    out = [
        make(
            f"n_json_number_{fault}",
            ["NUM-INTEGER"],
            f"{what}: an integer field holds a non-integer token",
            data=_file(
                '{"a":{"dtype":"F32","shape":'
                + shape
                + ',"data_offsets":'
                + offsets
                + "}}",
                buffer,
            ),
        )
        for fault, shape, offsets, buffer, what in integer
    ]
    two64 = str(2**64)
    digits = "1" + "0" * 9999
    ranged: list[tuple[str, str, str, bytes, str]] = [
        ("2pow64_dim", f"[{two64},0]", "[0,0]", b"", "the dimension 2^64"),
        (
            "20_digits_dim",
            "[99999999999999999999,0]",
            "[0,0]",
            b"",
            "a 20-digit dimension",
        ),
        ("10000_digits_dim", f"[0,{digits}]", "[0,0]", b"", "a 10,000-digit dimension"),
        ("2pow64_offset", "[1]", f"[0,{two64}]", _BUFFER[:4], "the end offset 2^64"),
        (
            "10000_digits_offset",
            "[1]",
            f"[0,{digits}]",
            _BUFFER[:4],
            "a 10,000-digit offset",
        ),
    ]
    out += [
        make(
            f"n_json_number_{fault}",
            ["NUM-RANGE"],
            f"{what}: above 2^64-1",
            data=_file(
                '{"a":{"dtype":"F32","shape":'
                + shape
                + ',"data_offsets":'
                + offsets
                + "}}",
                buffer,
            ),
            tags=["security"],
        )
        for fault, shape, offsets, buffer, what in ranged
    ]
    huge = T("a", "F32", (0, U64_MAX), b"")
    huge_data = _file('{"a":' + entry("F32", [0, U64_MAX], 0, 0) + "}", b"")
    out.append(
        make(
            "y_json_number_u64_max_dim",
            ["NUM-RANGE", "NUM-INTEGER"],
            "the dimension 2^64-1 (20 digits, the largest allowed) beside a 0: empty",
            data=huge_data,
            expected=Expected(None, {"a": huge.expected()}),
            tags=["security"],
        )
    )
    return out


def cases() -> list[Case]:
    """Return the family's cases."""
    return [*_syntax(), *_depth(), *_surrogates(), *_numbers()]
