"""Every command and example in the README runs, and prints what the README shows.

The README's blocks run in order, one ``##`` section at a time, each section in a
fresh scratch folder: ``python`` blocks with this interpreter (a block whose first
line is ``# NAME.py: ...`` is also saved as NAME.py for the commands after it),
``sh`` blocks line by line with bash.  A plain block right after a block is what
that block must print.

Some commands cost minutes or build the environment the test itself runs in; CI
runs those on a fresh clone, and ``DELEGATED`` says where: the test checks that the
script still runs them.  The rest run here, with the few changes ``SUBSTITUTIONS``
lists (the environment the README creates is this one; long runs are shortened).
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
README = ROOT / "README.md"
BLOCK = re.compile(r"```(\w*)\n(.*?)```", re.DOTALL)
BIN = Path(sys.executable).parent

# command as the README writes it -> (script CI runs, what the script must contain)
DELEGATED = {
    "git clone https://github.com/safetensors-spec/safetensors-spec": (
        ".ci/run",  # CI runs .ci/run in a fresh clone of the repository
        ["bash .ci/setup"],
    ),
    'python3 -m venv stspec-env && stspec-env/bin/pip install "./safetensors-spec'
    '[conformance]"': (
        ".ci/wheel",
        ['python3 -m venv "$work/venv"', 'install "$wheel[conformance]"'],
    ),
    "bash .ci/setup && .venv/bin/pytest conformance --impl=reference -n 2": (
        # the tests .ci/run runs (after bash .ci/setup) run the suite on the reference
        "tests/conformance_meta/test_suite_runs.py",
        ['args = ("--check-rules",', 'shared_run("reference", *args'],
    ),
    # two runs over disjoint folders: the reference's under coverage, then the rest
    ".venv/bin/pytest -n 2": (
        ".ci/run",
        ["pytest -n 2 --cov=stspec", 'pytest -n 2 "${covered[@]/#/--ignore=}"'],
    ),
    ".venv/bin/pytest -n 2 -m slow": (".ci/run", ["pytest -n 2 -m slow"]),
    ".venv/bin/python docs/build_site.py docs/_build/html": (
        ".ci/run",
        ["python docs/build_site.py docs/_build/html"],
    ),
}
# a suite run here covers a few cases of each kind; .ci/wheel runs every case
SELECT = "y_dtype_f16_values or n_layout_hole_between_tensors or n_prefix_file_empty"
SUBSTITUTIONS = (
    (r"(?<![\w/.])(stspec-env|\.venv)/bin/", f"{BIN}/"),
    (r"path/to/my_adapter\.py", "./my_adapter.py"),
    (r"-max_total_time=300", "-runs=300"),
    (r"--pyargs stspec_conformance", f"--pyargs stspec_conformance -k '{SELECT}'"),
)
# the folder the auditor's example checks: the tutorial's two-shard model
MODEL_PAGE = ROOT / "docs" / "tutorials" / "audit-a-model-folder.md"


def sections() -> dict[str, list[tuple[str, str]]]:
    """The README's ``##`` sections, each as its list of (language, body) blocks."""
    text = README.read_text(encoding="utf-8")
    parts = re.split(r"^## (.+)$", text, flags=re.MULTILINE)
    return {
        title: BLOCK.findall(body)
        for title, body in zip(parts[1::2], parts[2::2], strict=True)
        if BLOCK.search(body)
    }


def commands(body: str) -> list[str]:
    """The command lines of a shell block, continuations joined."""
    return [line for line in body.replace("\\\n", " ").splitlines() if line.strip()]


def _make_model(folder: Path) -> None:
    """Run the tutorial's first example, which writes the model as ``llama/``."""
    code = BLOCK.findall(MODEL_PAGE.read_text(encoding="utf-8"))[0][1]
    subprocess.run([sys.executable, "-c", code], cwd=folder, check=True, timeout=120)
    (folder / "llama").rename(folder / "model")


def _run(kind: str, body: str, folder: Path) -> str:
    if kind == "python":
        first = body.splitlines()[0]
        if match := re.match(r"# (\w+\.py):", first):
            (folder / match.group(1)).write_text(body, encoding="utf-8")
        done = subprocess.run(
            [sys.executable, "-c", body],
            cwd=folder, capture_output=True, text=True, timeout=120, check=False,
        )  # fmt: skip
        assert done.returncode == 0, done.stderr
        return done.stdout
    printed = []
    for command in commands(body):
        if command in DELEGATED:
            script, lines = DELEGATED[command]
            text = (ROOT / script).read_text(encoding="utf-8")
            missing = [line for line in lines if line not in text]
            assert not missing, f"{script} no longer runs {command!r}: {missing}"
            continue
        for old, new in SUBSTITUTIONS:
            command = re.sub(old, new.replace("\\", "\\\\"), command)  # noqa: PLW2901
        env = {**os.environ, "PATH": f"{BIN}:{os.environ['PATH']}"}
        done = subprocess.run(
            ["bash", "-c", command],  # noqa: S607 - bash from PATH
            cwd=folder, env=env, capture_output=True, text=True, timeout=600,
            check=False,
        )  # fmt: skip
        assert done.returncode == 0, f"{command}\n{done.stdout[-3000:]}{done.stderr}"
        printed.append(done.stdout)
    return "".join(printed)


def _section(title: str, blocks: list[tuple[str, str]]) -> object:
    """A section whose commands run the suite is in the slow tier (tests/tiers.py)."""
    runs = any(
        "pytest" in command and command not in DELEGATED
        for kind, body in blocks
        if kind == "sh"
        for command in commands(body)
    )
    return pytest.param(title, marks=pytest.mark.slow if runs else ())


def test_the_readme_is_a_landing_page() -> None:
    assert len(README.read_bytes()) <= 15_000
    runnable = [kind for blocks in sections().values() for kind, _ in blocks]
    assert runnable.count("python") >= 1
    assert runnable.count("sh") >= 4


@pytest.mark.parametrize(
    "title", [_section(title, blocks) for title, blocks in sections().items()]
)
def test_readme_section_runs_as_shown(title: str, tmp_path: Path) -> None:
    if shutil.which("bash") is None:
        pytest.skip("needs bash")
    _make_model(tmp_path)
    (tmp_path / "fuzz").symlink_to(ROOT / "fuzz")
    blocks = sections()[title]
    for index, (kind, body) in enumerate(blocks):
        if kind == "":
            continue  # an output, compared below
        printed = _run(kind, body, tmp_path)
        following = blocks[index + 1] if index + 1 < len(blocks) else None
        if following is not None and following[0] == "":
            assert printed == following[1], body


def docs_examples() -> list[tuple[str, str, str | None]]:
    """Each ``python`` block of the documentation pages, with its output block.

    A block that starts with a ``# NAME.py`` line alone is a file the reader saves
    beside their own code (it imports their modules): it is only compiled.
    """
    examples = []
    for page in sorted((ROOT / "docs").rglob("*.md")):
        if "_build" in page.parts:
            continue
        blocks = BLOCK.findall(page.read_text(encoding="utf-8"))
        for index, (language, body) in enumerate(blocks):
            if language != "python":
                continue
            following = blocks[index + 1] if index + 1 < len(blocks) else None
            expected = following[1] if following and following[0] == "" else None
            name = f"{page.relative_to(ROOT / 'docs').as_posix()}-{index}"
            examples.append((name, body, expected))
    return examples


@pytest.mark.parametrize(
    ("code", "expected"),
    [pytest.param(code, expected, id=name) for name, code, expected in docs_examples()],
)
def test_docs_example_runs_as_shown(
    code: str, expected: str | None, tmp_path: Path
) -> None:
    if re.match(r"# \w+\.py\n", code):  # a file for the reader to save beside theirs
        compile(code, "<example>", "exec")
        return
    result = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    if expected is not None:
        assert result.stdout == expected
