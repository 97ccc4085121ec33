#!/usr/bin/env python3
"""Fuzz the writer: bytes -> write request -> serialize/write -> read -> compare.

The bytes are decoded by targets.decode_request (no FuzzedDataProvider), so a
finding replays through pytest without atheris.
"""

import sys

import atheris  # type: ignore[import-untyped]

with atheris.instrument_imports(include=["stspec", "json"]):
    import json  # noqa: F401 - imported here so that it is instrumented

    import stspec  # noqa: F401

# The oracles stay uninstrumented (imported after the block).
import stackroom
import targets


def test_one_input(data: bytes) -> None:
    """Round-trip the write request ``data`` decodes to."""
    targets.check_roundtrip(data)


def main() -> None:
    """Hand the harness to libFuzzer (flags come from the command line)."""
    atheris.Setup(sys.argv, test_one_input)
    stackroom.call_with_room(atheris.Fuzz)


if __name__ == "__main__":
    main()
