"""Every implementation in the matrix: how it is installed and how it is called.

Each row is a data file, ``matrix/rows/NAME.toml`` (``matrix.rows`` reads and
checks them); its versions are pinned there and nowhere else.  ``pip`` pins
go into the implementation's own virtual environment, ``npm`` pins into its
own ``node_modules``; ``build`` names a script under ``matrix/build/`` that
turns a downloaded source distribution into a program.  ``layer`` names a
shared read-only environment (torch, 700 MB, ``LAYERS``) that the
implementation's own environment sees through a ``.pth`` file instead of
installing it again.  Besides the rows, this module holds the pins every
environment shares and the implementations the matrix cannot run.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

from matrix.rows import ROWS, Impl, load_all

__all__ = [
    "COMMAND_PINS",
    "IMPLS",
    "LAYERS",
    "SUITE_PINS",
    "UNAVAILABLE",
    "Impl",
    "Unavailable",
    "by_name",
]

# The suite's own test dependencies, installed beside each Python implementation
# (the same pins as the project's dev extra).
SUITE_PINS: Final = ("pytest==9.2.0", "hypothesis==6.170.15")
# What the suite needs only to drive cmd: programs (it validates their answers
# against the protocol's JSON Schemas), installed in the _suite environment.
COMMAND_PINS: Final = ("jsonschema==4.26.0",)
# a torch layer's numpy (the rows that install numpy pin the same one)
NUMPY: Final = "numpy==2.4.6"
LAYERS: Final = {"torch": ("torch==2.13.0", NUMPY)}

# Every row, from matrix/rows/NAME.toml, in the results table's order.
IMPLS: Final = load_all(ROWS)


@dataclass(frozen=True, slots=True)
class Unavailable:
    """An implementation with a parser of its own that the matrix cannot run."""

    title: str
    language: str
    reason: str


# Listed on the results page so that a missing column says why it is missing.
UNAVAILABLE: Final = (
    Unavailable(
        "@reve-ai/safetensors-parser",
        "TypeScript",
        "not served by the npm registry (npm view answers 404)",
    ),
    Unavailable(
        "tmanabe/safetensors-java, huobingnan/SafeTensors4J",
        "Java",
        "not published on Maven Central (source repositories only)",
    ),
    Unavailable(
        "syoyo/safetensors-cpp, hsnyder/safetensors.h, safetensors.hpp",
        "C, C++",
        "published on no package registry; the matrix installs only from registries",
    ),
    Unavailable(
        "TorchSharp.PyBridge, SafeTensorSharp",
        "C#",
        "NuGet is not a registry this project's machines reach",
    ),
    Unavailable(
        "mlverse/safetensors (R), elixir-nx/safetensors, SafeTensors.jl, "
        "swift-safetensors, zml (Zig)",
        "R, Elixir, Julia, Swift, Zig",
        "their registries (CRAN, Hex, Julia General, SwiftPM) are not reached here",
    ),
    Unavailable(
        "github.com/maruel/safetensors",
        "Go",
        "the Go module proxy refuses it: every request (@v/list, any version) "
        "answers 403 'This module version is not available.', and github.com "
        "itself is not reached (GOPROXY=direct: could not resolve host)",
    ),
    Unavailable(
        "gomlx/go-huggingface",
        "Go",
        "the one version the Go module proxy lists, v0.3.1, has no safetensors "
        "package (only hub/ and tokenizers/), and the proxy refuses any other "
        "(@main: 403 'This module version is not available.')",
    ),
)


def by_name(name: str) -> Impl:
    """The implementation called ``name`` (ValueError names the known ones)."""
    for impl in IMPLS:
        if impl.name == name:
            return impl
    known = ", ".join(impl.name for impl in IMPLS)
    raise ValueError(f"no implementation {name!r}; known: {known}")
