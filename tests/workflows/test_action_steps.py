"""action.yml's own steps, run as a GitHub runner runs them (tests/composite.py).

The install step installs the suite from the action's own files by default
(the commit a workflow pins), so the action works before any release; a
``version`` input installs a release from the package index instead.  The
session's fresh install (tests/fresh_install.py) is that step, run in a new
venv; here the suite step runs in it, for a Python adapter and a ``cmd:``
program, and its outputs, job summary and reports are what a job would get.
"""

from __future__ import annotations

import json
import stat
import subprocess
from pathlib import Path

import pytest
from composite import Runner, clean_env
from fresh_install import INSTALL_STEP, REPO, Installed, fresh_install

import stspec

ACTION = REPO / "action.yml"
CASES = "y_prefix_smallest_file or n_layout_hole_between_tensors"
ADAPTER = """\
import stspec


def load(path):
    with stspec.read(path) as st:
        tensors = {name: (info.dtype, list(info.shape), bytes(st.tensor_bytes(name)))
                   for name, info in st.tensors.items()}
        return tensors, st.metadata
"""


@pytest.fixture(scope="session")
def installed(tmp_path_factory: pytest.TempPathFactory) -> Installed:
    return fresh_install(tmp_path_factory)


def _fake_python(tmp_path: Path) -> dict[str, str]:
    """An environment whose ``python`` only prints its arguments."""
    bin_dir = tmp_path / "fake" / "bin"
    bin_dir.mkdir(parents=True)
    python = bin_dir / "python"
    python.write_text('#!/bin/sh\nprintf "%s|" "$@" >>"$RUNNER_TEMP/python-args"\n')
    python.chmod(python.stat().st_mode | stat.S_IEXEC)
    return clean_env(tmp_path / "fake")


@pytest.mark.parametrize(
    ("version", "requirement"),
    [
        ("", f"{REPO}[conformance]"),
        ("1.0.0", "safetensors-spec[conformance]==1.0.0"),
        ("~=1.0.0", "safetensors-spec[conformance]~=1.0.0"),
        (">=1.0.0,<1.1", "safetensors-spec[conformance]>=1.0.0,<1.1"),
    ],
)
def test_the_install_step_installs_the_pinned_files_or_a_release(
    tmp_path: Path, version: str, requirement: str
) -> None:
    runner = Runner(
        ACTION, {"impl": "x", "version": version}, _fake_python(tmp_path),
        workspace=tmp_path, temp=tmp_path / "runner",
    )  # fmt: skip
    result = runner.run({INSTALL_STEP})
    assert result.status == 0
    args = (tmp_path / "runner" / "python-args").read_text()
    assert args == f"-m|pip|install|{requirement}|"


@pytest.mark.parametrize(
    "version", ["1.0.0; touch pwned", "$(touch pwned)", "--index-url=http://x", "v1"]
)
def test_a_version_that_is_no_version_installs_nothing(
    tmp_path: Path, version: str
) -> None:
    runner = Runner(
        ACTION, {"impl": "x", "version": version}, _fake_python(tmp_path),
        workspace=tmp_path, temp=tmp_path / "runner",
    )  # fmt: skip
    result = runner.run({INSTALL_STEP})
    assert result.status == 2
    assert not (tmp_path / "runner" / "python-args").exists()
    assert not (tmp_path / "pwned").exists()


def test_the_fresh_install_is_the_pinned_files_not_an_editable_one(
    installed: Installed,
) -> None:
    done = subprocess.run(
        [installed.bin("python"), "-c",
         "import stspec_conformance as s; print(s.__file__, s.__version__)"],
        env=installed.env, cwd=installed.root, capture_output=True, text=True,
        check=True,
    )  # fmt: skip
    where, version = done.stdout.split()
    assert Path(where).is_relative_to(installed.venv), where
    assert version == stspec.__version__


@pytest.mark.parametrize("kind", ["python", "cmd"])
def test_the_action_runs_the_suite_from_a_clean_environment(
    installed: Installed, tmp_path: Path, kind: str
) -> None:
    if kind == "python":
        (tmp_path / "my_adapter.py").write_text(ADAPTER)
        impl = "./my_adapter.py"
    else:
        reader = subprocess.run(
            [installed.bin("python"), "-m", "stspec_conformance", "examples",
             "reader.mjs"],
            env=installed.env, capture_output=True, text=True, check=True,
        ).stdout.strip()  # fmt: skip
        impl = f"cmd:node {reader}"
    runner = Runner(
        installed.action,
        {"impl": impl, "options": f"-k '{CASES}'", "report-name": "conformance"},
        installed.env, workspace=tmp_path, temp=tmp_path / "runner",
    )  # fmt: skip
    result = runner.run({"run", "Upload the reports"})
    assert result.status == 0, result
    reports = Path(result.outputs["run"]["report-dir"])
    assert reports == tmp_path / "runner" / "stspec-report"
    assert {p.name for p in reports.iterdir()} == {
        "report.json", "report.md", "junit.xml",
    }  # fmt: skip
    assert json.loads((reports / "report.json").read_text("utf-8"))
    assert result.uses["actions/upload-artifact"]["path"] == str(reports)
    assert result.uses["actions/upload-artifact"]["name"] == "conformance"
    assert result.summary.startswith("## safetensors conformance: ")
    assert "| **total** | 2 | 2 |" in result.summary
