"""A strict reference reader and writer for the safetensors format."""

from stspec._dtypes import DTYPES, DType
from stspec._errors import SafetensorsError, Violations
from stspec._header import TensorInfo, TensorTable
from stspec._reader import SafetensorsFile, read, validate
from stspec._rules import (
    MAX_HEADER_SIZE,
    RULES,
    RULES_BY_ID,
    Rule,
    verdict_of,
)
from stspec._version import SPEC_VERSION
from stspec._version import __version__ as __version__

# typing is not imported at run time (start-up cost); mypy reads this as True.
TYPE_CHECKING = False

__all__ = [
    "DTYPES",
    "HEADER_SCHEMA_ID",
    "MAX_HEADER_SIZE",
    "RULES",
    "RULES_BY_ID",
    "SPEC_VERSION",
    "DType",
    "Rule",
    "SafetensorsError",
    "SafetensorsFile",
    "Tensor",
    "TensorInfo",
    "TensorTable",
    "Violations",
    "header_schema",
    "read",
    "serialize",
    "validate",
    "verdict_of",
    "write",
]


def __dir__() -> list[str]:
    return [*__all__, "__version__"]


# The writer and what it needs (signals, locks, struct), and the schema
# (pathlib), load on first use, so that reading, and the `stspec` command,
# never pay for them.
_LAZY = {
    "HEADER_SCHEMA_ID": "stspec._schema",
    "header_schema": "stspec._schema",
    "Tensor": "stspec._writer",
    "serialize": "stspec._writer",
    "write": "stspec._writer",
}

if TYPE_CHECKING:  # for mypy, the names are simply there
    from stspec._schema import HEADER_SCHEMA_ID, header_schema
    from stspec._writer import Tensor, serialize, write
else:

    def __getattr__(name: str) -> object:
        if name not in _LAZY:
            raise AttributeError(f"module 'stspec' has no attribute {name!r}")
        from importlib import import_module  # noqa: PLC0415 - deferred on purpose

        value = getattr(import_module(_LAZY[name]), name)
        globals()[name] = value
        return value
