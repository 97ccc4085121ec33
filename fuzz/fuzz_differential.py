#!/usr/bin/env python3
"""Fuzz an implementation against the reference's verdicts (check_differential).

Environment:
    STSPEC_IMPL          the implementation, as for ``pytest --impl``:
                         ``safetensors`` (default), ``reference``, a module
                         name, a ``.py`` path or ``cmd:PROGRAM ARGS...``; or
                         ``matrix:NAME``, a results-matrix implementation
                         called through its wrapper in its own environment
                         (fuzz/matrix_impl.py), with its declared capabilities
                         and its known deviations from results/NAME.json
    STSPEC_IGNORE_RULES  comma-separated rule ids of known deviations (default:
                         HF safetensors 0.8.0's, or the matrix baseline's;
                         set it to "" for none)

The reference and the stdlib json it builds on are instrumented, so their
coverage steers the inputs even when the implementation is native or runs in
another process; a module-name implementation is instrumented too.  The
reference's own cost per input is held to a linear budget (budget.py).
"""

import os
import sys

import atheris  # type: ignore[import-untyped]

# Instrument the reference first: the conformance package imports stspec and
# json itself, and a module imported before this block stays uninstrumented.
with atheris.instrument_imports(include=["stspec", "json"]):
    import json  # noqa: F401 - imported here so that it is instrumented

    import stspec

IMPL = os.environ.get("STSPEC_IMPL", "safetensors")
_BUILTIN = ("safetensors", "reference")
_MODULE = (
    IMPL
    if not IMPL.startswith(("cmd:", "matrix:")) and not IMPL.endswith(".py")
    else None
)

# The oracles, the mutator and the conformance package (which imports pytest)
# stay uninstrumented; only a module-name implementation joins the reference.
import budget  # noqa: E402
import mutators  # noqa: E402
import stackroom  # noqa: E402
import targets  # noqa: E402

from stspec_conformance.adapters import resolve  # noqa: E402

if IMPL.startswith("matrix:"):
    # Imported only here: a ClusterFuzzLite bundle carries no matrix package.
    import matrix_impl

    TARGET = matrix_impl.MatrixImpl(IMPL.removeprefix("matrix:"))
    DEFAULT_IGNORE = TARGET.known_deviations
elif _MODULE and IMPL not in _BUILTIN:
    with atheris.instrument_imports(include=[_MODULE]):
        ADAPTER = resolve(IMPL)
    DEFAULT_IGNORE = targets.HF_DEVIATIONS
else:
    ADAPTER = resolve(IMPL)
    DEFAULT_IGNORE = targets.HF_DEVIATIONS

_RULES = os.environ.get("STSPEC_IGNORE_RULES")
IGNORE = (
    DEFAULT_IGNORE
    if _RULES is None
    else frozenset(rule.strip() for rule in _RULES.split(",") if rule.strip())
)
COST = budget.Budget(stspec.validate)


def test_one_input(data: bytes) -> None:
    """Compare the implementation's answer on one input with the reference's."""
    targets.suppressed(COST.run, data)
    if IMPL.startswith("matrix:"):
        targets.suppressed(TARGET.check, data, IGNORE)
    else:
        targets.suppressed(
            targets.check_differential, data, ADAPTER, ignore_rules=IGNORE
        )


# Mutate the header or the buffer and keep the length prefix right.
custom_mutator = mutators.guarded(atheris)


def main() -> None:
    """Hand the harness to libFuzzer (flags come from the command line)."""
    unknown = IGNORE - set(stspec.RULES_BY_ID)
    if unknown:
        sys.exit(f"STSPEC_IGNORE_RULES: unknown rule ids {sorted(unknown)}")
    label = TARGET.label() if IMPL.startswith("matrix:") else ADAPTER.label()
    print(f"differential: {label}, ignoring {sorted(IGNORE)}", flush=True)
    COST.calibrate()
    atheris.Setup(sys.argv, test_one_input, custom_mutator=custom_mutator)
    stackroom.call_with_room(atheris.Fuzz)


if __name__ == "__main__":
    main()
