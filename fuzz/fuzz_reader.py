#!/usr/bin/env python3
"""Fuzz the reference reader: any bytes in, the contract of check_reader out.

Run from the repository root (see the README, "Fuzzing"):
    fuzz/fuzz_reader.py -dict=fuzz/safetensors.dict fuzz/work/reader fuzz/work/seeds
"""

import sys

import atheris  # type: ignore[import-untyped]

# Only what is imported inside this block is instrumented: the reader and the
# stdlib json it builds on, not the oracles or the mutator.
with atheris.instrument_imports(include=["stspec", "json"]):
    import json  # noqa: F401 - imported here so that it is instrumented

    import stspec  # noqa: F401

# The oracles and the mutator stay uninstrumented (imported after the block).
import mutators
import targets


def test_one_input(data: bytes) -> None:
    """Run one input through the reader's oracles."""
    targets.check_reader(data)


def custom_mutator(data: bytes, max_size: int, seed: int) -> bytes:
    """Mutate the header or the buffer and keep the length prefix right."""
    try:
        mutant: bytes = mutators.mutate(data, max_size, seed, atheris.Mutate)
    except Exception:  # noqa: BLE001 - a mutator bug must not stop the fuzzer
        mutant = atheris.Mutate(data, max_size)
    return mutant


def main() -> None:
    """Hand the harness to libFuzzer (flags come from the command line)."""
    atheris.Setup(sys.argv, test_one_input, custom_mutator=custom_mutator)
    atheris.Fuzz()


if __name__ == "__main__":
    main()
