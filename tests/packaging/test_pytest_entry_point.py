"""The pytest11 entry point: inert and light in unrelated runs, the suite when asked."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from stspec_conformance._entry import baselines_dir, shipped_baseline

ROOT = Path(__file__).resolve().parents[2]

# pytest in a child process where hypothesis cannot be imported (as after
# `pip install safetensors-spec pytest`, without the [conformance] extra);
# afterwards it prints which of the suite's heavy modules got imported.
_WITHOUT_HYPOTHESIS = """
import importlib.abc, json, sys
class Block(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path=None, target=None):
        if name == "hypothesis" or name.startswith("hypothesis."):
            raise ModuleNotFoundError(f"No module named {name!r}")
sys.meta_path.insert(0, Block())
import pytest
status = pytest.main(["-q", "-p", "no:cacheprovider", "-p", "no:hypothesispytest"])
heavy = ["hypothesis", "stspec_conformance.plugin", "stspec"]
loaded = [m for m in heavy if m in sys.modules]
print(json.dumps({"status": int(status), "loaded": loaded}))
"""


def _project(tmp_path: Path) -> Path:
    project = tmp_path / "project"
    project.mkdir()
    (project / "test_mine.py").write_text("def test_mine():\n    assert 1 + 1 == 2\n")
    return project


def test_unrelated_projects_run_without_hypothesis_and_without_the_suite(
    tmp_path: Path,
) -> None:
    env = {**os.environ, "STSPEC_IMPL": "reference"}  # a leftover must not matter
    process = subprocess.run(
        [sys.executable, "-c", _WITHOUT_HYPOTHESIS],
        cwd=_project(tmp_path),
        capture_output=True,
        text=True,
        check=False,
        timeout=120,
        env=env,
    )
    *output, last = process.stdout.splitlines()
    assert json.loads(last) == {"status": 0, "loaded": []}, process.stdout
    assert "1 passed" in "\n".join(output)
    assert "conformance" not in process.stdout + process.stderr


def test_the_suite_named_on_the_command_line_takes_stspec_impl(tmp_path: Path) -> None:
    report = tmp_path / "report.json"
    env = {k: v for k, v in os.environ.items() if not k.startswith("STSPEC_")}
    process = subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            "--pyargs",
            "stspec_conformance",
            "-q",
            "-p",
            "no:cacheprovider",
            "-k",
            "y_prefix_smallest_file or n_layout_hole_between_tensors",
            f"--report-json={report}",
        ],
        cwd=_project(tmp_path),
        capture_output=True,
        text=True,
        check=False,
        timeout=300,
        env={**env, "STSPEC_IMPL": "reference"},
    )
    assert process.returncode == 0, process.stdout + process.stderr
    assert "SCORE" in process.stdout
    tests = json.loads(report.read_text())["tests"]
    assert sorted(t["case"] for t in tests) == [
        "n_layout_hole_between_tensors",
        "y_prefix_smallest_file",
    ]


def test_baselines_can_be_named_by_their_shipped_name(tmp_path: Path) -> None:
    shipped = baselines_dir() / "safetensors-0.8.0.txt"
    assert shipped.is_file()
    assert shipped_baseline("safetensors-0.8.0") == str(shipped)
    assert shipped_baseline("safetensors-0.8.0.txt") == str(shipped)
    mine = tmp_path / "mine.txt"
    assert shipped_baseline(str(mine)) == str(mine)  # a path stays a path
    assert shipped_baseline("no-such-baseline") == "no-such-baseline"
