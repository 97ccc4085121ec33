"""Family `structure`: members, entries, fields, metadata and names."""

from __future__ import annotations

from typing import Final

from stspec_corpus._model import (
    GENERATOR,
    Case,
    Expected,
    assemble,
    bug,
    build,
    entry,
    make,
    obj,
    tensor,
)

_A: Final = tensor("a", "F32", [1], [1.5])
_BASE = build([_A])
_BUFFER: Final = _A.data
_ENTRY: Final = entry("F32", [1], 0, 4)
_RANK8 = build([tensor("r", "U8", [1, 2, 1, 1, 1, 1, 1, 2], [1, 2, 3, 4])])


def _file(header: str | bytes, buffer: bytes = _BUFFER) -> bytes:
    return assemble(header, buffer)


def _duplicates() -> list[Case]:
    u8 = bytes([1, 2, 3, 4])
    rows: list[tuple[str, str, bytes, str, str | None]] = [
        (
            "tensor_identical",
            '{"a":' + _ENTRY + ',"a":' + _ENTRY + "}",
            _BUFFER,
            "the tensor name a twice with identical entries",
            None,
        ),
        (
            "tensor_different_dtype",
            '{"a":' + entry("I32", [1], 0, 4) + ',"a":' + _ENTRY + "}",
            _BUFFER,
            "a twice: I32 then F32 over the same bytes (first-wins != last-wins)",
            "TOB-SFTN-7",
        ),
        (
            "tensor_different_shape",
            '{"a":'
            + entry("U8", [4], 0, 4)
            + ',"a":'
            + entry("U8", [2, 2], 0, 4)
            + "}",
            u8,
            "a twice: U8[4] then U8[2,2] over the same bytes",
            None,
        ),
        (
            "tensor_escaped_name",
            '{"a":' + _ENTRY + ',"\\u0061":' + _ENTRY + "}",
            _BUFFER,
            'the names "a" and "\\u0061": equal only after unescaping',
            None,
        ),
        (
            "tensor_disjoint_ranges",
            '{"a":' + _ENTRY + ',"a":' + entry("F32", [1], 4, 8) + "}",
            _BUFFER * 2,
            "a twice over [0,4] and [4,8]: together they tile the buffer",
            "huggingface/safetensors#401",
        ),
        (
            "metadata_member",
            '{"__metadata__":{"k":"1"},"__metadata__":{"k":"2"},"a":' + _ENTRY + "}",
            _BUFFER,
            "the member __metadata__ twice",
            None,
        ),
        (
            "metadata_member_escaped",
            '{"__metadata__":{"k":"1"},"\\u005f_metadata__":{"k":"1"},"a":'
            + _ENTRY
            + "}",
            _BUFFER,
            '__metadata__ twice, once spelt "\\u005f_metadata__"',
            None,
        ),
        (
            "metadata_key",
            '{"__metadata__":{"k":"1","k":"2"},"a":' + _ENTRY + "}",
            _BUFFER,
            "the metadata key k twice with different values",
            None,
        ),
        (
            "metadata_key_escaped",
            '{"__metadata__":{"k":"1","\\u006b":"2"},"a":' + _ENTRY + "}",
            _BUFFER,
            'the metadata keys "k" and "\\u006b": equal only after unescaping',
            None,
        ),
        (
            "metadata_key_escaped_pair",
            '{"__metadata__":{"\U0001f600":"1","\\ud83d\\ude00":"2"},"a":'
            + _ENTRY
            + "}",
            _BUFFER,
            "a metadata key as a raw emoji and as its escaped surrogate pair",
            None,
        ),
        (
            "field_escaped",
            (
                '{"a":{"dtype":"F32","\\u0064type":"F32","shape":[1],'
                '"data_offsets":[0,4]}}'
            ),
            _BUFFER,
            'the entry fields "dtype" and "\\u0064type": equal after unescaping',
            None,
        ),
        (
            "field_escaped_first",
            (
                '{"a":{"\\u0064type":"F32","shape":[1],"data_offsets":[0,4],'
                '"dtype":"I32"}}'
            ),
            _BUFFER,
            'the entry field "\\u0064type" first, then "dtype" with another value',
            None,
        ),
        (
            "field_dtype",
            '{"a":{"dtype":"F32","dtype":"F32","shape":[1],"data_offsets":[0,4]}}',
            _BUFFER,
            "the entry field dtype twice (same value)",
            None,
        ),
        (
            "field_shape",
            '{"a":{"dtype":"F32","shape":[1],"shape":[1],"data_offsets":[0,4]}}',
            _BUFFER,
            "the entry field shape twice (same value)",
            None,
        ),
        (
            "field_data_offsets",
            '{"a":{"dtype":"F32","shape":[1],"data_offsets":[0,4],"data_offsets":[0,4]}}',
            _BUFFER,
            "the entry field data_offsets twice (same value)",
            None,
        ),
    ]
    out = [
        make(
            f"n_structure_duplicate_{fault}",
            ["KEY-UNIQUE"],
            what,
            data=_file(header, buffer),
            tags=["security"],
            provenance=GENERATOR if ref is None else bug(ref),
        )
        for fault, header, buffer, what, ref in rows
    ]
    nfc = tensor("\u00e9", "U8", [1], [1])
    nfd = tensor("e\u0301", "U8", [1], [2])
    case_pair = build([tensor("a", "U8", [1], [3]), tensor("A", "U8", [1], [4])])
    norm = build([nfc, nfd])
    out += [
        make(
            "y_structure_names_nfc_nfd",
            ["KEY-UNIQUE"],
            "two names equal only after Unicode normalisation (NFC and NFD e-acute)",
            data=norm.data,
            expected=norm.expected,
            tags=["security"],
        ),
        make(
            "y_structure_names_differ_in_case",
            ["KEY-UNIQUE"],
            "two names that differ only in case: a and A",
            data=case_pair.data,
            expected=case_pair.expected,
        ),
    ]
    return out


def _entries() -> list[Case]:
    e = _ENTRY
    not_object: list[tuple[str, str, bytes, str]] = [
        ("number", "1", b"", "the entry is the number 1"),
        ("string", '"F32"', b"", 'the entry is the string "F32"'),
        ("null", "null", b"", "the entry is null"),
        ("true", "true", b"", "the entry is true"),
        ("empty_array", "[]", b"", "the entry is []"),
        (
            "positional_array",
            '["F32",[1],[0,4]]',
            _BUFFER,
            'the entry is the positional array ["F32",[1],[0,4]] (serde accepts it)',
        ),
    ]
    out = [
        make(
            f"n_structure_entry_{fault}",
            ["ENTRY-OBJECT"],
            what,
            data=_file(obj([("a", value)]), buffer),
        )
        for fault, value, buffer, what in not_object
    ]
    missing: list[tuple[str, str, bytes, str]] = [
        ("dtype", '{"shape":[1],"data_offsets":[0,4]}', _BUFFER, "no dtype field"),
        ("shape", '{"dtype":"F32","data_offsets":[0,4]}', _BUFFER, "no shape field"),
        (
            "data_offsets",
            '{"dtype":"F32","shape":[1]}',
            b"",
            "no data_offsets field (and no bytes for it)",
        ),
        ("all_fields", "{}", b"", "an empty entry {}"),
    ]
    out += [
        make(
            f"n_structure_missing_{fault}",
            ["ENTRY-FIELDS"],
            f"the tensor entry has {what}",
            data=_file(obj([("a", value)]), buffer),
        )
        for fault, value, buffer, what in missing
    ]
    out.append(
        make(
            "n_structure_missing_data_offsets_beside_valid",
            ["ENTRY-FIELDS"],
            "tensor a is complete; tensor b (F32[0]) lacks data_offsets",
            data=_file(obj([("a", e), ("b", '{"dtype":"F32","shape":[0]}')])),
        )
    )
    unknown: list[tuple[str, str, str]] = [
        ("string", '"note":"x",', 'an extra field "note":"x"'),
        ("object", '"quant":{"scale":"0.5","bits":4},', "an extra object-valued field"),
        ("null", '"extra":null,', "an extra field holding null"),
        ("number", '"alignment":64,', 'an extra field "alignment":64'),
        (
            "typo_data_offset",
            '"data_offset":[4,8],',
            'an extra "data_offset" (singular) field',
        ),
        (
            "depth_127",
            '"x":' + "[" * 125 + "]" * 125 + ",",
            "an extra field of 125 nested arrays (127 levels, the most allowed)",
        ),
    ]
    out += [
        make(
            f"i_structure_unknown_field_{fault}",
            ["ENTRY-UNKNOWN"],
            f"{what} in the tensor entry",
            data=_file(
                '{"a":{' + field + '"dtype":"F32","shape":[1],"data_offsets":[0,4]}}'
            ),
            expected=_BASE.expected,
        )
        for fault, field, what in unknown
    ]
    two = build([tensor("a", "F32", [1], [1.5]), tensor("b", "U8", [2], [1, 2])])
    out += [
        make(
            "i_structure_unknown_field_every_entry",
            ["ENTRY-UNKNOWN"],
            "both tensor entries carry an unknown field after the three known ones",
            data=_file(
                obj(
                    [
                        ("a", entry("F32", [1], 0, 4)[:-1] + ',"u":1}'),
                        ("b", entry("U8", [2], 4, 6)[:-1] + ',"u":2}'),
                    ]
                ),
                two.data[-6:],
            ),
            expected=two.expected,
        ),
        make(
            "y_structure_entry_exact_fields",
            ["ENTRY-OBJECT", "ENTRY-FIELDS", "SHAPE-ARRAY", "OFFSETS-PAIR"],
            "an entry with exactly dtype, shape [] (rank 0) and a [begin, end] pair",
            data=_file('{"a":{"dtype":"F32","shape":[],"data_offsets":[0,4]}}'),
            expected=Expected(None, {"a": tensor("a", "F32", [], [1.5]).expected()}),
        ),
        make(
            "y_structure_shape_rank_8",
            ["SHAPE-ARRAY"],
            "a shape of eight dimensions [1,2,1,1,1,1,1,2]",
            data=_RANK8.data,
            expected=_RANK8.expected,
        ),
        make(
            "y_structure_fields_reordered",
            ["ENTRY-FIELDS", "ENTRY-UNKNOWN"],
            "the entry lists data_offsets, shape, dtype (exactly the three fields)",
            data=_file('{"a":{"data_offsets":[0,4],"shape":[1],"dtype":"F32"}}'),
            expected=_BASE.expected,
        ),
    ]
    return out


def _types() -> list[Case]:
    shapes: list[tuple[str, str, str]] = [
        ("number", "1", "the number 1"),
        ("string", '"[1]"', 'the string "[1]"'),
        ("object", '{"0":1}', 'the object {"0":1}'),
        ("null", "null", "null"),
        ("bool", "true", "true"),
        ("string_element", '["1"]', 'the array ["1"]'),
        ("null_element", "[null]", "the array [null]"),
        ("bool_element", "[true]", "the array [true]"),
        ("nested_element", "[[1]]", "the nested array [[1]]"),
        ("object_element", "[{}]", "the array [{}]"),
    ]
    out = [
        make(
            f"n_structure_shape_{fault}",
            ["SHAPE-ARRAY"],
            f"the shape is {what}, not an array of numbers",
            data=_file(obj([("a", entry("F32", shape, 0, 4))])),
        )
        for fault, shape, what in shapes
    ]
    offsets: list[tuple[str, str, str]] = [
        ("one_element", "[4]", "[4] (one element)"),
        ("three_elements", "[0,4,4]", "[0,4,4] (three elements)"),
        ("empty", "[]", "[] (no elements)"),
        ("object", '{"begin":0,"end":4}', 'the object {"begin":0,"end":4}'),
        ("strings", '["0","4"]', 'the strings ["0","4"]'),
        ("null", "null", "null"),
        ("null_element", "[0,null]", "[0,null]"),
        ("bool_element", "[0,true]", "[0,true]"),
        ("string", '"0,4"', 'the string "0,4"'),
        ("nested", "[[0,4]]", "[[0,4]] (one nested pair)"),
    ]
    out += [
        make(
            f"n_structure_offsets_{fault}",
            ["OFFSETS-PAIR"],
            f"data_offsets is {what}, not two integers",
            data=_file(
                '{"a":{"dtype":"F32","shape":[1],"data_offsets":' + value + "}}"
            ),
        )
        for fault, value, what in offsets
    ]
    return out


def _metadata() -> list[Case]:
    e = _ENTRY
    not_object: list[tuple[str, str]] = [
        ("string", '"format=pt"'),
        ("array", '[["format","pt"]]'),
        ("number", "1"),
        ("bool", "false"),
    ]
    out = [
        make(
            f"n_structure_metadata_is_{fault}",
            ["META-OBJECT"],
            f"__metadata__ is {value}, not an object",
            data=_file('{"__metadata__":' + value + ',"a":' + e + "}"),
        )
        for fault, value in not_object
    ]
    values: list[tuple[str, str, str | None]] = [
        ("integer", "1", "huggingface/safetensors#278"),
        ("float", "0.5", None),
        ("null", "null", None),
        ("bool", "true", None),
        ("object", '{"nested":"x"}', None),
        ("empty_object", "{}", None),
        ("array", '["a","b"]', None),
    ]
    out += [
        make(
            f"n_structure_metadata_value_{fault}",
            ["META-STRING"],
            f"a metadata value is {value}, not a string",
            data=_file(
                '{"__metadata__":{"format":"pt","k":' + value + '},"a":' + e + "}"
            ),
            provenance=GENERATOR if ref is None else bug(ref),
        )
        for fault, value, ref in values
    ]
    out.append(
        make(
            "n_structure_reserved_name_tensor_entry",
            ["META-STRING"],
            "a tensor named __metadata__ (F32[0]): shape and offsets are not strings",
            data=_file('{"__metadata__":' + entry("F32", [0], 0, 0) + "}", b""),
            tags=["security"],
            provenance=bug("huggingface/safetensors#849"),
        )
    )
    out += [
        make(
            "i_structure_metadata_null",
            ["META-NULL"],
            '"__metadata__": null beside one tensor (readers may read it as absent)',
            data=_file('{"__metadata__":null,"a":' + e + "}"),
            expected=_BASE.expected,
        ),
        make(
            "i_structure_metadata_null_no_tensors",
            ["META-NULL"],
            'the header is {"__metadata__":null}: no metadata, no tensors',
            data=_file('{"__metadata__":null}', b""),
            expected=Expected(None, {}),
        ),
    ]
    like = {"dtype": "F32", "shape": "[1]", "data_offsets": "[0,4]"}
    rows: list[tuple[str, list[str], str, str, dict[str, str] | None, str | None]] = [
        (
            "metadata_empty",
            ["META-OBJECT", "META-NULL"],
            "an empty metadata object beside one tensor",
            '{"__metadata__":{},"a":' + e + "}",
            {},
            "foundation-model-stack/fastsafetensors#88",
        ),
        (
            "metadata_last",
            ["META-OBJECT"],
            "__metadata__ is the last member, after the tensor",
            '{"a":' + e + ',"__metadata__":{"format":"pt"}}',
            {"format": "pt"},
            None,
        ),
        (
            "metadata_escaped_name",
            ["META-OBJECT", "KEY-UNIQUE"],
            'the member "\\u005f_metadata__" unescapes to __metadata__: it is metadata',
            '{"\\u005f_metadata__":{"format":"pt"},"a":' + e + "}",
            {"format": "pt"},
            None,
        ),
        (
            "metadata_empty_key_and_nul",
            ["META-STRING"],
            'metadata {"": "", "nul": "a\\u0000b"}: an empty key, a NUL in a value',
            '{"__metadata__":{"":"","nul":"a\\u0000b"},"a":' + e + "}",
            {"": "", "nul": "a\x00b"},
            None,
        ),
        (
            "metadata_json_in_string",
            ["META-STRING"],
            "a metadata value holding JSON text as a string",
            '{"__metadata__":{"config":"{\\"layers\\":[1,2]}"},"a":' + e + "}",
            {"config": '{"layers":[1,2]}'},
            None,
        ),
    ]
    out += [
        make(
            f"y_structure_{fault}",
            rules,
            what,
            data=_file(header),
            expected=Expected(meta, _BASE.expected.tensors),
            provenance=GENERATOR if ref is None else bug(ref),
        )
        for fault, rules, what, header, meta, ref in rows
    ]
    only = build([], {"format": "np"})
    out += [
        make(
            "y_structure_metadata_tensor_like_strings",
            ["META-STRING", "META-OBJECT"],
            "__metadata__ looks like a tensor entry, but all values are strings",
            data=_file(
                obj([("__metadata__", obj([(k, f'"{v}"') for k, v in like.items()]))]),
                b"",
            ),
            expected=Expected(like, {}),
        ),
        make(
            "y_structure_metadata_only",
            ["META-OBJECT", "LAYOUT-TRAILING"],
            "metadata and zero tensors: an empty byte buffer",
            data=only.data,
            expected=only.expected,
            provenance=bug("huggingface/safetensors#466"),
        ),
    ]
    many = {f"key{i:03d}": f"value {i}" for i in range(100)}
    long_meta = {"long": "x" * 10_000}
    for case_id, meta, what in [
        ("y_structure_metadata_100_keys", many, "100 metadata keys"),
        (
            "y_structure_metadata_long_value",
            long_meta,
            "a 10,000-character metadata value",
        ),
    ]:
        built = build([_A], meta)
        out.append(
            make(
                case_id, ["META-STRING"], what, data=built.data, expected=built.expected
            )
        )
    return out


def _names() -> list[Case]:
    rows: list[tuple[str, list[str], str, list[str]]] = [
        ("empty", ["KEY-UNIQUE"], 'the empty string "" as a tensor name', [""]),
        (
            "reserved_other_spellings",
            ["META-OBJECT"],
            "__METADATA__, __metadata and _metadata__: ordinary tensor names",
            ["__METADATA__", "__metadata", "_metadata__"],
        ),
        (
            "non_ascii",
            ["HEADER-UTF8"],
            "names in Greek, CJK, Arabic (right-to-left) and with combining marks",
            [
                "\u03b2\u03ac\u03c1\u03bf\u03c2",
                "\u6743\u91cd",
                "\u0648\u0632\u0646",
                "n\u0303",
            ],
        ),
        (
            "nul_escape",
            ["JSON-SYNTAX"],
            'the name "a\\u0000b" (an escaped NUL)',
            ["a\x00b"],
        ),
        (
            "path_like",
            ["KEY-UNIQUE"],
            "names that look like paths: ../../etc/passwd, /abs, C:\\x",
            ["../../etc/passwd", "/abs", "C:\\x"],
        ),
        (
            "whitespace",
            ["KEY-UNIQUE"],
            "names of whitespace: one space, a tab, a name with spaces around",
            [" ", "\t", " a "],
        ),
        ("long", ["KEY-UNIQUE"], "a 10,000-character name", ["n" * 10_000]),
        (
            "dotted",
            ["KEY-UNIQUE"],
            "typical model names with dots and digits",
            ["model.layers.0.self_attn.q_proj.weight", "model.embed_tokens.weight"],
        ),
    ]
    out = []
    for fault, rules, what, names in rows:
        built = build([tensor(n, "U8", [1], [i + 1]) for i, n in enumerate(names)])
        tags = ["security"] if fault in {"path_like", "nul_escape"} else []
        out.append(
            make(
                f"y_structure_name_{fault}",
                rules,
                what,
                data=built.data,
                expected=built.expected,
                tags=tags,
            )
        )
    return out


def cases() -> list[Case]:
    """Return the family's cases."""
    return [*_duplicates(), *_entries(), *_types(), *_metadata(), *_names()]
