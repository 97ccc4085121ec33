"""A strict reference reader and writer for the safetensors format."""

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


# Every name loads on first use, so that `stspec --version` and a usage
# error pay for none of them (the rule and dtype tables build records); the
# writer and what it needs (signals, locks, struct), and the schema
# (pathlib), so that reading, and the `stspec` command, never pay for them.
_LAZY = {
    "DTYPES": "stspec.dtypes",
    "DType": "stspec.dtypes",
    "SafetensorsError": "stspec.errors",
    "Violations": "stspec.errors",
    "MAX_HEADER_SIZE": "stspec.rules",
    "RULES": "stspec.rules",
    "RULES_BY_ID": "stspec.rules",
    "Rule": "stspec.rules",
    "verdict_of": "stspec.rules",
    "SafetensorsFile": "stspec.reader.pipeline",
    "read": "stspec.reader.pipeline",
    "validate": "stspec.reader.pipeline",
    "TensorInfo": "stspec.reader.table",
    "TensorTable": "stspec.reader.table",
    "HEADER_SCHEMA_ID": "stspec.schema",
    "header_schema": "stspec.schema",
    "Tensor": "stspec.writer.serialize",
    "serialize": "stspec.writer.serialize",
    "write": "stspec.writer.serialize",
}

if TYPE_CHECKING:  # for mypy, the names are simply there
    from stspec.dtypes import DTYPES, DType
    from stspec.errors import SafetensorsError, Violations
    from stspec.reader.pipeline import SafetensorsFile, read, validate
    from stspec.reader.table import TensorInfo, TensorTable
    from stspec.rules import MAX_HEADER_SIZE, RULES, RULES_BY_ID, Rule, verdict_of
    from stspec.schema import HEADER_SCHEMA_ID, header_schema
    from stspec.writer.serialize import Tensor, serialize, write
else:

    def __getattr__(name: str) -> object:
        if name not in _LAZY:
            raise AttributeError(f"module 'stspec' has no attribute {name!r}")
        from importlib import import_module  # noqa: PLC0415 - deferred on purpose

        value = getattr(import_module(_LAZY[name]), name)
        globals()[name] = value
        return value
