"""What the committed results say about other people's libraries, checked."""

import json
import re
from pathlib import Path
from typing import Any, Final

import pytest
from matrix import probe, runner

REPO = Path(__file__).resolve().parents[2]
RESULTS = sorted((REPO / "results").glob("*.json"))
MANIFEST = {
    case["id"]: case
    for case in json.loads((REPO / "corpus" / "manifest.json").read_text("utf-8"))[
        "cases"
    ]
}
# a build machine's absolute path, a file URL, or a stack frame of a wrapper
# (V8's "at f (file:...)", the JVM's "at a.B.c(B.java:1)")
_MACHINE: Final = re.compile(
    r"(?<![\w.~-])/(?:tmp|work|home|root|usr|var|opt)/|file:/"
    r"|\bat [\w$.<>]+ ?\([\w$]+\.(?:java|mjs|js):\d+"
)


def _result(path: Path) -> dict[str, Any]:
    data: dict[str, Any] = json.loads(path.read_text("utf-8"))
    return data


@pytest.mark.parametrize("path", RESULTS, ids=[p.stem for p in RESULTS])
def test_no_result_holds_a_machine_path_or_wrapper_frame(path: Path) -> None:
    assert _MACHINE.findall(path.read_text("utf-8")) == []


# Declared dtypes the library claims to read and refuses through a defect
# that its findings report names (undeclaring them would hide the defect).
_REFUSED_BY_A_FINDING: Final = {
    # convert sizes a U8 tensor as F32 or F16 (results/findings/go-ollama-convert.md)
    ("go-ollama-convert", "U8"),
}


@pytest.mark.parametrize("path", RESULTS, ids=[p.stem for p in RESULTS])
def test_no_row_declares_a_dtype_its_library_refuses(path: Path) -> None:
    # a declared dtype whose every single-dtype valid file the library refused
    # makes "valid files read right" incomparable between rows
    refused = probe.declared_but_refused(_result(path), MANIFEST)
    assert {d for d in refused if (path.stem, d) not in _REFUSED_BY_A_FINDING} == set()


def test_a_row_is_recorded_as_called_from_a_checkout(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    # environments elsewhere (STSPEC_MATRIX_DIR) are recorded under .matrix/
    monkeypatch.setenv("STSPEC_MATRIX_DIR", str(tmp_path / "envs"))
    spec = f"cmd:node {REPO}/matrix/wrappers/hub.mjs {tmp_path}/envs/djl/bin/x"
    assert (
        runner.called_as(spec) == "cmd:node matrix/wrappers/hub.mjs .matrix/djl/bin/x"
    )
