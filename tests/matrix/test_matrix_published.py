"""What the committed results say about other people's libraries, checked."""

import json
import re
from pathlib import Path
from typing import Any, Final

import pytest
from matrix import probe

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


@pytest.mark.parametrize("path", RESULTS, ids=[p.stem for p in RESULTS])
def test_no_row_declares_a_dtype_its_library_refuses(path: Path) -> None:
    # a declared dtype whose every single-dtype valid file the library refused
    # makes "valid files read right" incomparable between rows
    assert probe.declared_but_refused(_result(path), MANIFEST) == {}
