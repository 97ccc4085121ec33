"""Call one Python wrapper's ``save`` on each request; one JSON line per request.

    python grid_writer.py WRAPPER.py OUTDIR < REQUESTS.jsonl

Run by the writer's own interpreter (standard library only, like
``wrappers/_probe.py``).  Each input line is ``{"name", "metadata",
"tensors"}`` in the command protocol's form (bytes as hex); each output line
``{"request", "result", "reason", "undeclared"}``: written (OUTDIR/NAME.safetensors),
refused (an exception the wrapper's ``WRITE_REJECTS`` or ``REJECTS`` names,
else an ordinary Exception) or crashed (anything else).  Written as soon as
the request is done, so a caller that sees the process die knows which
request killed it.  ``undeclared`` is true when the request holds a dtype
outside the wrapper's own ``CAPABILITIES["write_dtypes"]`` (a refusal of it
is then no failure).
"""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path
from typing import Any


def _wrapper(path: str) -> Any:  # noqa: ANN401 - a module
    # wrappers import their shared helpers (_spec) from their own folder
    sys.path.insert(0, str(Path(path).parent))
    spec = importlib.util.spec_from_file_location("wrapper_under_test", path)
    if spec is None or spec.loader is None:
        raise SystemExit(f"cannot import {path}")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _refusal(module: Any, exc: BaseException) -> bool:  # noqa: ANN401
    declared = getattr(module, "WRITE_REJECTS", None) or getattr(
        module, "REJECTS", None
    )
    if declared is not None:
        return isinstance(exc, tuple(declared))
    programming = (ImportError, AttributeError, NameError, RecursionError, MemoryError)
    return isinstance(exc, Exception) and not isinstance(exc, programming)


def write(module: Any, request: dict[str, Any], out: Path) -> dict[str, Any]:  # noqa: ANN401
    """Save one request with the wrapper; what happened."""
    tensors = {
        name: (t["dtype"], tuple(t["shape"]), bytes.fromhex(t["hex"]))
        for name, t in request["tensors"].items()
    }
    path = out / f"{request['name']}.safetensors"
    declared = (getattr(module, "CAPABILITIES", None) or {}).get("write_dtypes")
    undeclared = declared is not None and any(
        t["dtype"] not in declared for t in request["tensors"].values()
    )
    try:
        module.save(str(path), tensors, request["metadata"])
    except BaseException as exc:
        if isinstance(exc, KeyboardInterrupt):
            raise
        path.unlink(missing_ok=True)  # no half-written file is kept
        result = "refused" if _refusal(module, exc) else "crashed"
        return {
            "request": request["name"],
            "result": result,
            "reason": f"{type(exc).__name__}: {exc}"[:300],
            "undeclared": undeclared,
        }
    return {
        "request": request["name"],
        "result": "written",
        "reason": "",
        "undeclared": undeclared,
    }


def main(argv: list[str]) -> None:
    """Write every request read from stdin."""
    module = _wrapper(argv[0])
    out = Path(argv[1])
    for line in sys.stdin:
        answer = write(module, json.loads(line), out)
        sys.stdout.write(json.dumps(answer) + "\n")
        sys.stdout.flush()


if __name__ == "__main__":
    main(sys.argv[1:])
