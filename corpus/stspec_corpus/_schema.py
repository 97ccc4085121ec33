"""The manifest's JSON Schema: every field and every recipe, language-neutrally.

The descriptions are the definition a harness in another language works from
(docs/reference/corpus.md says the same in prose).
"""

from __future__ import annotations

from typing import Final

from stspec.rules import RULES
from stspec_corpus._manifest import INLINE_TENSORS, MAX_NUMBER
from stspec_corpus._model import FAMILIES, VALUES_LIMIT

_SHA: Final = {"type": "string", "pattern": "^[0-9a-f]{64}$"}
_NUMBER: Final = {"type": "integer", "minimum": 0, "maximum": MAX_NUMBER}
_DECIMAL: Final = {
    "type": "string",
    "pattern": "^(0|[1-9][0-9]*)$",
    "description": "a non-negative decimal integer up to 2^64-1, as a string",
}
_FLOAT: Final = {
    "type": "string",
    "description": "the exact value: the shortest decimal that reads back as the "
    "same IEEE 754 double, or NaN, Infinity, -Infinity (spellings that "
    "JavaScript's Number(), C's strtod and Python's float() all read)",
    "pattern": r"^(NaN|-?Infinity|-?[0-9]+\.[0-9]+|-?[0-9](\.[0-9]+)?e[-+][0-9]+)$",
}
_HEX_BYTES: Final = {"type": "string", "pattern": "^([0-9a-f]{2})*$"}


def _value() -> dict[str, object]:
    return {
        "description": "one decoded element: a decimal string (integer dtypes), "
        "true/false (BOOL), a float string (float dtypes), [real, imag] float "
        "strings (C64)",
        "oneOf": [
            {"type": "string", "pattern": "^-?(0|[1-9][0-9]*)$"},
            {"type": "boolean"},
            _FLOAT,
            {
                "type": "array",
                "prefixItems": [_FLOAT, _FLOAT],
                "items": False,
                "minItems": 2,
            },
        ],
    }


def _tensor() -> dict[str, object]:
    return {
        "type": "object",
        "required": ["dtype", "shape", "nbytes", "sha256"],
        "additionalProperties": False,
        "properties": {
            "dtype": {"type": "string"},
            "shape": {"type": "array", "items": _DECIMAL},
            "nbytes": {**_NUMBER, "description": "the tensor's byte length"},
            "sha256": {**_SHA, "description": "sha256 of the tensor's bytes"},
            "values": {
                "description": "all elements in C (row-major) order, decoded; only "
                f"for tensors of at most {VALUES_LIMIT} elements",
                "type": "array",
                "maxItems": VALUES_LIMIT,
                "items": {"$ref": "#/$defs/value"},
            },
        },
    }


def _expected() -> dict[str, object]:
    return {
        "description": "what an accepting reader must return",
        "type": "object",
        "required": ["metadata"],
        "additionalProperties": False,
        "properties": {
            "metadata": {
                "description": "null: the file has no __metadata__ (not the same "
                "as {})",
                "oneOf": [
                    {"type": "null"},
                    {"type": "object", "additionalProperties": {"type": "string"}},
                ],
            },
            "tensors": {
                "type": "object",
                "additionalProperties": {"$ref": "#/$defs/tensor"},
            },
            "tensor_count": {**_NUMBER, "minimum": INLINE_TENSORS + 1},
            "tensors_sha256": {
                **_SHA,
                "description": "in place of tensors for recipes with more than "
                f"{INLINE_TENSORS:,} tensors: sha256 of one ASCII line per tensor, "
                "'<name> <dtype> <shape> <sha256>' + LF, where name is the "
                "lowercase hex of the name's UTF-8 bytes, shape the decimal "
                "dimensions joined by ',' (empty for a scalar) and sha256 the "
                "lowercase hex digest of the tensor's bytes; lines sorted by byte "
                "value and concatenated",
            },
        },
        "oneOf": [
            {"required": ["tensors"], "not": {"required": ["tensor_count"]}},
            {
                "required": ["tensor_count", "tensors_sha256"],
                "not": {"required": ["tensors"]},
            },
        ],
    }


_OPTIONAL = ("overlap", "hole_at")


def _recipe(name: str, description: str, params: dict[str, object]) -> object:
    return {
        "description": description,
        "type": "object",
        "required": ["name", "params"],
        "additionalProperties": False,
        "properties": {
            "name": {"const": name},
            "params": {
                "type": "object",
                "required": [key for key in params if key not in _OPTIONAL],
                "additionalProperties": False,
                "properties": params,
            },
        },
    }


def _recipes() -> list[object]:
    """Define each recipe: exactly which bytes it produces (u64le: 8-byte LE)."""
    return [
        _recipe(
            "padded-header",
            "u64le(length), the UTF-8 bytes of header, then 0x20 bytes up to "
            "length header bytes in all; the file is 8 + length bytes",
            {"header": {"type": "string"}, "length": _NUMBER},
        ),
        _recipe(
            "sparse",
            "u64le(H), the H UTF-8 bytes of header (verbatim: it carries its own "
            "padding), then a buffer of buffer_length bytes: zeros, ending with "
            "the bytes tail spells in hex; the file is 8 + H + buffer_length bytes",
            {
                "header": {"type": "string"},
                "buffer_length": _NUMBER,
                "tail": _HEX_BYTES,
            },
        ),
        _recipe(
            "many-tensors",
            "count U8[1] tensors named 't' + the index in decimal, zero-padded to "
            "the digits of count - 1 (t00000..t49999), in index order. Header: "
            'the compact JSON {"<name>":{"dtype":"U8","shape":[1],'
            '"data_offsets":[i,i+1]},...} (no spaces), then 0x20 bytes until '
            "8 + its length is a multiple of 8; buffer: count bytes, byte i = "
            'i mod 256. With overlap true every entry has "data_offsets":[0,1] '
            "and the buffer is the one byte 0x00. With hole_at h, one 0x00 byte "
            "that no tensor covers comes before tensor h (tensors h.. start one "
            "byte later)",
            {
                "count": {**_NUMBER, "minimum": 1},
                "overlap": {"type": "boolean"},
                "hole_at": _NUMBER,
            },
        ),
        _recipe(
            "many-metadata",
            "A header holding only __metadata__, compact JSON: count keys 'k' + "
            "the index in 5 decimal digits (k00000..), the value of key i being "
            "the decimal i, ':' and 'abcdefghij' repeated, cut to length "
            "characters; then 0x20 bytes until 8 + its length is a multiple of "
            "8; no buffer. fault changes key at: integer writes the value as the "
            "number 1; duplicate gives it the name of key at - 10; bad-utf8 puts "
            "the byte 0xFF first inside its value's quotes; none changes nothing",
            {
                "count": {**_NUMBER, "minimum": 1},
                "length": _NUMBER,
                "fault": {"enum": ["none", "integer", "duplicate", "bad-utf8"]},
                "at": _NUMBER,
            },
        ),
        _recipe(
            "dense-header",
            "count empty U8[0] tensors, all at data_offsets [0,0], named by four "
            "base-62 digits 0-9A-Za-z in ascending order (0000, 0001, ..., 000z, "
            "0010, ...). Header: the compact JSON "
            '{"<name>":{"dtype":"U8","shape":[0],"data_offsets":[0,0]},...} (no '
            "spaces), then 0x20 bytes until it has length bytes; no buffer",
            {
                "count": {**_NUMBER, "minimum": 1, "maximum": 62**4},
                "length": _NUMBER,
            },
        ),
    ]


def _case() -> dict[str, object]:
    reader_rules = [rule.id for rule in RULES if rule.scope == "reader"]
    must_rules = [
        rule.id for rule in RULES if rule.scope == "reader" and rule.level == "MUST"
    ]
    return {
        "type": "object",
        "required": [
            "id",
            "verdict",
            "rules",
            "description",
            "tags",
            "provenance",
            "size",
        ],
        "additionalProperties": False,
        "properties": {
            "id": {"type": "string", "pattern": "^[ynix]_[a-z0-9]+(_[a-z0-9]+)*$"},
            "verdict": {"enum": ["valid", "invalid", "tolerated"]},
            "rules": {
                "description": "n_: the one MUST rule the file breaks in its first "
                "precedence group (SPEC 12.1); x_: every MUST rule it breaks in its "
                "first precedence group (two or more); i_: the MAY rules it breaks; "
                "y_: the rules whose boundary it sits on",
                "type": "array",
                "minItems": 1,
                "uniqueItems": True,
                "items": {"enum": reader_rules},
            },
            "also_breaks": {
                "description": "n_ and x_: the MUST rules the file breaks besides "
                "rules when each rule statement is read on its own; SPEC 12.1 says "
                "they do not apply (a later precedence group, or a condition within "
                "one), so a reader that names one misnames the file",
                "type": "array",
                "minItems": 1,
                "uniqueItems": True,
                "items": {"enum": must_rules},
            },
            "description": {"type": "string", "minLength": 1},
            "tags": {
                "type": "array",
                "uniqueItems": True,
                "items": {
                    "anyOf": [
                        {"enum": [*FAMILIES, "security", "large"]},
                        {"type": "string", "pattern": "^dtype:[A-Z0-9_]+$"},
                    ]
                },
            },
            "provenance": {
                "type": "object",
                "required": ["kind"],
                "additionalProperties": False,
                "properties": {
                    "kind": {
                        "enum": ["generator", "spec-example", "fuzz", "bug-report"]
                    },
                    "ref": {"type": "string", "minLength": 1},
                },
                "if": {
                    "properties": {"kind": {"enum": ["bug-report", "spec-example"]}}
                },
                "then": {"required": ["ref"]},
            },
            "size": {**_NUMBER, "description": "the file's byte length"},
            "sha256": {**_SHA, "description": "sha256 of the whole file"},
            "file": {
                "description": "the file, relative to the manifest's directory",
                "type": "string",
                "pattern": "^files/[ynix]_[a-z0-9_]+\\.safetensors$",
            },
            "recipe": {"$ref": "#/$defs/recipe"},
            "expected": {"$ref": "#/$defs/expected"},
        },
        "allOf": [
            {
                "oneOf": [
                    {"required": ["file", "sha256"], "not": {"required": ["recipe"]}},
                    {"required": ["recipe"], "not": {"required": ["file"]}},
                ]
            },
            {
                "if": {"properties": {"id": {"pattern": "^y_"}}},
                "then": {
                    "properties": {"verdict": {"const": "valid"}},
                    "required": ["expected"],
                },
            },
            {
                "if": {"properties": {"id": {"pattern": "^i_"}}},
                "then": {
                    "properties": {"verdict": {"const": "tolerated"}},
                    "required": ["expected"],
                },
            },
            {
                "if": {"properties": {"id": {"pattern": "^n_"}}},
                "then": {
                    "properties": {
                        "verdict": {"const": "invalid"},
                        "rules": {"maxItems": 1},
                    },
                    "not": {"required": ["expected"]},
                },
            },
            {
                "if": {"properties": {"id": {"pattern": "^x_"}}},
                "then": {
                    "properties": {
                        "verdict": {"const": "invalid"},
                        "rules": {"minItems": 2, "items": {"enum": must_rules}},
                    },
                    "not": {"required": ["expected"]},
                },
            },
            {
                "if": {"properties": {"id": {"pattern": "^[yi]_"}}},
                "then": {"not": {"required": ["also_breaks"]}},
            },
        ],
    }


def schema() -> dict[str, object]:
    """Return the manifest's JSON Schema (Draft 2020-12)."""
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$id": "https://github.com/safetensors-spec/safetensors-spec/corpus/manifest.schema.json",
        "title": "safetensors-spec corpus manifest",
        "description": "One entry per corpus case. y_ cases must be accepted with the "
        "expected content, n_ cases must be rejected (rules names the one MUST rule "
        "broken), x_ cases must be rejected and are judged on that alone (rules "
        "names every MUST rule broken), i_ cases break only MAY rules: a reader may "
        "accept or reject them. "
        "Every JSON number is an integer in [0, 2^53-1], exact in any JSON parser; "
        "values that can be larger (dimensions, integer elements) are decimal "
        "strings. Files are UTF-8 JSON with ASCII-only text (\\u escapes).",
        "type": "object",
        "required": ["version", "spec", "cases"],
        "additionalProperties": False,
        "properties": {
            "$schema": {"type": "string"},
            "version": {
                "description": "the package version that generated the corpus",
                "type": "string",
            },
            "spec": {"description": "the spec version it tests", "type": "string"},
            "cases": {
                "description": "sorted by id",
                "type": "array",
                "items": {"$ref": "#/$defs/case"},
            },
        },
        "$defs": {
            "case": _case(),
            "expected": _expected(),
            "tensor": _tensor(),
            "value": _value(),
            "recipe": {"oneOf": _recipes()},
        },
    }
