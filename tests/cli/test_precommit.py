"""The stspec-check pre-commit hook, run by the real pre-commit in a scratch repository.

Each scratch repository has the ``.pre-commit-config.yaml`` the how-to shows,
naming this checkout at a commit (``hook``: its HEAD, or, with uncommitted
changes, a commit of them made as ``pre-commit try-repo`` makes it), and
``pre-commit run`` runs the hook on the staged files.  pre-commit installs the
hook's environment (a virtualenv with the project in it) once, into a
PRE_COMMIT_HOME every xdist worker of the session shares, and every run here
uses it.  (``try-repo`` would install it again on every call: it keeps its
environments in a temporary folder of its own.)
"""

from __future__ import annotations

import fcntl
import json
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


def _git(repository: Path, *argv: str, env: dict[str, str] | None = None) -> str:
    return subprocess.run(
        ["git", *argv],  # noqa: S607 - git from PATH
        cwd=repository,
        check=True,
        capture_output=True,
        text=True,
        timeout=120,
        env=env,
    ).stdout


def _session_dir(factory: pytest.TempPathFactory) -> Path:
    """The folder every xdist worker of the session shares."""
    base = factory.getbasetemp()  # xdist: .../pytest-N/popen-gwK
    return base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base


def _hook_commit(folder: Path) -> tuple[str, str]:
    """(repo, rev) of this checkout for a configuration, as try-repo picks them.

    A clean checkout is used at its HEAD.  Uncommitted changes to tracked files
    (and staged new files) are committed into a clone of it made in
    ``folder``, as ``pre-commit try-repo`` does: through the clone's index and
    object folder, so that nothing is written into this repository.
    """
    head = _git(ROOT, "rev-parse", "HEAD").strip()
    changed = subprocess.run(
        ["git", "diff", "--quiet", "HEAD"],  # noqa: S607 - git from PATH
        cwd=ROOT,
        check=False,
        timeout=120,
    )
    if changed.returncode == 0:
        return str(ROOT), head
    shadow = folder / "hook-repository"
    shadow.mkdir()
    _git(shadow, "clone", "-q", str(ROOT), ".")
    _git(shadow, "checkout", "-q", head, "-b", "uncommitted")
    env = {
        **os.environ,
        "GIT_INDEX_FILE": str(shadow / ".git" / "index"),
        "GIT_OBJECT_DIRECTORY": str(shadow / ".git" / "objects"),
    }
    staged = _git(ROOT, "diff", "--staged", "--name-only", "-z").split("\0")
    if staged := [name for name in staged if name]:
        _git(ROOT, "add", "--", *staged, env=env)
    _git(ROOT, "add", "-u", env=env)
    author = ("-c", "user.name=hook test", "-c", "user.email=hook@example.invalid")
    _git(shadow, *author, "commit", "-q", "--no-verify", "-m", "uncommitted changes")
    return str(shadow), _git(shadow, "rev-parse", "HEAD").strip()


@pytest.fixture(scope="module")
def hook(tmp_path_factory: pytest.TempPathFactory) -> tuple[str, str]:
    """The checkout's (repo, rev), made once for every xdist worker."""
    folder = _session_dir(tmp_path_factory) / "pre-commit-hook"
    folder.mkdir(exist_ok=True)
    with (folder / "lock").open("w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # released when the file closes
        saved = folder / "hook.json"
        if not saved.exists():
            saved.write_text(json.dumps(_hook_commit(folder)), encoding="utf-8")
        repo, rev = json.loads(saved.read_text(encoding="utf-8"))
    return str(repo), str(rev)


@pytest.fixture(scope="module")
def home(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """pre-commit's cache: the hook's environment, installed once for every
    xdist worker (pre-commit locks its cache while it installs)."""
    home = _session_dir(tmp_path_factory) / "pre-commit-home"
    home.mkdir(exist_ok=True)
    return home


def _repository(folder: Path, hook: tuple[str, str], *, commit: bool = True) -> Path:
    """A git repository holding a valid sharded model and the hook's
    configuration, staged or committed."""
    write_model(folder)
    (folder / "README.md").write_text("a model\n", encoding="utf-8")
    repo, rev = hook
    config = (
        f"repos:\n  - repo: {json.dumps(repo)}\n    rev: {rev}\n"
        "    hooks:\n      - id: stspec-check\n"
    )
    (folder / ".pre-commit-config.yaml").write_text(config, encoding="utf-8")
    _git(folder, "init", "-q")
    _git(folder, "config", "user.email", "hook@example.invalid")
    _git(folder, "config", "user.name", "hook test")
    _git(folder, "add", "-A")
    if commit:
        _git(folder, "commit", "-q", "-m", "a valid sharded model")
    return folder


def _run_hook(repository: Path, home: Path) -> subprocess.CompletedProcess[str]:
    """``pre-commit run``: the configured hook on the staged files."""
    return subprocess.run(
        [str(PRE_COMMIT), "run", "--color=never"],
        cwd=repository,
        capture_output=True,
        text=True,
        timeout=900,
        check=False,
        env={**os.environ, "PRE_COMMIT_HOME": str(home)},
    )


def test_the_hook_passes_a_valid_model_and_refuses_a_tampered_shard(
    tmp_path: Path, home: Path, hook: tuple[str, str]
) -> None:
    repository = _repository(tmp_path / "models", hook, commit=False)
    done = _run_hook(repository, home)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "stspec check" in done.stdout
    assert "Passed" in done.stdout
    _git(repository, "commit", "-q", "-m", "a valid sharded model")

    with (repository / SECOND).open("ab") as shard:
        shard.write(b"tampered")
    _git(repository, "add", "-A")
    done = _run_hook(repository, home)
    assert done.returncode == 1, done.stdout + done.stderr
    assert "Failed" in done.stdout
    assert f"{SECOND}: LAYOUT-TRAILING at byte " in done.stdout
    # The staged shard brings its model: the index is checked with it.
    assert f"{INDEX}: model invalid (1 invalid shard: {SECOND})" in done.stdout


def test_a_staged_shard_brings_its_whole_model(
    tmp_path: Path, home: Path, hook: tuple[str, str]
) -> None:
    repository = _repository(tmp_path / "models", hook)
    # A shadow copy, in the second shard, of a tensor the index places in
    # the first: transformers loads the copy.  Each file alone is valid.
    tensors = {**SHARDS[SECOND], "layers.0.weight": ("F32", [4], b"\x01" * 16)}
    stspec.write(repository / SECOND, tensors, {"format": "pt"})
    _git(repository, "add", SECOND)
    done = _run_hook(repository, home)
    assert done.returncode == 1, done.stdout + done.stderr
    assert f"{SECOND}: SHARD-DUPLICATE at byte " in done.stdout
    assert f"{INDEX}: model invalid (1 error, 1 warning)" in done.stdout


def test_a_file_name_is_never_taken_for_an_option(
    tmp_path: Path, home: Path, hook: tuple[str, str]
) -> None:
    repository = _repository(tmp_path / "models", hook)
    garbage = "--sarif=x.safetensors"
    (repository / garbage).write_bytes(b"this is not a safetensors file")
    (repository / "README.md").write_text("a model, and more\n", encoding="utf-8")
    _git(repository, "add", "-A")
    done = _run_hook(repository, home)
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
