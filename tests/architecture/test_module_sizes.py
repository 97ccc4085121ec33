"""No module of the reference is over 700 lines.

A module that long holds more than one job: it is split by job rather than
let grow (the house style's small modules doing one thing).
"""

from __future__ import annotations

from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
REFERENCE = ROOT / "reference" / "stspec"
MAX_LINES = 700


def too_long(folder: Path, limit: int) -> list[str]:
    """Each module under ``folder`` of more than ``limit`` lines, with its length."""
    found = []
    for path in sorted(folder.rglob("*.py")):
        lines = len(path.read_text(encoding="utf-8").splitlines())
        if lines > limit:
            found.append(f"{path.relative_to(folder).as_posix()}: {lines} lines")
    return found


def test_no_module_of_the_reference_is_over_700_lines() -> None:
    assert too_long(REFERENCE, MAX_LINES) == []


def test_the_check_finds_a_module_one_line_too_long(tmp_path: Path) -> None:
    (tmp_path / "inner").mkdir()
    (tmp_path / "inner" / "long.py").write_text("x = 1\n" * 701, encoding="utf-8")
    (tmp_path / "exact.py").write_text("x = 1\n" * 700, encoding="utf-8")
    assert too_long(tmp_path, MAX_LINES) == ["inner/long.py: 701 lines"]
