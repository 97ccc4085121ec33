"""The README's Python examples run, and print what the README says they print."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

README = Path(__file__).resolve().parent.parent / "README.md"
BLOCK = re.compile(r"```(\w*)\n(.*?)```", re.DOTALL)


def python_examples() -> list[tuple[str, str | None]]:
    """Each ```python block, with the plain ``` block right after it, if any."""
    blocks = BLOCK.findall(README.read_text(encoding="utf-8"))
    examples = []
    for index, (language, body) in enumerate(blocks):
        if language != "python":
            continue
        following = blocks[index + 1] if index + 1 < len(blocks) else None
        expected = following[1] if following and following[0] == "" else None
        examples.append((body, expected))
    return examples


EXAMPLES = python_examples()


def test_the_readme_has_python_examples() -> None:
    assert len(EXAMPLES) >= 4


@pytest.mark.parametrize(
    ("code", "expected"),
    [
        pytest.param(code, expected, id=f"example-{n}")
        for n, (code, expected) in enumerate(EXAMPLES)
    ],
)
def test_readme_example_runs_as_shown(
    code: str, expected: str | None, tmp_path: Path
) -> None:
    result = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    if expected is not None:
        assert result.stdout == expected
