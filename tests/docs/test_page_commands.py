"""The tutorials and how-to guides, followed as written by a user of the Quick start.

Every block of a tutorial runs in order in one scratch folder, from the
session's fresh, non-editable install (tests/fresh_install.py): ``sh`` blocks
line by line with bash, ``python`` blocks with the installed interpreter (a
block whose first line is ``# NAME.py: ...`` is also saved as NAME.py, as the
page asks).  A plain block right after a command block is what it prints: each
of its lines must be printed, in that order.  The rule ids a page names in
backticks after a suite run must be among the rules that run reports violated.

Only these changes are made, each listed here: ``stspec-env/`` is the fresh
install's venv (``INSTALLED``: the page's own install commands made it), and a
suite run covers the cases of ``SELECT`` instead of the whole corpus.

A how-to guide starts where a tutorial left the reader (``HOWTO_SETUP``: the
adapter, the model folder); its ``sh`` commands run with the placeholders the
page uses replaced by those files.  The commands of the guides for a checkout
or another tool (``ELSEWHERE``) run in the tests or the CI step named there,
and a test keeps that list complete.
"""

from __future__ import annotations

import re
import subprocess
from pathlib import Path
from typing import TYPE_CHECKING

import pytest
from cli.hub_server import HubServer
from fresh_install import Installed, fresh_install

if TYPE_CHECKING:
    from collections.abc import Callable

DOCS = Path(__file__).resolve().parents[2] / "docs"
BLOCK = re.compile(r"```(\w*)\n(.*?)```\n?", re.DOTALL)
RULE = re.compile(r"`([A-Z]+(?:-[A-Z0-9]+)+)`")
# the Quick start's install, which the fresh install is (from the checkout's files)
INSTALLED = {
    "python3 -m venv stspec-env",
    'stspec-env/bin/pip install "safetensors-spec[conformance]"',
}
# per page, the corpus cases a suite run covers, and the commands expected to fail
SELECT = {
    "first-conformance-run.md": (
        "y_dtype_f32_values or n_structure_duplicate_tensor_identical"
        " or n_layout_bounds_buffer_short"
    ),
    "baselines-in-ci.md": (
        "y_dtype_f32_values or n_structure_duplicate_tensor_identical"
        " or n_layout_bounds_buffer_short"
    ),
    "command-reader.md": (
        "y_prefix_smallest_file or y_arith_zero_first or n_json_number_float_dim"
        " or n_json_surrogate_lone_high_in_name"
        " or n_structure_duplicate_tensor_identical"
    ),
}
# (page, section heading, a part of the command): the runs a page shows failing
FAILS = {
    ("first-conformance-run.md", "## 5. See a failure", "pytest"),
    ("command-reader.md", "## 1. Run the example reader", "pytest"),
    ("baselines-in-ci.md", "", "--write-baseline"),  # fails the cases it records
}
TUTORIALS = sorted(
    p.name for p in (DOCS / "tutorials").glob("*.md") if p.stem != "index"
)


@pytest.fixture(scope="session")
def installed(tmp_path_factory: pytest.TempPathFactory) -> Installed:
    return fresh_install(tmp_path_factory)


def _steps(text: str) -> list[tuple[str, str, str, str]]:
    """(section heading, language, body, prose after the block) of each block."""
    steps = []
    for match in BLOCK.finditer(text):
        before = text[: match.start()]
        heading = re.findall(r"^## .+$", before, re.MULTILINE)
        after = text[match.end() :]
        prose = re.split(r"```|^## ", after, maxsplit=1, flags=re.MULTILINE)[0]
        steps.append((heading[-1] if heading else "", match[1], match[2], prose))
    return steps


def _command(line: str, page: str, installed: Installed) -> str:
    line = line.replace("stspec-env/bin/", f"{installed.venv}/bin/")
    if page in SELECT:
        line = line.replace(
            "--pyargs stspec_conformance",
            f"--pyargs stspec_conformance -k '{SELECT[page]}'",
        )
    return line


def _violated(output: str) -> set[str]:
    block = output.split("rules violated", 1)[-1] if "rules violated" in output else ""
    return set(re.findall(r"^  ([A-Z]+(?:-[A-Z0-9]+)+) ", block, re.MULTILINE))


def _shown(printed: str, expected: str) -> None:
    lines = iter(printed.splitlines())
    for want in expected.splitlines():
        assert any(line == want for line in lines), f"not printed: {want!r}\n{printed}"


def _follow(
    page: Path, installed: Installed, folder: Path, *, blocks: frozenset[str]
) -> int:
    """Run the page's blocks of the ``blocks`` languages; the commands run."""
    steps = _steps(page.read_text("utf-8"))
    printed: str | None = None  # what the block before printed, if it ran
    ran = 0
    for heading, language, body, prose in steps:
        if language == "":
            if printed is not None:
                _shown(printed, body)
            continue
        if language not in blocks:
            printed = None
            continue
        if language == "python":
            if match := re.match(r"# (\w+\.py):", body):
                (folder / match[1]).write_text(body, "utf-8")
            done = subprocess.run(
                [installed.bin("python"), "-c", body], cwd=folder,
                env=installed.env, capture_output=True, text=True, timeout=300,
                check=False,
            )  # fmt: skip
            assert done.returncode == 0, done.stderr
            printed = done.stdout
            continue
        printed = ""
        lines = body.replace("\\\n", " ").splitlines()
        for line in filter(str.strip, lines):
            if line in INSTALLED:
                continue
            done = subprocess.run(
                ["bash", "-c", _command(line, page.name, installed)],  # noqa: S607
                cwd=folder, env=installed.env, capture_output=True, text=True,
                timeout=1200, check=False,
            )  # fmt: skip
            ran += 1
            failing = any(
                (page.name, heading) == (name, where) and part in line
                for name, where, part in FAILS
            )
            assert done.returncode == (1 if failing else 0), (
                f"{line}\nexit {done.returncode}\n{done.stdout[-4000:]}{done.stderr}"
            )
            printed += done.stdout
        if "pytest" in body and (named := set(RULE.findall(prose))):
            assert named <= _violated(printed), (heading, named, printed[-3000:])
    return ran


@pytest.mark.parametrize("page", TUTORIALS)
def test_a_tutorial_runs_as_written(
    page: str, installed: Installed, tmp_path: Path
) -> None:
    tutorial = DOCS / "tutorials" / page
    ran = _follow(tutorial, installed, tmp_path, blocks=frozenset({"sh", "python"}))
    assert ran >= 2  # the page ran commands, not only blocks the install covers


def _tutorial_file(page: str, name: str, folder: Path, installed: Installed) -> None:
    """Save (and run) the last block of a tutorial that starts ``# NAME``."""
    text = (DOCS / "tutorials" / page).read_text("utf-8")
    body = [b for _, b in BLOCK.findall(text) if b.startswith(f"# {name}")][-1]
    (folder / name).write_text(body, "utf-8")
    subprocess.run(
        [installed.bin("python"), name], cwd=folder, env=installed.env,
        check=True, capture_output=True, timeout=300,
    )  # fmt: skip


def _model_folders(folder: Path, installed: Installed) -> None:
    """The audit tutorial's folders: ``llama`` (valid) and ``broken``."""
    text = (DOCS / "tutorials" / "audit-a-model-folder.md").read_text("utf-8")
    code = BLOCK.findall(text)[0][1]
    subprocess.run(
        [installed.bin("python"), "-c", code], cwd=folder, env=installed.env,
        check=True, capture_output=True, timeout=300,
    )  # fmt: skip


_HUBS: list[HubServer] = []  # kept serving for the rest of the session


def _model_on_a_hub(folder: Path, installed: Installed) -> None:
    """The audit tutorial's ``llama`` as hf://your-org/your-model on loopback.

    The page's commands read ``hub-url`` for the Hub's address (HF_ENDPOINT).
    """
    _model_folders(folder, installed)
    hub = HubServer({"your-org/your-model": folder / "llama"})
    _HUBS.append(hub)
    (folder / "hub-url").write_text(hub.url, "utf-8")


def _lenient_adapter(folder: Path, installed: Installed) -> None:
    """The first tutorial's step-5 adapter: it has failures to record."""
    _tutorial_file("first-conformance-run.md", "my_adapter.py", folder, installed)


# how-to guide -> what the reader has by then, and the placeholders it names
HOWTO_SETUP: dict[str, tuple[Callable[[Path, Installed], None], dict[str, str]]] = {
    "baselines-in-ci.md": (
        _lenient_adapter,
        {'"$GITHUB_STEP_SUMMARY"': "summary.md"},
    ),
    "audit-a-folder.md": (
        _model_folders,
        {
            "path/to/model": "llama",
            "check model.safetensors.index.json": (
                "check llama/model.safetensors.index.json"
            ),
            "models/": "./",
        },
    ),
    "audit-before-download.md": (
        _model_on_a_hub,
        {
            "stspec check": 'HF_ENDPOINT="$(cat hub-url)" stspec check',
            "https://huggingface.co": "$(cat hub-url)",
        },
    ),
}
# the start of a command -> where it runs instead, and why not here
ELSEWHERE = {
    "mypy --strict check_adapter.py": (
        "mypy is not part of the Quick-start install; "
        "tests/conformance_meta/test_adapter_contract.py runs it on the protocols"
    ),
    'pip install "safetensors-spec[conformance] @ git+': (
        "GitHub is not reachable here; tests/fresh_install.py installs the same files"
    ),
    "python -m stspec_conformance.action": (
        "needs your cmd: program; tests/workflows/test_action.py runs the module"
    ),
    "bash .ci/setup": "a checkout's command: CI runs .ci/run",
    ".venv/bin/pytest -n 2": "a checkout's command: CI runs .ci/run",
    "export PATH=": "a checkout's fuzzing (atheris); tests/fuzz runs the harnesses",
    "python fuzz/seeds.py": "a checkout's fuzzing; tests/fuzz",
    "mkdir -p fuzz/work": "a checkout's fuzzing; tests/fuzz",
    "fuzz/fuzz_": "a checkout's fuzzing; tests/fuzz",
    "pip install pre-commit": "a git repository's hook: tests/cli/test_precommit.py",
    "pre-commit install": "tests/cli/test_precommit.py",
    "git add ": "tests/cli/test_precommit.py",
    "git commit ": "tests/cli/test_precommit.py",
    "nice -n 10 python -m matrix": (
        "a checkout's command that installs third-party implementations; not run "
        "by the tests"
    ),
    "python -m matrix": "a checkout's command (the results matrix); not run here",
    "python -m matrix.rows": (
        "a checkout's command; tests/matrix/test_matrix_rows.py checks the row the "
        "how-to shows with it, and runs list"
    ),
    "python -m matrix.smoke": (
        "installs a third-party row; tests/matrix/test_matrix_smoke.py runs the "
        "command and its gate"
    ),
    "python -m matrix.grid_shards": (
        "tests/matrix/test_matrix_grid_shards.py runs each phase and the merge"
    ),
    "python -m matrix merge": (
        "tests/matrix/test_matrix_shards.py merges two shards of real runs"
    ),
    "git show HEAD~1:results/": "a checkout's history; not run here",
    "node tests/vendoring/harness.mjs": "a checkout's command: CI runs it (.ci/run)",
    "python -m stspec_corpus": (
        "a checkout's command that rewrites corpus/; tests/corpus runs the same "
        "generation and lint in process"
    ),
}
HOWTOS = sorted(p.name for p in (DOCS / "howto").glob("*.md") if p.stem != "index")


def _commands(page: str) -> list[str]:
    text = (DOCS / "howto" / page).read_text("utf-8")
    return [
        line
        for language, body in BLOCK.findall(text)
        if language == "sh"
        for line in body.replace("\\\n", " ").splitlines()
        if line.strip() and not line.lstrip().startswith("#")
    ]


def test_every_howto_command_runs_here_or_where_it_says() -> None:
    used = set()
    for page in HOWTOS:
        for line in _commands(page):
            if page in HOWTO_SETUP:
                continue
            starts = [s for s in ELSEWHERE if line.startswith(s)]
            assert starts, f"{page}: {line!r} runs nowhere (HOWTO_SETUP, ELSEWHERE)"
            used.update(starts)
    assert used == set(ELSEWHERE)  # no entry outlives its command


@pytest.mark.parametrize("page", sorted(HOWTO_SETUP))
def test_a_howto_runs_as_written(
    page: str, installed: Installed, tmp_path: Path
) -> None:
    setup, placeholders = HOWTO_SETUP[page]
    setup(tmp_path, installed)
    text = (DOCS / "howto" / page).read_text("utf-8")
    for placeholder, value in placeholders.items():
        assert placeholder in text, placeholder  # the page still names it
        text = text.replace(placeholder, value)
    copy = tmp_path / page
    copy.write_text(text, "utf-8")
    assert _follow(copy, installed, tmp_path, blocks=frozenset({"sh"})) >= 2
