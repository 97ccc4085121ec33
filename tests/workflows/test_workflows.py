"""The GitHub Action, the workflows and the copy-paste examples, checked here.

GitHub is not reachable from CI, so each file is checked the way GitHub and
the usual linters would: against the published JSON schemas (check-jsonschema's
built-in copies), by actionlint, and by zizmor's security audits; and the
versions they pin must be the version of this package.
"""

import re
import subprocess
from pathlib import Path
from typing import Any

import pytest
import yaml
from external_tools import tool

import stspec

REPO = Path(__file__).resolve().parents[2]
WORKFLOWS = sorted((REPO / ".github" / "workflows").glob("*.yml"))
EXAMPLES = sorted((REPO / "docs" / "howto" / "workflows").glob("*.yml"))
ACTION = REPO / "action.yml"


def _run(*command: str | Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(part) for part in command],
        capture_output=True, text=True, cwd=REPO, timeout=300, check=False,
    )  # fmt: skip


def test_there_is_something_to_check() -> None:
    names = {path.name for path in WORKFLOWS}
    assert {"ci.yml", "conformance.yml", "pages.yml"} <= names
    assert {path.stem for path in EXAMPLES} == {
        "python-library", "rust-crate", "go-module", "node-package", "code-scanning",
    }  # fmt: skip


@pytest.mark.parametrize(
    ("schema", "files"),
    [
        ("vendor.github-workflows", [*WORKFLOWS, *EXAMPLES]),
        ("vendor.github-actions", [ACTION]),
    ],
)
def test_files_match_the_published_schemas(schema: str, files: list[Path]) -> None:
    program = tool("pip install --group dev", "check-jsonschema")
    done = _run(program, "--builtin-schema", schema, *files)
    assert done.returncode == 0, done.stdout + done.stderr


def test_actionlint_finds_nothing() -> None:
    module = "github.com/rhysd/actionlint/cmd/actionlint@v1.7.12"
    program = tool(f"GOBIN=$PWD/.venv/bin go install {module}", "actionlint")
    done = _run(program, "-no-color", *WORKFLOWS, *EXAMPLES)
    assert done.returncode == 0, done.stdout + done.stderr


def test_zizmor_finds_nothing() -> None:
    program = tool("pip install --group dev", "zizmor")
    config = REPO / ".github" / "zizmor.yml"
    done = _run(program, "--offline", "--config", config, ACTION, *WORKFLOWS, *EXAMPLES)
    assert done.returncode == 0, done.stdout + done.stderr


def test_zizmor_catches_what_it_should(tmp_path: Path) -> None:
    """The audit is live: an injectable, unpinned workflow is refused."""
    program = tool("pip install --group dev", "zizmor")
    bad = tmp_path / ".github" / "workflows" / "bad.yml"
    bad.parent.mkdir(parents=True)
    bad.write_text(
        "on: pull_request_target\npermissions: {}\njobs:\n  a:\n"
        "    runs-on: ubuntu-latest\n    steps:\n"
        "      - uses: actions/checkout@v4\n"
        "      - run: echo ${{ github.event.pull_request.title }}\n"
    )
    done = _run(program, "--offline", "--config", REPO / ".github" / "zizmor.yml", bad)
    assert done.returncode != 0
    assert "template-injection" in done.stdout
    assert "unpinned-uses" in done.stdout


def _load(path: Path) -> dict[Any, Any]:
    loaded = yaml.safe_load(path.read_text("utf-8"))
    assert isinstance(loaded, dict)
    return loaded


def test_the_action_runs_the_projects_own_script() -> None:
    runs = _load(ACTION)["runs"]
    assert runs["using"] == "composite"
    scripts = " ".join(str(step.get("run", "")) for step in runs["steps"])
    assert "python -m stspec_conformance.action" in scripts
    # inputs reach the scripts through the environment, never by substitution
    assert "${{" not in scripts


def test_pinned_versions_are_this_release() -> None:
    """The action, the reusable workflow and the examples pin one release."""
    version = stspec.__version__
    assert _load(ACTION)["inputs"]["version"]["default"] == version
    reusable = (REPO / ".github" / "workflows" / "conformance.yml").read_text("utf-8")
    # YAML 1.1 reads the key `on` as True
    called = _load(REPO / ".github" / "workflows" / "conformance.yml")[True]
    assert called["workflow_call"]["inputs"]["version"]["default"] == version
    tags = re.findall(r"safetensors-spec/safetensors-spec[^@\s]*@(\S+)", reusable)
    installs = []
    for example in EXAMPLES:
        text = example.read_text("utf-8")
        tags += re.findall(r"safetensors-spec/safetensors-spec[^@\s]*@(\S+)", text)
        installs += re.findall(r"safetensors-spec(?:\[\w+\])?==(\S+)", text)
    assert tags
    assert installs
    assert set(tags) == {f"v{version}"}
    assert set(installs) == {version}


def test_third_party_actions_are_pinned_to_commits() -> None:
    for path in [ACTION, *WORKFLOWS, *EXAMPLES]:
        for ref in re.findall(r"uses:\s*(\S+)", path.read_text("utf-8")):
            if ref.startswith(("safetensors-spec/", "./")):
                continue
            assert re.fullmatch(r"[\w.-]+/[\w./-]+@[0-9a-f]{40}", ref), (path, ref)
