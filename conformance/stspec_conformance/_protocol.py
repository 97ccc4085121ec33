"""The command protocol's messages as JSON Schema, and checking answers with them.

The schemas ship in the package (``stspec_conformance/schemas``), so an
implementer can validate a program's answers with any JSON Schema library;
the command adapter checks every answer with the same files before it reads
one.  They say what an answer looks like; what only the suite can know (the
window starts for a tensor's size, whether a header-only answer was
declared) is checked after them, in :mod:`stspec_conformance.adapters.command`.
"""

from __future__ import annotations

import functools
import itertools
import json
from importlib import resources
from typing import TYPE_CHECKING, Any, Final, Literal

if TYPE_CHECKING:
    from pathlib import Path

__all__ = ["SCHEMAS", "Message", "problems", "schema", "schema_path"]

Message = Literal["describe", "read-answer", "write-request", "write-answer"]
SCHEMAS: Final[tuple[Message, ...]] = (
    "describe",
    "read-answer",
    "write-request",
    "write-answer",
)
# a value quoted in a problem: answers are untrusted and may be megabytes
_QUOTED: Final = 120
_SHOWN: Final = 5  # problems listed per answer


def schema_path(message: Message) -> Path:
    """The installed schema file of ``message``."""
    if message not in SCHEMAS:
        msg = f"no schema for {message!r}; the messages are {', '.join(SCHEMAS)}"
        raise ValueError(msg)
    traversable = resources.files("stspec_conformance") / "schemas"
    with resources.as_file(traversable / f"{message}.schema.json") as path:
        return path  # a real file: the package is never imported from a zip


@functools.cache
def schema(message: Message) -> dict[str, Any]:
    """The JSON Schema (Draft 2020-12) of ``message``, parsed."""
    loaded: dict[str, Any] = json.loads(schema_path(message).read_text("utf-8"))
    return loaded


@functools.cache
def _validator(message: Message) -> Any:  # noqa: ANN401 - jsonschema is untyped
    from jsonschema import (  # type: ignore[import-untyped]  # noqa: PLC0415
        Draft202012Validator,  # imported on first use: a run without cmd: skips it
    )

    return Draft202012Validator(schema(message))


def problems(message: Message, answer: object) -> list[str]:
    """What in ``answer`` breaks the schema of ``message`` (empty: nothing).

    Each problem names where (a JSON path such as ``$.tensors.w.shape[0]``)
    and what the schema wanted, with the offending value clipped.
    """
    validator = _validator(message)
    if (
        message == "read-answer"
        and isinstance(answer, dict)
        and isinstance(answer.get("tensors"), dict)
    ):
        found = _tensor_by_tensor(validator, answer)
    else:
        found = list(itertools.islice(validator.iter_errors(answer), _SHOWN))
    return [f"{error.json_path}: {_clip(error.message)}" for error in found[:_SHOWN]]


def _tensor_by_tensor(validator: Any, answer: dict[str, Any]) -> list[Any]:  # noqa: ANN401
    """The errors of an accepted answer: the rest first, then each distinct tensor.

    Validation costs tens of microseconds per tensor, and an answer may hold
    1.8 million equal ones (the densest header): each distinct entry is
    validated once.
    """
    found = list(validator.iter_errors({**answer, "tensors": {}}))
    seen: set[str] = set()
    for name, entry in answer["tensors"].items():
        if len(found) >= _SHOWN:
            break
        key = repr(entry)
        if key not in seen:
            seen.add(key)
            found += validator.iter_errors({"tensors": {name: entry}})
    return found


def _clip(text: str) -> str:
    """The start and the end of ``text``: a value is quoted first, the rule last."""
    text = text.replace("\n", " ")
    if len(text) <= _QUOTED:
        return text
    return f"{text[: _QUOTED // 2]} ... {text[-_QUOTED // 2 :]}"
