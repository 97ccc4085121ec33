#!/usr/bin/env python3
"""Fuzz the reference reader: any bytes in, the contract of check_reader out.

Run from the repository root (see docs/howto/fuzz-in-ci.md):
    fuzz/fuzz_reader.py -dict=fuzz/safetensors.dict fuzz/work/reader fuzz/work/seeds

Besides check_reader's oracles, each input must cost CPU and memory roughly
linear in its size (budget.py): a quadratic corner is a finding.  Those need
room to show, so run with -max_len=65536 to look for them.
"""

import sys

import atheris  # type: ignore[import-untyped]

# Only what is imported inside this block is instrumented: the reader and the
# stdlib json it builds on, not the oracles or the mutator.
with atheris.instrument_imports(include=["stspec", "json"]):
    import json  # noqa: F401 - imported here so that it is instrumented

    import stspec  # noqa: F401

# The oracles and the mutator stay uninstrumented (imported after the block).
import budget
import mutators
import stackroom
import targets

COST = budget.Budget(targets.check_reader)


def test_one_input(data: bytes) -> None:
    """Run one input through the reader's oracles, within its cost budget."""
    targets.suppressed(COST.run, data)


# Mutate the header or the buffer and keep the length prefix right.
custom_mutator = mutators.guarded(atheris)


def main() -> None:
    """Hand the harness to libFuzzer (flags come from the command line)."""
    COST.calibrate()
    print(f"reader: linear cost {COST.per_byte * 1e6:.3f} us/byte", flush=True)
    atheris.Setup(sys.argv, test_one_input, custom_mutator=custom_mutator)
    stackroom.call_with_room(atheris.Fuzz)


if __name__ == "__main__":
    main()
