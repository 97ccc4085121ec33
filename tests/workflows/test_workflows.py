"""The GitHub Action, the workflows and the copy-paste examples, checked here.

GitHub is not reachable from CI, so each file is checked the way GitHub and
the usual linters would: against the published JSON schemas (check-jsonschema's
built-in copies), by actionlint, and by zizmor's security audits (the examples
also under zizmor's default policy, as a copy in another repository meets it);
and where the docs pin this repository, they pin one commit whose action needs
no release.
"""

import re
import subprocess
from pathlib import Path
from typing import Any

import pytest
import yaml
from external_tools import tool

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


# GitHub's self-repository reference (`uses: $/`, the action of the commit the
# workflow runs at) is newer than actionlint 1.7.12, which asks for an @ref.
SELF_REPOSITORY = r'specifying action "\$/" in invalid format because ref is missing'


def test_actionlint_finds_nothing() -> None:
    module = "github.com/rhysd/actionlint/cmd/actionlint@v1.7.12"
    program = tool(f"GOBIN=$PWD/.venv/bin go install {module}", "actionlint")
    done = _run(program, "-no-color", "-ignore", SELF_REPOSITORY, *WORKFLOWS, *EXAMPLES)
    assert done.returncode == 0, done.stdout + done.stderr


def test_zizmor_finds_nothing() -> None:
    program = tool("pip install --group dev", "zizmor")
    config = REPO / ".github" / "zizmor.yml"
    done = _run(program, "--offline", "--config", config, ACTION, *WORKFLOWS, *EXAMPLES)
    assert done.returncode == 0, done.stdout + done.stderr


def test_zizmor_default_policy_accepts_the_examples() -> None:
    """Copied into a repository without this project's zizmor configuration."""
    program = tool("pip install --group dev", "zizmor")
    done = _run(program, "--offline", "--no-config", *EXAMPLES)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "No findings to report" in done.stdout


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


def test_the_suite_comes_from_the_pinned_commit_by_default() -> None:
    """No release needed: the action installs its own files, and the reusable
    workflow runs the action of its own commit."""
    assert _load(ACTION)["inputs"]["version"]["default"] == ""
    reusable = _load(REPO / ".github" / "workflows" / "conformance.yml")
    # YAML 1.1 reads the key `on` as True
    assert reusable[True]["workflow_call"]["inputs"]["version"]["default"] == ""
    suite = reusable["jobs"]["conformance"]["steps"][-1]
    assert suite["uses"] == "$/"  # this repository, at the commit the caller pinned
    assert suite["with"]["version"] == "${{ inputs.version }}"


def test_third_party_actions_are_pinned_to_commits() -> None:
    for path in [ACTION, *WORKFLOWS, *EXAMPLES]:
        text = path.read_text("utf-8")
        for ref in re.findall(r"^[ \t-]*uses:\s*(\S+)", text, re.MULTILINE):
            if ref.startswith(("./", "$/")):
                continue
            assert re.fullmatch(r"[\w.-]+/[\w./-]+@[0-9a-f]{40}", ref), (path, ref)


# Where the docs pin this repository: the example workflows, and the pages that
# install it or name it as a pre-commit hook.
PINNED = [*EXAMPLES, *(REPO / "docs" / "howto").glob("*.md")]
_OWN_PIN = re.compile(
    r"safetensors-spec/safetensors-spec(?:/\S*)?@([^\s\"'`]+)|"
    r"github\.com/safetensors-spec/safetensors-spec\n\s+rev: (\S+)"
)


def test_the_docs_pin_one_commit_whose_action_needs_no_release() -> None:
    pins = {
        (path.name, next(filter(None, match.groups())))
        for path in PINNED
        for match in _OWN_PIN.finditer(path.read_text("utf-8"))
    }
    assert {name for name, _ in pins} >= {
        "python-library.yml", "rust-crate.yml", "go-module.yml", "node-package.yml",
        "code-scanning.yml", "pre-commit.md", "conformance-in-ci.md",
    }  # fmt: skip
    commits = {pin for _, pin in pins if pin != "<commit>"}  # the form, shown
    [commit] = commits  # one pin everywhere
    assert re.fullmatch(r"[0-9a-f]{40}", commit)
    shallow = _run("git", "rev-parse", "--is-shallow-repository").stdout.strip()
    if shallow != "false":
        pytest.skip(f"not a full git clone ({shallow!r}): the commit cannot be read")
    action = _run("git", "show", f"{commit}:action.yml")
    assert action.returncode == 0, f"{commit} is not a commit of this repository"
    pinned = yaml.safe_load(action.stdout)
    assert pinned["inputs"]["version"]["default"] == ""  # installs its own files
    workflow = _run("git", "show", f"{commit}:.github/workflows/conformance.yml")
    assert (
        yaml.safe_load(workflow.stdout)["jobs"]["conformance"]["steps"][-1]["uses"]
        == "$/"
    )
