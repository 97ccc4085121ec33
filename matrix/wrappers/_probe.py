"""Call one Python wrapper's ``load`` on many files; one JSON line per file.

    python _probe.py WRAPPER.py FILE...      (inside the implementation's env)

Each line: ``{"file", "result", "metadata", "tensors": {name: [dtype, shape,
sha256 or null]}, "error"}``, written as soon as the file is done, so a
caller that sees the process die knows which file killed it.  ``result`` is
accepted, rejected (an exception the wrapper's ``REJECTS`` names, else any
ordinary Exception), invalid-output (below) or crashed (RecursionError,
MemoryError, any other BaseException, or an Exception outside ``REJECTS``).
A load that returns something that cannot be described as tensors (a shape
that is None) is ``invalid-output``, as the suite calls it.  This is what
``matrix.probe`` runs; a fuzzing campaign can call it the same way.
"""

from __future__ import annotations

import hashlib
import importlib.util
import json
import signal
import sys
from typing import Any

_PER_FILE_S = 20


def _wrapper(path: str) -> Any:  # noqa: ANN401 - a module
    spec = importlib.util.spec_from_file_location("wrapper_under_probe", path)
    if spec is None or spec.loader is None:
        raise SystemExit(f"cannot import {path}")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _rejects(module: Any, exc: BaseException) -> bool:  # noqa: ANN401
    declared = getattr(module, "READ_REJECTS", None) or getattr(module, "REJECTS", None)
    if declared is not None:
        return isinstance(exc, tuple(declared))
    programming = (ImportError, AttributeError, NameError, RecursionError, MemoryError)
    return isinstance(exc, Exception) and not isinstance(exc, programming)


def _digest(data: Any) -> str | None:  # noqa: ANN401 - any buffer
    if data is None:
        return None
    return hashlib.sha256(memoryview(data).cast("B")).hexdigest()


def _timeout(_signum: int, _frame: object) -> None:
    raise TimeoutError


def probe(module: Any, path: str) -> dict[str, Any]:  # noqa: ANN401
    """Load ``path`` with the wrapper and describe what it gave."""
    header_only = bool(getattr(module, "CAPABILITIES", {}).get("header_only"))
    signal.signal(signal.SIGALRM, _timeout)
    signal.alarm(_PER_FILE_S)
    try:
        tensors, metadata = module.load(path)
    except TimeoutError:
        return {"file": path, "result": "hung"}
    except BaseException as exc:
        if isinstance(exc, KeyboardInterrupt):
            raise
        result = "rejected" if _rejects(module, exc) else "crashed"
        error = f"{type(exc).__name__}: {exc}"[:300]
        return {"file": path, "result": result, "error": error}
    finally:
        signal.alarm(0)
    try:
        described = {}
        for name, entry in tensors.items():
            # (dtype, shape, bytes), or a header-only reader's (dtype, shape)
            dtype, shape, *data = entry
            digest = None if header_only or not data else _digest(data[0])
            described[str(name)] = [dtype, list(shape), digest]
    except Exception as exc:  # noqa: BLE001 - whatever the answer holds
        # The reader loaded the file; what it gave back is not tensors (a
        # shape of None): the suite's invalid-output, not a crash.
        error = f"{type(exc).__name__}: {exc}"[:300]
        return {"file": path, "result": "invalid-output", "error": error}
    return {
        "file": path,
        "result": "accepted",
        "metadata": metadata,
        "tensors": described,
    }


_TOO_DEEP = "<nested too deep for json.dumps>"


def _encodable(value: Any) -> Any:  # noqa: ANN401 - any JSON value
    try:
        json.dumps(value, default=str)
    except RecursionError:
        return _TOO_DEEP
    return value


def line_of(answer: dict[str, Any]) -> str:
    """The answer as one JSON line.

    A reader may hand back what a file nests a thousand levels deep (echoed
    metadata, a dtype passed through): the value is then replaced by a string
    saying so, because failing to print it would make this probe, not the
    reader, crash.
    """
    try:
        return json.dumps(answer, default=str)
    except RecursionError:
        if "metadata" in answer:
            answer["metadata"] = _encodable(answer["metadata"])
        for entry in answer.get("tensors", {}).values():
            entry[:2] = [_encodable(entry[0]), _encodable(entry[1])]
        return json.dumps(answer, default=str)


def main(argv: list[str]) -> None:
    """Probe every file named after the wrapper."""
    module = _wrapper(argv[0])
    for path in argv[1:]:
        sys.stdout.write(line_of(probe(module, path)) + "\n")
        sys.stdout.flush()


if __name__ == "__main__":
    main(sys.argv[1:])
