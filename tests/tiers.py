"""The rule that puts a test in the slow tier (applied by tests/conftest.py).

``pytest -n 2`` runs the fast tier: tests that call code in this process.  A test
is slow when it runs a whole program instead: the conformance suite or another
pytest run, a tool that builds an environment (pre-commit, venv, pip), the
documentation build, a browser or a JavaScript runtime.  Those are most of the
CPU time of ``tests/`` and run with ``pytest -n 2 -m slow`` (CI runs both tiers).

The rule reads the code a test reaches: its own function, the fixtures it uses,
and the functions from ``tests/`` that these name, transitively.  The test is
slow when that code

* names a helper in ``SLOW_HELPERS`` (``run_suite`` starts the suite in a
  subprocess), or
* uses :mod:`subprocess` and names a program of ``SLOW_PROGRAMS`` (a string such
  as ``"pytest"`` in ``[sys.executable, "-m", "pytest", ...]``, or a path ending
  in ``pre-commit``), directly or through a module-level constant.

A test that is slow for another reason (a pass over the whole corpus in process)
carries ``@pytest.mark.slow`` itself, or its module sets ``pytestmark``.
"""

from __future__ import annotations

import functools
import inspect
from pathlib import Path, PurePath
from types import CodeType, FunctionType
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Callable, Iterable, Iterator

    import pytest

__all__ = ["SLOW_HELPERS", "SLOW_PROGRAMS", "functions_of", "why_slow"]

TESTS = Path(__file__).resolve().parent

# helpers of tests/ that start a whole program run, and what they start
SLOW_HELPERS = {
    "run_suite": "the conformance suite in a subprocess (_suite_runner)",
    "chromium": "a headless browser (external_tools)",
}
# programs and `python -m` modules that make a subprocess a whole program run
SLOW_PROGRAMS = {
    "pytest": "a pytest run",
    "stspec_conformance.action": "the GitHub Action's script (a suite run)",
    "pre-commit": "pre-commit, which builds the hook's environment",
    "venv": "a fresh virtual environment",
    "pip": "pip installing packages",
    "build_site.py": "the Sphinx documentation build",
    "sphinx-build": "the Sphinx documentation build",
    "node": "the Node.js runtime",
    "javac": "the Java compiler",
}
_SUBPROCESS = frozenset({"subprocess", "Popen", "check_output", "check_call"})


def _codes(code: CodeType) -> Iterator[CodeType]:
    """``code`` and the code of the functions, lambdas and comprehensions in it."""
    yield code
    for const in code.co_consts:
        if isinstance(const, CodeType):
            yield from _codes(const)


def _in_tests(function: FunctionType) -> bool:
    return Path(function.__code__.co_filename).is_relative_to(TESTS)


def _program(value: object) -> str | None:
    """The program a string or path names, if it is one of ``SLOW_PROGRAMS``."""
    if isinstance(value, str) and value in SLOW_PROGRAMS:
        return value
    if isinstance(value, str | PurePath) and "\n" not in str(value):
        name = PurePath(value).name
        if name in SLOW_PROGRAMS:
            return name
    return None


def _function(obj: object) -> FunctionType | None:
    """The plain function behind a test, fixture or helper (unwrapped, unbound)."""
    obj = getattr(obj, "__func__", obj)
    try:
        obj = inspect.unwrap(obj)  # type: ignore[arg-type]
    except ValueError:  # a cycle of __wrapped__: not a function of ours
        return None
    return obj if isinstance(obj, FunctionType) else None


@functools.cache
def _reach(function: FunctionType) -> tuple[frozenset[str], frozenset[str]]:
    """The global names and the slow programs the code ``function`` reaches uses."""
    names: set[str] = set()
    programs: set[str] = set()
    seen: set[FunctionType] = set()
    stack = [function]
    while stack:
        current = stack.pop()
        if current in seen:
            continue
        seen.add(current)
        for code in _codes(current.__code__):
            names.update(code.co_names)
            programs.update(p for c in code.co_consts if (p := _program(c)))
            for name in code.co_names:
                value = current.__globals__.get(name)
                called = _function(value)
                if called is not None and _in_tests(called):
                    stack.append(called)
                elif (program := _program(value)) is not None:
                    programs.add(program)
    return frozenset(names), frozenset(programs)


def why_slow(functions: Iterable[Callable[..., object]]) -> str | None:
    """Why a test made of ``functions`` (its own, its fixtures') is slow, or None."""
    for obj in functions:
        function = _function(obj)
        if function is None or not _in_tests(function):
            continue
        names, programs = _reach(function)
        for helper, what in SLOW_HELPERS.items():
            if helper in names:
                return f"{function.__name__} reaches {helper}: {what}"
        if programs and names & _SUBPROCESS:
            program = min(programs)
            return f"{function.__name__} starts {program}: {SLOW_PROGRAMS[program]}"
    return None


def functions_of(item: pytest.Item) -> list[Callable[..., object]]:
    """The test's function and the functions of every fixture it uses."""
    functions = [getattr(item, "function", None)]
    info = getattr(item, "_fixtureinfo", None)
    if info is not None:
        for name in getattr(item, "fixturenames", ()):
            definitions = info.name2fixturedefs.get(name, ())
            functions += [definition.func for definition in definitions]
    return [function for function in functions if callable(function)]
