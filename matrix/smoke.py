"""The smoke gate a new or changed row passes before a full run.

    python -m matrix.smoke matrix/rows/NAME.toml ... [--results DIR] [--python PY]

For each row file: check it (``matrix.rows``), set up its environment
(``matrix.envs``; not with ``--python``), run the suite on the ``SMOKE``
cases only, and judge that run.  The gate asks what a working wrapper always
does, whatever the library's quality:

* the suite could describe the wrapper (it imports, names a version and
  declares its capabilities);
* every smoke case ran;
* the valid file (float32 tensors, the dtype every reader supports) was
  loaded as the reference loads it;
* no answer broke the protocol (``invalid-output`` is the wrapper's fault).

A library that crashes on, or accepts, the invalid smoke file still passes:
that is a finding of the full run, not a broken row.  Exit status 1 when a
row fails its check, its set-up or the gate.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from pathlib import Path
from typing import Any, Final

from matrix import envs, rows, runner

__all__ = ["SMOKE", "VALID", "gate", "main", "smoke"]

VALID: Final = "y_dtype_f32_values"
SMOKE: Final = (VALID, "n_layout_bounds_buffer_short")


def gate(result: dict[str, Any]) -> list[str]:
    """Why a smoke run of one row fails the gate (empty: it passes)."""
    if "setup_error" in result:
        return [f"set-up failed: {result['setup_error']}"]
    problems = []
    described = (result.get("implementation") or {}).get("described") or {}
    if "error" in described or described.get("capabilities") is None:
        said = described.get("error") or described.get("describe_error") or "nothing"
        if isinstance(said, list):  # the last line of what the wrapper raised
            said = "; ".join(map(str, said))
        problems.append(f"the suite could not describe the wrapper: {said}")
    cases = result.get("cases") or {}
    for case in SMOKE:
        entry = cases.get(case)
        if not isinstance(entry, dict):
            problems.append(f"{case}: did not run")
        elif entry.get("outcome") == "invalid-output":
            problems.append(f"{case}: the wrapper broke the protocol: {entry}")
    valid = cases.get(VALID)
    if isinstance(valid, dict) and valid.get("ok") is not True:
        problems.append(
            f"{VALID}: float32 tensors were not loaded as the reference loads "
            f"them ({valid.get('outcome')}: {valid.get('detail', '')})"
        )
    return problems


def smoke(path: Path, results: Path, python: Path | None = None) -> list[str]:
    """Check, set up and smoke-run the row in ``path``; the gate's problems."""
    try:
        impl = rows.load(path)
    except (OSError, ValueError) as exc:
        return [str(exc)]
    if python is None:
        try:
            envs.setup(impl)
        except Exception as exc:  # noqa: BLE001 - any failure is the row's answer
            return [f"set-up failed: {type(exc).__name__}: {exc}"]
    out = runner.run(impl, results, python=python, select=" or ".join(SMOKE))
    recorded: dict[str, Any] = json.loads(out.read_text("utf-8"))
    return gate(recorded)


def main(argv: list[str] | None = None) -> int:
    """Smoke-test each row file named; 1 when one fails."""
    parser = argparse.ArgumentParser(prog="python -m matrix.smoke", description=__doc__)
    parser.add_argument("rows", nargs="+", type=Path, metavar="ROW_FILE")
    parser.add_argument(
        "--results", type=Path, help="where NAME.json goes (default: a scratch folder)"
    )
    parser.add_argument(
        "--python",
        type=Path,
        help="run in this interpreter's environment instead of setting one up",
    )
    args = parser.parse_args(argv)
    status = 0
    with tempfile.TemporaryDirectory(prefix="stspec-smoke-") as scratch:
        results = args.results or Path(scratch)
        results.mkdir(parents=True, exist_ok=True)
        for path in args.rows:
            problems = smoke(path, results, args.python)
            for problem in problems:
                print(f"{path}: {problem}", file=sys.stderr)
            print(f"{path}: {'FAILED the smoke gate' if problems else 'passed'}")
            status |= bool(problems)
    return status


if __name__ == "__main__":
    raise SystemExit(main())
