"""The slow tier's rule (tests/tiers.py) finds whole program runs and nothing else.

The functions below stand for tests; they are never called.  The rule goes by
names and strings, so the stand-ins name ``run_suite`` and start programs
without importing the real helpers.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from tiers import SLOW_HELPERS, functions_of, why_slow

PRE_COMMIT = Path(sys.executable).parent / "pre-commit"


def run_suite(*args: str) -> str:
    """Stands for ``_suite_runner.run_suite``: the rule goes by the name."""
    return " ".join(args)


def _through_a_helper() -> None:
    run_suite("reference")


def _test_calls_a_helper_that_runs_the_suite() -> None:
    _through_a_helper()


def _test_starts_pytest() -> None:
    subprocess.run([sys.executable, "-m", "pytest", "-q"], check=True)


def _test_starts_a_program_named_by_a_constant() -> None:
    subprocess.run([str(PRE_COMMIT), "try-repo", "."], check=True)


def _test_starts_the_cli() -> None:
    subprocess.run([sys.executable, "-m", "stspec", "check", "x"], check=True)


def _test_names_pytest_without_a_process() -> None:
    assert "pytest" in sys.modules


def _test_uses_a_comprehension() -> None:
    assert [run_suite(part) for part in ("a", "b")]


@pytest.mark.parametrize(
    ("test", "reason"),
    [
        (_test_calls_a_helper_that_runs_the_suite, "reaches run_suite"),
        (_test_starts_pytest, "starts pytest"),
        (_test_starts_a_program_named_by_a_constant, "starts pre-commit"),
        (_test_uses_a_comprehension, "reaches run_suite"),
    ],
)
def test_a_whole_program_run_is_slow(test: object, reason: str) -> None:
    why = why_slow([test])  # type: ignore[list-item]
    assert why is not None
    assert reason in why


@pytest.mark.parametrize(
    "test", [_test_starts_the_cli, _test_names_pytest_without_a_process]
)
def test_calling_code_or_a_small_command_is_fast(test: object) -> None:
    assert why_slow([test]) is None  # type: ignore[list-item]


def test_functions_outside_tests_are_not_read() -> None:
    assert why_slow([subprocess.run, pytest.main]) is None


@pytest.fixture
def scratch(tmp_path: Path) -> Path:
    return tmp_path / "scratch"


def test_the_rule_reads_the_fixtures_a_test_uses(
    request: pytest.FixtureRequest, scratch: Path
) -> None:
    functions = functions_of(request.node)
    names = {getattr(function, "__name__", "") for function in functions}
    assert {"test_the_rule_reads_the_fixtures_a_test_uses", "scratch"} <= names
    assert scratch.name == "scratch"
    assert request.node.get_closest_marker("slow") is None


def test_every_helper_named_exists() -> None:
    here = Path(__file__).resolve()
    sources = "".join(
        path.read_text(encoding="utf-8")
        for path in here.parents[1].rglob("*.py")
        if path != here
    )
    for helper in SLOW_HELPERS:
        assert f"def {helper}(" in sources, helper
