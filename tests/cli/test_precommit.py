"""The stspec-check pre-commit hook, run by the real pre-commit in a scratch repository.

``pre-commit try-repo`` installs the hook from this checkout as a user's
``.pre-commit-config.yaml`` would (a virtualenv with the project in it) and
runs it on the staged files.  Installing costs about a minute of wall time on
a loaded machine; every run in this module shares the one environment.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import stspec

from .models import INDEX, SHARDS, write_model

ROOT = Path(__file__).resolve().parents[2]
PRE_COMMIT = Path(sys.executable).parent / "pre-commit"
FIRST, SECOND = sorted(SHARDS)

pytestmark = pytest.mark.skipif(
    shutil.which("git") is None or not PRE_COMMIT.exists(),
    reason="needs git and pre-commit (the dev group installs it)",
)


def _git(repository: Path, *argv: str) -> None:
    subprocess.run(
        ["git", *argv],  # noqa: S607 - git from PATH
        cwd=repository,
        check=True,
        capture_output=True,
        timeout=120,
    )


@pytest.fixture(scope="module")
def home(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """pre-commit's cache: the hook's environment, installed once."""
    return tmp_path_factory.mktemp("pre-commit-home")


def _repository(folder: Path, *, commit: bool = True) -> Path:
    """A git repository holding a valid sharded model, staged or committed."""
    write_model(folder)
    (folder / "README.md").write_text("a model\n", encoding="utf-8")
    _git(folder, "init", "-q")
    _git(folder, "config", "user.email", "hook@example.invalid")
    _git(folder, "config", "user.name", "hook test")
    _git(folder, "add", "-A")
    if commit:
        _git(folder, "commit", "-q", "-m", "a valid sharded model")
    return folder


def _try_repo(repository: Path, home: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(PRE_COMMIT), "try-repo", str(ROOT), "stspec-check", "--color=never"],
        cwd=repository,
        capture_output=True,
        text=True,
        timeout=900,
        check=False,
        env={**os.environ, "PRE_COMMIT_HOME": str(home)},
    )


def test_the_hook_passes_a_valid_model_and_refuses_a_tampered_shard(
    tmp_path: Path, home: Path
) -> None:
    repository = _repository(tmp_path / "models", commit=False)
    done = _try_repo(repository, home)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "stspec check" in done.stdout
    assert "Passed" in done.stdout
    _git(repository, "commit", "-q", "-m", "a valid sharded model")

    with (repository / SECOND).open("ab") as shard:
        shard.write(b"tampered")
    _git(repository, "add", "-A")
    done = _try_repo(repository, home)
    assert done.returncode == 1, done.stdout + done.stderr
    assert "Failed" in done.stdout
    assert f"{SECOND}: LAYOUT-TRAILING at byte " in done.stdout
    # The staged shard brings its model: the index is checked with it.
    assert f"{INDEX}: model invalid (1 invalid shard: {SECOND})" in done.stdout


def test_a_staged_shard_brings_its_whole_model(tmp_path: Path, home: Path) -> None:
    repository = _repository(tmp_path / "models")
    # A shadow copy, in the second shard, of a tensor the index places in
    # the first: transformers loads the copy.  Each file alone is valid.
    tensors = {**SHARDS[SECOND], "layers.0.weight": ("F32", [4], b"\x01" * 16)}
    stspec.write(repository / SECOND, tensors, {"format": "pt"})
    _git(repository, "add", SECOND)
    done = _try_repo(repository, home)
    assert done.returncode == 1, done.stdout + done.stderr
    assert f"{SECOND}: SHARD-DUPLICATE at byte " in done.stdout
    assert f"{INDEX}: model invalid (1 error, 1 warning)" in done.stdout


def test_a_file_name_is_never_taken_for_an_option(tmp_path: Path, home: Path) -> None:
    repository = _repository(tmp_path / "models")
    garbage = "--sarif=x.safetensors"
    (repository / garbage).write_bytes(b"this is not a safetensors file")
    (repository / "README.md").write_text("a model, and more\n", encoding="utf-8")
    _git(repository, "add", "-A")
    done = _try_repo(repository, home)
    assert done.returncode == 1, done.stdout + done.stderr
    # Checked as a file (and refused), not read as --sarif: no log written.
    assert f"{garbage}: HEADER-LIMIT at byte 0: not a safetensors" in done.stdout
    assert not (repository / "x.safetensors").exists()


def test_the_hook_manifest_is_what_pre_commit_accepts() -> None:
    done = subprocess.run(
        [str(PRE_COMMIT), "validate-manifest", str(ROOT / ".pre-commit-hooks.yaml")],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    text = (ROOT / ".pre-commit-hooks.yaml").read_text(encoding="utf-8")
    # An index and its shards must arrive in one call to be checked as a model.
    assert "require_serial: true" in text
    # File names follow `--`: none is ever read as an option.
    assert "entry: stspec check -q --whole-models --\n" in text
