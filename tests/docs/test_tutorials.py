"""The tutorials, followed as written by a user of the Quick start.

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
"""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest
from fresh_install import Installed, fresh_install

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
    "command-reader.md": (
        "y_prefix_smallest_file or y_arith_zero_first or n_json_number_float_dim"
        " or n_json_surrogate_lone_high_in_name"
        " or n_structure_duplicate_tensor_identical"
    ),
}
FAILS = {
    ("first-conformance-run.md", "## 5. See a failure"),
    ("command-reader.md", "## 1. Run the example reader"),
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


@pytest.mark.parametrize("page", TUTORIALS)
def test_a_tutorial_runs_as_written(
    page: str, installed: Installed, tmp_path: Path
) -> None:
    steps = _steps((DOCS / "tutorials" / page).read_text("utf-8"))
    printed = ""
    ran = 0
    for heading, language, body, prose in steps:
        if language == "":
            _shown(printed, body)
            continue
        if language == "python":
            if match := re.match(r"# (\w+\.py):", body):
                (tmp_path / match[1]).write_text(body, "utf-8")
            done = subprocess.run(
                [installed.bin("python"), "-c", body], cwd=tmp_path,
                env=installed.env, capture_output=True, text=True, timeout=300,
                check=False,
            )  # fmt: skip
            assert done.returncode == 0, done.stderr
            printed = done.stdout
            continue
        assert language == "sh", (heading, language)
        printed = ""
        lines = body.replace("\\\n", " ").splitlines()
        for line in filter(str.strip, lines):
            if line in INSTALLED:
                continue
            done = subprocess.run(
                ["bash", "-c", _command(line, page, installed)],  # noqa: S607
                cwd=tmp_path, env=installed.env, capture_output=True, text=True,
                timeout=1200, check=False,
            )  # fmt: skip
            ran += 1
            failing = (page, heading) in FAILS and "pytest" in line
            assert (done.returncode == 1) is failing or (
                done.returncode == 0 and not failing
            ), f"{line}\nexit {done.returncode}\n{done.stdout[-4000:]}{done.stderr}"
            printed += done.stdout
        if "pytest" in body and (named := set(RULE.findall(prose))):
            assert named <= _violated(printed), (heading, named, printed[-3000:])
    assert ran >= 2  # the page ran commands, not only blocks the install covers
