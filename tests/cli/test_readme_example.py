"""The model-folder tutorial prints what the tutorial says it prints."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

PAGE = (
    Path(__file__).resolve().parents[2]
    / "docs"
    / "tutorials"
    / "audit-a-model-folder.md"
)
BLOCK = re.compile(r"```(\w*)\n(.*?)```", re.DOTALL)


def blocks() -> list[tuple[str, str]]:
    return BLOCK.findall(PAGE.read_text(encoding="utf-8"))


@pytest.mark.skipif(shutil.which("bash") is None, reason="needs bash")
def test_the_sharded_example_output_is_real(tmp_path: Path) -> None:
    (language, setup), *rest = blocks()
    assert language == "python"
    subprocess.run([sys.executable, "-c", setup], cwd=tmp_path, check=True, timeout=120)
    pairs = list(zip(rest[::2], rest[1::2], strict=True))
    assert len(pairs) == 3
    env = {**os.environ, "PATH": f"{Path(sys.executable).parent}:{os.environ['PATH']}"}
    for (shell, command), (plain, expected) in pairs:
        assert (shell, plain) == ("sh", "")
        result = subprocess.run(
            ["bash", "-c", command],  # noqa: S607 - bash from PATH
            cwd=tmp_path,
            env=env,
            capture_output=True,
            text=True,
            timeout=120,
            check=False,
        )
        assert result.stdout == expected, command
    sarif = (tmp_path / "broken.sarif").read_text(encoding="utf-8")
    assert sarif.count('"ruleId"') == 4
