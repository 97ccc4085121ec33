"""Check that a test run imported every module of the project's packages.

Run: STSPEC_REACHED=FOLDER pytest -n 2; python tests/reached.py FOLDER

With ``STSPEC_REACHED`` set, every test process of the run writes the files of
the modules it imported into FOLDER (tests/conftest.py).  .ci/run does so for
the fast tier (``pytest -n 2``) and runs this: a module that no fast test
process imports (and so runs) fails it, listed by path.  The slow tier then
only adds whole program runs of code the fast tier already reaches.  Importing
runs a module's body, as coverage would count it; recording imports instead of
tracing every line of every package leaves coverage to ``reference/`` alone.
Exit status: 0 when every module was imported, 1 otherwise.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

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


def imported(folder: Path) -> set[Path]:
    """The module files the run's processes recorded in ``folder``."""
    found: set[Path] = set()
    for record in folder.glob("*.txt"):
        found |= {Path(line) for line in record.read_text("utf-8").splitlines() if line}
    return found


def unreached(folder: Path) -> list[Path]:
    """The modules no process of the run recorded in ``folder`` imported."""
    ran = imported(folder)
    return [path for path in modules() if path.resolve() not in ran]


def main() -> int:
    """Print the modules the run did not reach; exit 1 if there is one."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("folder", type=Path, help="the run's STSPEC_REACHED")
    args = parser.parse_args()
    if not any(args.folder.glob("*.txt")):
        parser.error(f"no recorded imports in {args.folder}")
    missing = unreached(args.folder)
    total = len(modules())
    for path in missing:
        sys.stderr.write(f"not reached: {path.relative_to(ROOT)}\n")
    sys.stdout.write(f"{total - len(missing)} of {total} modules imported\n")
    return 1 if missing else 0


if __name__ == "__main__":
    sys.exit(main())
