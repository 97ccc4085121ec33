"""The header's JSON Schema, found by its versioned ``$id`` without a network."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Final

from stspec._version import SPEC_VERSION

HEADER_SCHEMA_ID: Final = (
    "https://github.com/safetensors-spec/safetensors-spec/spec/"
    f"{SPEC_VERSION}/header.schema.json"
)
_NAME: Final = "header.schema.json"
_PACKAGE: Final = Path(__file__).resolve().parent
# A wheel ships spec/ as stspec/spec (setup.py); a checkout keeps it at the
# repository root, two levels above this package.
_PLACES: Final = (_PACKAGE / "spec", _PACKAGE.parents[1] / "spec")


def header_schema() -> dict[str, object]:
    """Return the JSON Schema (draft 2020-12) of the header, spec/SPEC.md §10.

    Its ``$id`` is ``HEADER_SCHEMA_ID``, which names the spec version, so a
    validator can register it under that id instead of fetching it.  A
    schema-valid header does not make a file valid (SPEC.md §10).

    Raises:
        FileNotFoundError: an installation without the spec files.

    """
    for place in _PLACES:
        path = place / _NAME
        if path.is_file():
            loaded: dict[str, object] = json.loads(path.read_text(encoding="utf-8"))
            return loaded
    raise FileNotFoundError(f"{_NAME} is in none of {[str(p) for p in _PLACES]}")
