"""A strict reference reader and writer for the safetensors format."""

from stspec._dtypes import DTYPES, DType
from stspec._errors import SafetensorsError
from stspec._header import TensorInfo, TensorTable
from stspec._reader import SafetensorsFile, read, validate
from stspec._rules import (
    MAX_HEADER_SIZE,
    RULES,
    RULES_BY_ID,
    SHARD_CHECKS,
    Rule,
    SetCheck,
    verdict_of,
)
from stspec._schema import HEADER_SCHEMA_ID, header_schema
from stspec._version import SPEC_VERSION
from stspec._version import __version__ as __version__
from stspec._writer import Tensor, serialize, write

__all__ = [
    "DTYPES",
    "HEADER_SCHEMA_ID",
    "MAX_HEADER_SIZE",
    "RULES",
    "RULES_BY_ID",
    "SHARD_CHECKS",
    "SPEC_VERSION",
    "DType",
    "Rule",
    "SafetensorsError",
    "SafetensorsFile",
    "SetCheck",
    "Tensor",
    "TensorInfo",
    "TensorTable",
    "header_schema",
    "read",
    "serialize",
    "validate",
    "verdict_of",
    "write",
]


def __dir__() -> list[str]:
    return [*__all__, "__version__"]
