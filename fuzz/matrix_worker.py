"""Serve one matrix wrapper: a file path per stdin line, a JSON answer per line.

    python fuzz/matrix_worker.py WRAPPER.py     (inside the implementation's env,
                                                 with matrix/wrappers on PYTHONPATH)

The answers are those of ``matrix/wrappers/_probe.py`` (accepted with tensors
as [dtype, shape, sha256 or null], rejected, crashed, hung); one long-lived
process answers thousands of inputs a second instead of starting Python, numpy
or torch for each.  If the process dies, the caller counts a crash for the
input it was given and starts another.
"""

import json
import sys

import _probe  # type: ignore[import-not-found]  # matrix/wrappers, on PYTHONPATH


def main(argv: list[str]) -> None:
    """Answer every path read from stdin until it closes."""
    module = _probe._wrapper(argv[0])  # noqa: SLF001 - the probe's own loader
    for line in sys.stdin:
        answer = _probe.probe(module, line.rstrip("\n"))
        sys.stdout.write(json.dumps(answer, default=str) + "\n")
        sys.stdout.flush()


if __name__ == "__main__":
    main(sys.argv[1:])
