#!/usr/bin/env python3
"""Fuzz an implementation against the reference's verdicts (check_differential).

Environment:
    STSPEC_IMPL          the implementation, as for ``pytest --impl``:
                         ``safetensors`` (default), ``reference``, a module
                         name, a ``.py`` path or ``cmd:PROGRAM ARGS...``
    STSPEC_IGNORE_RULES  comma-separated rule ids of known deviations (default:
                         HF safetensors 0.8.0's; set it to "" for none)

The reference is instrumented, so its coverage steers the inputs even when the
implementation is native; a module-name implementation is instrumented too.
"""

import os
import sys

import atheris  # type: ignore[import-untyped]

# Resolving needs the conformance package, which imports pytest: import it
# before the instrumented block so that pytest stays uninstrumented.
from stspec_conformance.adapters import resolve

IMPL = os.environ.get("STSPEC_IMPL", "safetensors")
_BUILTIN = ("safetensors", "reference")
_MODULE = IMPL if not IMPL.startswith("cmd:") and not IMPL.endswith(".py") else None
_INCLUDE = ["stspec", "json"] + ([_MODULE] if _MODULE and IMPL not in _BUILTIN else [])

with atheris.instrument_imports(include=_INCLUDE):
    import json  # noqa: F401 - imported here so that it is instrumented

    import stspec

    ADAPTER = resolve(IMPL)

# The oracles and the mutator stay uninstrumented (imported after the block).
import mutators  # noqa: E402
import targets  # noqa: E402

_RULES = os.environ.get("STSPEC_IGNORE_RULES")
IGNORE = (
    targets.HF_DEVIATIONS
    if _RULES is None
    else frozenset(rule.strip() for rule in _RULES.split(",") if rule.strip())
)


def test_one_input(data: bytes) -> None:
    """Compare the implementation's answer on one input with the reference's."""
    targets.check_differential(data, ADAPTER, ignore_rules=IGNORE)


def custom_mutator(data: bytes, max_size: int, seed: int) -> bytes:
    """Mutate the header or the buffer and keep the length prefix right."""
    try:
        mutant: bytes = mutators.mutate(data, max_size, seed, atheris.Mutate)
    except Exception:  # noqa: BLE001 - a mutator bug must not stop the fuzzer
        mutant = atheris.Mutate(data, max_size)
    return mutant


def main() -> None:
    """Hand the harness to libFuzzer (flags come from the command line)."""
    unknown = IGNORE - set(stspec.RULES_BY_ID)
    if unknown:
        sys.exit(f"STSPEC_IGNORE_RULES: unknown rule ids {sorted(unknown)}")
    print(f"differential: {ADAPTER.label()}, ignoring {sorted(IGNORE)}", flush=True)
    atheris.Setup(sys.argv, test_one_input, custom_mutator=custom_mutator)
    atheris.Fuzz()


if __name__ == "__main__":
    main()
