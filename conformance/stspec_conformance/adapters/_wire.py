r"""The isolated mode's messages: length-prefixed JSON, checked on receipt.

The fork server imports the implementation, and its workers run it, so
everything they send is untrusted.  Messages therefore carry data only (JSON
objects, decoded by :mod:`json`, never by :mod:`pickle`, whose answers can
name code to run), and every answer is checked field by field before it
becomes an :class:`~stspec_conformance._model.Outcome`: a wrong type, an
unknown status or a missing field is a :class:`WireError`, which the
receiving side reports as the implementation's ``invalid-output``.

Frame: the payload's length as 8 little-endian bytes, then the payload
(UTF-8 JSON; strings that are not valid UTF-8, such as a lone surrogate in a
tensor name, travel as JSON ``\u`` escapes).
"""

from __future__ import annotations

import base64
import json
import math
import struct
from typing import TYPE_CHECKING, Any, Final, get_args

from stspec_conformance._limits import Allowance
from stspec_conformance._model import Content, Outcome, Status, TensorDigest

if TYPE_CHECKING:
    from collections.abc import Mapping

    from stspec_conformance.adapters._base import RawTensors

__all__ = [
    "HEADER",
    "OUTCOME_FIELDS",
    "WireError",
    "allowance_from",
    "allowance_to",
    "decode",
    "encode",
    "outcome_from",
    "outcome_to",
    "request_from",
    "save_request",
]

HEADER: Final = struct.Struct("<Q")
_STATUSES: Final = frozenset(get_args(Status))
# Every field of Outcome but ``details`` (see outcome_to).
OUTCOME_FIELDS: Final = frozenset(
    {
        "status",
        "content",
        "message",
        "rule",
        "exception",
        "crash",
        "memory",
        "peak_memory",
        "seconds",
        "cpu_seconds",
        "memory_allowance",
    }
)


class WireError(ValueError):
    """A message that is not what the protocol allows (says what differed)."""


def encode(message: Mapping[str, object]) -> bytes:
    """One frame holding ``message``."""
    data = json.dumps(message, ensure_ascii=True, allow_nan=True).encode("ascii")
    return HEADER.pack(len(data)) + data


def decode(data: bytes) -> dict[str, Any]:
    """A frame's payload as a JSON object (its ``kind`` a string)."""
    try:
        message = json.loads(data, object_pairs_hook=_unique)
    except (ValueError, RecursionError) as exc:
        msg = f"the message is not JSON ({type(exc).__name__}: {str(exc)[:80]})"
        raise WireError(msg) from None
    if not isinstance(message, dict) or not isinstance(message.get("kind"), str):
        msg = "the message is not a JSON object with a string 'kind'"
        raise WireError(msg)
    return message


def _unique(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    found: dict[str, Any] = {}
    for key, value in pairs:
        if key in found:
            msg = f"the message repeats the key {key!r:.60}"
            raise WireError(msg)
        found[key] = value
    return found


# --- allowances and requests (the suite's side writes them) ----------------------


def allowance_to(allowance: Allowance) -> list[float]:
    """An :class:`Allowance` as a JSON array."""
    return [
        allowance.length,
        allowance.memory,
        allowance.cpu_seconds,
        allowance.wall_seconds,
    ]


def allowance_from(value: object) -> Allowance:
    """The inverse of :func:`allowance_to`."""
    if not isinstance(value, list) or len(value) != 4:
        msg = "an allowance is [length, memory, cpu_seconds, wall_seconds]"
        raise WireError(msg)
    length, memory = _int(value[0], "length"), _int(value[1], "memory")
    return Allowance(
        length, memory, _number(value[2], "cpu"), _number(value[3], "wall")
    )


def save_request(
    path: str,
    tensors: RawTensors,
    metadata: Mapping[str, str] | None,
    allowance: Allowance,
) -> dict[str, object]:
    """A save request (the tensors' bytes in base64)."""
    return {
        "kind": "save",
        "path": path,
        "tensors": {
            name: [dtype, list(shape), base64.b64encode(bytes(data)).decode("ascii")]
            for name, (dtype, shape, data) in tensors.items()
        },
        "metadata": None if metadata is None else dict(metadata),
        "allowance": allowance_to(allowance),
    }


def request_from(
    message: Mapping[str, Any],
) -> tuple[str, str, Allowance, dict[str, tuple[str, list[int], bytes]], Any]:
    """``(kind, path, allowance, tensors, metadata)`` of a load or save request."""
    kind, path = message["kind"], message.get("path")
    if kind not in {"load", "save"} or not isinstance(path, str):
        msg = f"not a load or save request: {kind!r:.40}"
        raise WireError(msg)
    allowance = allowance_from(message.get("allowance"))
    if kind == "load":
        return kind, path, allowance, {}, None
    tensors = {
        str(name): (str(dtype), [int(d) for d in shape], base64.b64decode(data))
        for name, (dtype, shape, data) in message["tensors"].items()
    }
    return kind, path, allowance, tensors, message.get("metadata")


# --- outcomes (the implementation's side writes them: checked here) ---------------


def outcome_to(outcome: Outcome) -> dict[str, object]:
    """An :class:`Outcome` as a JSON object (``details`` stay behind).

    ``details`` hold what the suite's own checks attach in pytest's process
    (the test item); nothing the worker knows goes there.
    """
    content = outcome.content
    return {
        "status": outcome.status,
        "content": None if content is None else _content_to(content),
        "message": outcome.message,
        "rule": outcome.rule,
        "exception": outcome.exception,
        "crash": outcome.crash,
        "memory": outcome.memory,
        "peak_memory": outcome.peak_memory,
        "seconds": outcome.seconds,
        "cpu_seconds": outcome.cpu_seconds,
        "memory_allowance": outcome.memory_allowance,
    }


def _content_to(content: Content) -> dict[str, object]:
    return {
        "metadata": content.metadata,
        "tensors": {
            name: [
                t.dtype,
                list(t.shape),
                t.nbytes,
                t.sha256,
                [list(w) for w in t.windows],
            ]
            for name, t in content.tensors.items()
        },
        "summary": None if content.summary is None else list(content.summary),
    }


def outcome_from(value: object) -> Outcome:
    """Check an answer and build its :class:`Outcome`, or raise :class:`WireError`."""
    if not isinstance(value, dict):
        msg = "an outcome is a JSON object"
        raise WireError(msg)
    missing = sorted(OUTCOME_FIELDS - set(value))
    extra = sorted(set(value) - OUTCOME_FIELDS)
    if missing or extra:
        msg = f"the outcome's fields differ: missing {missing}, unknown {extra[:5]}"
        raise WireError(msg)
    status = value["status"]
    if status not in _STATUSES:
        msg = f"unknown status {status!r:.40}"
        raise WireError(msg)
    return Outcome(
        status,
        content=_content_from(value["content"], "content"),
        message=_str(value["message"], "message"),
        rule=_optional_str(value["rule"], "rule"),
        exception=_str(value["exception"], "exception"),
        crash=_str(value["crash"], "crash"),
        memory=_str(value["memory"], "memory"),
        peak_memory=_optional_int(value["peak_memory"], "peak_memory"),
        seconds=_number(value["seconds"], "seconds"),
        cpu_seconds=_optional_number(value["cpu_seconds"], "cpu_seconds"),
        memory_allowance=_optional_int(value["memory_allowance"], "memory_allowance"),
    )


def _content_from(value: object, name: str) -> Content | None:
    if value is None:
        return None
    if not isinstance(value, dict) or set(value) != {"metadata", "tensors", "summary"}:
        msg = f"{name} is not a content object"
        raise WireError(msg)
    metadata = value["metadata"]
    if metadata is not None and not (
        isinstance(metadata, dict)
        and all(isinstance(v, str) for v in metadata.values())
    ):
        msg = "the metadata is not null or an object of strings"
        raise WireError(msg)
    tensors = value["tensors"]
    if not isinstance(tensors, dict):
        msg = "the tensors are not an object"
        raise WireError(msg)
    summary = value["summary"]
    if summary is not None and not (
        isinstance(summary, list)
        and len(summary) == 2
        and type(summary[0]) is int
        and isinstance(summary[1], str)
    ):
        msg = "the summary is not [count, digest]"
        raise WireError(msg)
    return Content(
        metadata,
        {str(key): _digest_from(entry, key) for key, entry in tensors.items()},
        None if summary is None else (summary[0], summary[1]),
    )


def _digest_from(value: object, name: str) -> TensorDigest:
    if not (isinstance(value, list) and len(value) == 5):
        msg = f"tensor {name!r:.60} is not [dtype, shape, nbytes, sha256, windows]"
        raise WireError(msg)
    dtype, shape, nbytes, sha256, windows = value
    if not (
        isinstance(dtype, str)
        and isinstance(shape, list)
        and all(type(d) is int for d in shape)
        and type(nbytes) is int
        and isinstance(sha256, str)
        and isinstance(windows, list)
        and all(
            isinstance(w, list)
            and len(w) == 2
            and type(w[0]) is int
            and isinstance(w[1], str)
            for w in windows
        )
    ):
        msg = f"tensor {name!r:.60} has a field of the wrong type"
        raise WireError(msg)
    return TensorDigest(
        dtype, tuple(shape), nbytes, sha256, tuple((w[0], w[1]) for w in windows)
    )


def _str(value: object, name: str) -> str:
    if not isinstance(value, str):
        msg = f"{name} is not a string"
        raise WireError(msg)
    return value


def _optional_str(value: object, name: str) -> str | None:
    return None if value is None else _str(value, name)


def _int(value: object, name: str) -> int:
    if type(value) is not int:
        msg = f"{name} is not an integer"
        raise WireError(msg)
    return value


def _optional_int(value: object, name: str) -> int | None:
    return None if value is None else _int(value, name)


def _number(value: object, name: str) -> float:
    if type(value) not in {int, float} or not math.isfinite(value):  # type: ignore[arg-type]
        msg = f"{name} is not a finite number"
        raise WireError(msg)
    return float(value)  # type: ignore[arg-type]


def _optional_number(value: object, name: str) -> float | None:
    return None if value is None else _number(value, name)
