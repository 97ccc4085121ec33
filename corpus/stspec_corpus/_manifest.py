"""The manifest: one JSON entry per case, and the JSON Schema that describes it."""

from __future__ import annotations

import hashlib
import json
from typing import TYPE_CHECKING, Final

from stspec._rules import RULES
from stspec._version import SPEC_VERSION, __version__
from stspec_corpus._model import FAMILIES, Case, Expected

if TYPE_CHECKING:
    from collections.abc import Sequence

# the corpus is released with the package and tests one version of the spec
MANIFEST_VERSION: Final = __version__
# Accepted cases with more tensors than this (only recipes) list a count and a
# digest of the expected tensors instead of the tensors themselves.
INLINE_TENSORS: Final = 10_000


def canonical_json(value: object) -> str:
    """Compact, key-sorted, ASCII JSON: the text `tensors_sha256` is taken of."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=True)


def expected_json(expected: Expected, *, inline: bool = True) -> dict[str, object]:
    """Return the manifest form of an expectation (a digest for huge tensor lists)."""
    tensors = expected.tensors_json()
    out: dict[str, object] = {
        "metadata": None if expected.metadata is None else dict(expected.metadata)
    }
    if inline or len(tensors) <= INLINE_TENSORS:
        out["tensors"] = tensors
    else:
        out["tensor_count"] = len(tensors)
        # Element values are left out: a reader can reproduce the digest from
        # what it loads (dtype, shape, byte count and bytes) without decoding.
        digested = {
            name: {key: value for key, value in entry.items() if key != "values"}
            for name, entry in tensors.items()
        }
        out["tensors_sha256"] = hashlib.sha256(
            canonical_json(digested).encode()
        ).hexdigest()
    return out


def case_json(case: Case) -> dict[str, object]:
    """Return the manifest entry of one case."""
    out: dict[str, object] = {
        "id": case.id,
        "verdict": case.verdict,
        "rules": list(case.rules),
        "description": case.description,
        "tags": list(case.tags),
        "provenance": case.provenance.as_json(),
        "size": case.size,
    }
    if case.sha256 is not None:
        out["sha256"] = case.sha256
    if case.data is not None:
        out["file"] = case.file
    if case.recipe is not None:
        out["recipe"] = {"name": case.recipe.name, "params": dict(case.recipe.params)}
    if case.expected is not None:
        out["expected"] = expected_json(case.expected, inline=case.recipe is None)
    return out


def manifest(cases: Sequence[Case]) -> dict[str, object]:
    """Return the whole manifest."""
    return {
        "$schema": "./manifest.schema.json",
        "version": MANIFEST_VERSION,
        "spec": SPEC_VERSION,
        "cases": [case_json(case) for case in cases],
    }


def dumps(value: object) -> str:
    """Return the committed text: sorted keys, indent 1, ASCII, final newline."""
    return json.dumps(value, sort_keys=True, indent=1, ensure_ascii=True) + "\n"


def _value_schema() -> dict[str, object]:
    float_text = {
        "type": "string",
        "pattern": r"^(nan|-?inf|-?[0-9]+\.[0-9]+|-?[0-9](\.[0-9]+)?e[-+][0-9]+)$",
    }
    return {
        "description": "a decoded element: integer (integer dtypes), boolean (BOOL), "
        "Python repr of the float value as a string (float dtypes), or "
        "[real, imag] strings (C64)",
        "oneOf": [
            {"type": "integer"},
            {"type": "boolean"},
            float_text,
            {
                "type": "array",
                "prefixItems": [float_text, float_text],
                "items": False,
                "minItems": 2,
            },
        ],
    }


def schema() -> dict[str, object]:
    """Return the manifest's JSON Schema (Draft 2020-12)."""
    reader_rules = [rule.id for rule in RULES if rule.scope == "reader"]
    sha = {"type": "string", "pattern": "^[0-9a-f]{64}$"}
    u64 = {"type": "integer", "minimum": 0, "maximum": 2**64 - 1}
    tensor = {
        "type": "object",
        "required": ["dtype", "shape", "nbytes", "sha256"],
        "additionalProperties": False,
        "properties": {
            "dtype": {"type": "string"},
            "shape": {"type": "array", "items": u64},
            "nbytes": u64,
            "sha256": sha,
            "values": {
                "description": "all elements in C (row-major) order; only for tensors "
                "of at most 16 elements",
                "type": "array",
                "maxItems": 16,
                "items": {"$ref": "#/$defs/value"},
            },
        },
    }
    expected = {
        "type": "object",
        "required": ["metadata"],
        "additionalProperties": False,
        "properties": {
            "metadata": {
                "oneOf": [
                    {"type": "null"},
                    {"type": "object", "additionalProperties": {"type": "string"}},
                ]
            },
            "tensors": {
                "type": "object",
                "additionalProperties": {"$ref": "#/$defs/tensor"},
            },
            "tensor_count": {"type": "integer", "minimum": INLINE_TENSORS + 1},
            "tensors_sha256": {
                **sha,
                "description": "sha256 of the tensors object without element values "
                "({name: {dtype, shape, nbytes, sha256}}) as compact, key-sorted, "
                "ASCII JSON (for recipe cases with more than 10,000 tensors)",
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
    case = {
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
            "id": {"type": "string", "pattern": "^[yni]_[a-z0-9]+(_[a-z0-9]+)*$"},
            "verdict": {"enum": ["valid", "invalid", "tolerated"]},
            "rules": {
                "type": "array",
                "minItems": 1,
                "uniqueItems": True,
                "items": {"enum": reader_rules},
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
            "size": u64,
            "sha256": sha,
            "file": {
                "type": "string",
                "pattern": "^files/[yni]_[a-z0-9_]+\\.safetensors$",
            },
            "recipe": {
                "type": "object",
                "required": ["name", "params"],
                "additionalProperties": False,
                "properties": {
                    "name": {"enum": ["padded-header", "sparse", "many-tensors"]},
                    "params": {"type": "object"},
                },
            },
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
        ],
    }
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$id": "https://github.com/safetensors-spec/safetensors-spec/corpus/manifest.schema.json",
        "title": "safetensors-spec corpus manifest",
        "description": "One entry per corpus case. y_ cases must be accepted with the "
        "expected content, n_ cases must be rejected (rules names the one MUST rule "
        "broken), i_ cases break only MAY rules: a reader may accept or reject them.",
        "type": "object",
        "required": ["version", "spec", "cases"],
        "additionalProperties": False,
        "properties": {
            "$schema": {"type": "string"},
            "version": {"type": "string"},
            "spec": {"type": "string"},
            "cases": {"type": "array", "items": {"$ref": "#/$defs/case"}},
        },
        "$defs": {
            "case": case,
            "expected": expected,
            "tensor": tensor,
            "value": _value_schema(),
        },
    }
