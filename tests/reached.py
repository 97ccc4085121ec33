"""Check that a test run executed code in every module of the project's packages.

Run: python tests/reached.py [DATA]   (DATA: a coverage data file, default .coverage)

.ci/run measures the fast tier (``pytest -n 2``) with coverage of every package
and runs this: a module that no fast test imports and runs fails it, listed by
path.  The slow tier then only adds whole program runs of code the fast tier
already reaches.  Exit status: 0 when every module ran, 1 otherwise.
"""

from __future__ import annotations

import argparse
import importlib
import sys
from pathlib import Path

import coverage

ROOT = Path(__file__).resolve().parents[1]
# The packages, and their folders no test process imports: the suite's own test
# modules and example readers run inside the suite runs of the slow tier; the
# matrix's wrappers and reproducers run in each implementation's environment.
PACKAGES = {
    ROOT / "reference" / "stspec": (),
    ROOT / "corpus" / "stspec_corpus": (),
    ROOT / "conformance" / "stspec_conformance": ("tests", "examples"),
    ROOT / "matrix": ("wrappers", "repro"),
}


def modules() -> list[Path]:
    """Every Python module of the packages, less the folders named above."""
    found = []
    for package, skipped in PACKAGES.items():
        for path in sorted(package.rglob("*.py")):
            parts = path.relative_to(package).parts
            if parts[0] not in skipped and "__pycache__" not in parts:
                found.append(path)
    return found


def imported_at_start() -> set[Path]:
    """The modules pytest imports in every process before coverage starts.

    The suite's pytest11 entry point loads with pytest itself, ahead of
    pytest-cov, so the module-level code of what it imports runs unmeasured.
    """
    before = set(sys.modules)
    importlib.import_module("stspec_conformance._entry")
    files = (
        getattr(sys.modules[name], "__file__", None)
        for name in set(sys.modules) - before
    )
    return {Path(file).resolve() for file in files if file}


def unreached(data_file: Path) -> list[Path]:
    """The modules with no line executed in the run ``data_file`` recorded."""
    data = coverage.CoverageData(basename=str(data_file))
    data.read()
    ran = {Path(name).resolve() for name in data.measured_files() if data.lines(name)}
    ran |= imported_at_start()
    return [path for path in modules() if path.resolve() not in ran]


def main() -> int:
    """Print the modules the run did not reach; exit 1 if there is one."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("data", nargs="?", type=Path, default=Path(".coverage"))
    args = parser.parse_args()
    if not args.data.is_file():
        parser.error(f"no coverage data at {args.data}")
    missing = unreached(args.data)
    total = len(modules())
    for path in missing:
        sys.stderr.write(f"not reached: {path.relative_to(ROOT)}\n")
    sys.stdout.write(f"{total - len(missing)} of {total} modules reached\n")
    return 1 if missing else 0


if __name__ == "__main__":
    sys.exit(main())
