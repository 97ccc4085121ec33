"""Serve one matrix wrapper: a file path per stdin line, a JSON answer per line.

    python fuzz/matrix_worker.py WRAPPER.py     (inside the implementation's env,
                                                 with matrix/wrappers on PYTHONPATH)

The first line is the wrapper's ``CAPABILITIES``; then each answer is what
``matrix/wrappers/_probe.py`` gives (accepted with tensors as [dtype, shape,
sha256 or null], rejected, crashed, hung); one long-lived
process answers thousands of inputs a second instead of starting Python, numpy
or torch for each.  If the process dies, the caller counts a crash for the
input it was given and starts another.
"""

import json
import sys

import _probe  # type: ignore[import-not-found]  # matrix/wrappers, on PYTHONPATH


def _strings(metadata: object) -> bool:
    return isinstance(metadata, dict) and all(
        isinstance(k, str) and isinstance(v, str) for k, v in metadata.items()
    )


def main(argv: list[str]) -> None:
    """Announce the wrapper's CAPABILITIES, then answer every path on stdin."""
    module = _probe._wrapper(argv[0])  # noqa: SLF001 - the probe's own loader
    declared = getattr(module, "CAPABILITIES", {})
    sys.stdout.write(json.dumps({"capabilities": dict(declared)}, default=str) + "\n")
    sys.stdout.flush()
    for line in sys.stdin:
        answer = _probe.probe(module, line.rstrip("\n"))
        metadata = answer.get("metadata")
        if metadata is not None and not _strings(metadata):
            # Some readers hand back parsed JSON (nested as deep as the file):
            # keep it comparable, and decodable by the caller.
            answer["metadata"] = {"(not a str -> str mapping)": repr(metadata)[:300]}
        sys.stdout.write(json.dumps(answer, default=str) + "\n")
        sys.stdout.flush()


if __name__ == "__main__":
    main(sys.argv[1:])
