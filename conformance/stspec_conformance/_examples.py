"""``examples``: where the installed example readers are, and how each runs.

The tutorials run the examples from wherever pip put them; this prints their
paths, so a command line needs no checkout: ``--impl="cmd:node $(python -m
stspec_conformance examples reader.mjs)"``.
"""

from __future__ import annotations

import argparse
from importlib import resources
from typing import TYPE_CHECKING, Final

if TYPE_CHECKING:
    from pathlib import Path

__all__ = ["EXAMPLES", "example_path", "main"]

# file -> how it runs (PATH: the file's path)
EXAMPLES: Final = {
    "reader.mjs": "node PATH (reads, writes; a baseline: --baseline=node-example)",
    "reader.go": "go build -o reader-go PATH, then cmd:./reader-go",
    "reader.rs": "rustc --edition 2021 -O -o reader-rs PATH, then cmd:./reader-rs",
    "Reader.java": "javac --release 17 -d classes PATH, then cmd:java -cp classes "
    "Reader",
}


def example_path(name: str) -> Path:
    """The installed file of the example ``name`` (one of :data:`EXAMPLES`)."""
    if name not in EXAMPLES:
        msg = f"no example {name!r}; the examples are {', '.join(EXAMPLES)}"
        raise ValueError(msg)
    folder = resources.files("stspec_conformance") / "examples"
    with resources.as_file(folder / name) as path:
        return path  # a real file: the package is never imported from a zip


def main(argv: list[str] | None = None) -> int:
    """Print one example's path, or every example with its path and use."""
    command = argparse.ArgumentParser(
        prog="python -m stspec_conformance examples",
        description="Print the installed example readers' paths (with NAME: that "
        "path alone, for a shell's $(...)).",
    )
    command.add_argument("name", nargs="?", choices=sorted(EXAMPLES), metavar="NAME")
    options = command.parse_args(argv)
    if options.name:
        print(example_path(options.name))  # noqa: T201
        return 0
    for name, use in EXAMPLES.items():
        path = str(example_path(name))
        print(f"{name:12} {path}\n{'':12} {use.replace('PATH', path)}")  # noqa: T201
    return 0
