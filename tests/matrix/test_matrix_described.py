"""matrix.described: what a row's last run recorded of its implementation."""

import json
from pathlib import Path

from matrix.described import described


def _run(results: Path, name: str, data: dict[str, object]) -> None:
    (results / f"{name}.json").write_text(json.dumps(data))


def test_a_run_that_set_up_gives_its_description(tmp_path: Path) -> None:
    answer = {"version": "1.2", "capabilities": {"write": True}}
    _run(tmp_path, "lib", {"implementation": {"described": answer}})
    assert described(tmp_path, "lib") == answer


def test_no_run_or_a_failed_set_up_gives_none(tmp_path: Path) -> None:
    _run(tmp_path, "broken", {"setup_error": "no JDK", "implementation": {}})
    assert described(tmp_path, "broken") is None
    assert described(tmp_path, "never-run") is None


def test_a_run_without_a_description_gives_an_empty_one(tmp_path: Path) -> None:
    _run(tmp_path, "quiet", {"implementation": {"described": None}})
    _run(tmp_path, "bare", {})
    assert described(tmp_path, "quiet") == described(tmp_path, "bare") == {}
