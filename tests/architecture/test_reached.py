"""tests/reached.py fails on a module no test process recorded, and only on it."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import reached

ROOT = Path(__file__).resolve().parents[2]


def _record(folder: Path, name: str, files: list[Path]) -> None:
    text = "".join(f"{path.resolve()}\n" for path in files)
    (folder / name).write_text(text, encoding="utf-8")


def _reached(folder: Path) -> subprocess.CompletedProcess[str]:
    """Run tests/reached.py on ``folder`` as CI does."""
    return subprocess.run(
        [sys.executable, str(ROOT / "tests" / "reached.py"), str(folder)],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )


def test_a_module_no_process_recorded_is_unreached(tmp_path: Path) -> None:
    every = reached.modules()
    assert len(every) > 100
    left_out = every[len(every) // 2]
    # two processes, each recording a part: their union is what counts
    _record(tmp_path, "gw0-1.txt", every[: len(every) // 2])
    _record(tmp_path, "gw1-2.txt", every[len(every) // 2 + 1 :])
    assert reached.unreached(tmp_path) == [left_out]


def test_the_command_names_the_module_and_fails(tmp_path: Path) -> None:
    every = reached.modules()
    _record(tmp_path, "main-1.txt", every[1:])
    done = _reached(tmp_path)
    assert done.returncode == 1, done.stdout + done.stderr
    assert f"not reached: {every[0].relative_to(ROOT)}" in done.stderr
    _record(tmp_path, "main-1.txt", every)
    done = _reached(tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr
    assert f"{len(every)} of {len(every)} modules imported" in done.stdout


def test_an_empty_folder_is_a_usage_error(tmp_path: Path) -> None:
    done = _reached(tmp_path)
    assert done.returncode == 2, done.stderr
    assert "no recorded imports" in done.stderr
