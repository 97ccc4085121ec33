"""The suite's command-line options (imported at every pytest start: keep it light).

Nothing here imports hypothesis, the adapters or the corpus: registering the
options must cost nothing for pytest runs that never ask for the suite.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING, Final

if TYPE_CHECKING:
    import pytest

__all__ = [
    "DEFAULT_CMD_MEMORY_MIB",
    "DEFAULT_MEMORY_BUDGET_MIB",
    "DEFAULT_TIMEOUT",
    "pytest_addoption",
]

DEFAULT_TIMEOUT: Final = 10.0
DEFAULT_WALL_TIMEOUT: Final = 60.0
DEFAULT_CMD_MEMORY_MIB: Final = 2048
DEFAULT_MEMORY_BUDGET_MIB: Final = 64


def pytest_addoption(parser: pytest.Parser) -> None:
    """Add the suite's options (all inert without --impl)."""
    group = parser.getgroup("stspec", "safetensors conformance suite")
    group.addoption(
        "--impl",
        # STSPEC_IMPL is read by _entry, only for runs that name the suite
        default=None,
        help="implementation under test: reference, safetensors, a module name, "
        "a path to a .py file, or 'cmd:PROGRAM ARGS...' (env STSPEC_IMPL, used "
        "when the suite's tests are named: --pyargs stspec_conformance)",
    )
    group.addoption(
        "--corpus",
        default=os.environ.get("STSPEC_CORPUS"),
        help="corpus directory holding manifest.json (env STSPEC_CORPUS; default: "
        "the corpus next to stspec_corpus, else generated into a cache dir)",
    )
    group.addoption(
        "--baseline",
        help="known deviations: matching tests become strict xfails (a file, or "
        "the name of a shipped one: safetensors-0.8.0, node-example)",
    )
    group.addoption("--write-baseline", help="write today's failures to this file")
    group.addoption(
        "--check-rules",
        action="store_true",
        help="also check that rejections name the rule the case breaks",
    )
    group.addoption(
        "--dense-header",
        action="store_true",
        help="also run y_layout_dense_header_at_limit: 1.8 M tensors in a "
        "100,000,000-byte header, about a minute of CPU (SPEC 1.6)",
    )
    group.addoption("--report-json", help="write a per-case JSON report to this file")
    group.addoption("--report-md", help="write a Markdown summary to this file")
    group.addoption(
        "--case-timeout",
        type=float,
        default=DEFAULT_TIMEOUT,
        help="CPU seconds one load or save may use, plus 1 s per 64 MiB of file "
        "and 1 s per 2 MiB of header "
        f"(default {DEFAULT_TIMEOUT:g})",
    )
    group.addoption(
        "--corpus-seed",
        default=None,
        help="the seed of this run's corpus variants (each committed file is "
        "handed over with a run-chosen member order, whitespace, tensor names "
        "and padding and, where the case allows, metadata, an added tensor, "
        "new tensor bytes, a filler tensor moving the later offsets and a 1 in "
        "a shape, so its verdict cannot be looked up); the summary "
        "shows it as STSPEC_CORPUS_SEED, and giving it again (or setting "
        "STSPEC_CORPUS_SEED) repeats a run's bytes; the implementation never "
        "gets it",
    )
    group.addoption(
        "--in-process",
        action="store_true",
        help="run a Python implementation in pytest's own process instead of a "
        "killable worker (for a debugger; a segfault then ends the run); the run "
        "goes on in a watched child, so one the implementation ends (os._exit) "
        "exits 3, never 0",
    )
    group.addoption(
        "--no-smoke-gate",
        action="store_true",
        help="run even if the implementation cannot load a minimal valid file "
        "(or a command fails --describe); for debugging an adapter",
    )
    group.addoption(
        "--wall-timeout",
        type=float,
        default=DEFAULT_WALL_TIMEOUT,
        help="wall-clock backstop in seconds for a load that waits without "
        f"computing, scaled like --case-timeout (default {DEFAULT_WALL_TIMEOUT:g})",
    )
    group.addoption(
        "--memory-limit",
        type=int,
        default=DEFAULT_CMD_MEMORY_MIB,
        help="MiB a cmd: implementation's runtime may allocate on top of each "
        f"file's allowance (RLIMIT_DATA, default {DEFAULT_CMD_MEMORY_MIB})",
    )
    group.addoption(
        "--memory-budget",
        type=int,
        default=DEFAULT_MEMORY_BUDGET_MIB,
        help="MiB an in-process implementation may allocate on top of each "
        "file's allowance (which comes from the file's length) "
        f"(default {DEFAULT_MEMORY_BUDGET_MIB})",
    )
