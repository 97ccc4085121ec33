"""Start-up cost of `stspec check small.safetensors` against `python -c pass`.

Run: python bench/bench_startup.py [--repeat 31]
Both commands run alternately in fresh interpreters; the CPU time (user +
system) of each child is taken from getrusage, which a loaded machine
distorts far less than wall time.  Prints the medians, the ratio check /
pass, and the ratio to what a command that only builds an argparse parser
costs (ARGPARSE below; target: the check at most 1.2 times that).
--instructions also counts instructions with valgrind.

Three settings, the package always on PYTHONPATH:
- "venv": this interpreter with its site-packages (in an editable install
  `python -c pass` already pays for the editable finder, which imports
  pathlib and re; the field report measured this way);
- "clean venv": a new virtual environment without packages, as after
  `pip install` of a wheel;
- "bare": `python -S`, nothing preloaded at all: the strictest number.
The package is byte-compiled first, as pip does on install (otherwise every
run would compile the sources, e.g. under PYTHONDONTWRITEBYTECODE).
"""

from __future__ import annotations

import argparse
import compileall
import os
import re
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import venv
from pathlib import Path

import stspec

# What the console script does (pip's and setuptools' wrappers alike).
CHECK = "import sys; from stspec.audit.cli import main; sys.exit(main())"
# The least a check can cost with this reader: argparse and the reader's
# modules, imported; nothing run (see --instructions).
READER = (
    "import argparse; argparse.ArgumentParser(add_help=False).parse_args([]); "
    "import stspec.reader.pipeline, stspec.reader.unmapped"
)
# What any command built on argparse pays before it does anything: argparse,
# re (argparse imports it), and gettext with locale (the first parser looks up
# translations).  Shown for reference: a floor the check cannot go below.
ARGPARSE = "import argparse; argparse.ArgumentParser(add_help=False).parse_args([])"


def _run(command: list[str], env: dict[str, str]) -> tuple[float, float]:
    """Run once; return (CPU seconds of the child, wall seconds)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    subprocess.run(  # noqa: S603 - our own interpreter and arguments
        command, env=env, stdout=subprocess.DEVNULL, check=True
    )
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return cpu, wall


def _measure(
    commands: dict[str, list[str]], env: dict[str, str], repeat: int
) -> dict[str, list[tuple[float, float]]]:
    results: dict[str, list[tuple[float, float]]] = {name: [] for name in commands}
    for _ in range(repeat):
        for name, command in commands.items():  # alternating: the same load
            results[name].append(_run(command, env))
    return results


def _report(setting: str, results: dict[str, list[tuple[float, float]]]) -> float:
    print(f"\n{setting}:")
    medians = {}
    for name, runs in results.items():
        cpu = statistics.median(run[0] for run in runs) * 1000
        wall = statistics.median(run[1] for run in runs) * 1000
        low = min(run[0] for run in runs) * 1000
        medians[name] = cpu
        print(
            f"  {name:<32} CPU median {cpu:5.1f} ms, min {low:5.1f};"
            f" wall {wall:6.1f} ms"
        )
    ratio = medians["stspec check small.safetensors"] / medians["python -c pass"]
    print(f"  ratio check / pass (CPU, medians): {ratio:.2f}x")
    floor = medians["argparse alone (see ARGPARSE)"] / medians["python -c pass"]
    print(f"  ratio argparse alone / pass:       {floor:.2f}x")
    print(
        f"  ratio check / argparse alone:      {ratio / floor:.2f}x   (target <= 1.2x)"
    )
    return ratio / floor


def _instructions(command: list[str], env: dict[str, str]) -> float:
    """User-space instructions of one run (valgrind's cachegrind), in millions.

    A count, not a time: the same on a loaded machine to within a fraction
    of a percent (hash seeds and addresses move it a little).
    """
    valgrind = shutil.which("valgrind")
    if valgrind is None:
        raise SystemExit("--instructions needs valgrind on PATH")
    done = subprocess.run(  # noqa: S603 - valgrind on our own interpreter
        [
            valgrind,
            "--tool=cachegrind",
            "--cache-sim=no",
            "--cachegrind-out-file=/dev/null",
            *command,
        ],
        env=dict(env, PYTHONHASHSEED="0"),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        check=True,
    )
    found = re.search(r"I\s+refs:\s+([\d,]+)", done.stderr)
    if found is None:
        raise SystemExit(f"no instruction count from valgrind:\n{done.stderr}")
    return int(found.group(1).replace(",", "")) / 1e6


def _report_instructions(
    setting: str, commands: dict[str, list[str]], env: dict[str, str]
) -> None:
    print(f"\ninstructions, {setting} (valgrind cachegrind, min of 2, millions):")
    counts = {
        name: min(_instructions(command, env) for _ in range(2))
        for name, command in commands.items()
    }
    floor = counts["argparse alone (see ARGPARSE)"]
    for name, count in counts.items():
        print(f"  {name:<40} {count:7.1f} M  {count / floor:5.2f}x argparse")


def _imported(python: str, env: dict[str, str]) -> list[str]:
    script = (
        "import sys; before = set(sys.modules); import stspec; "
        "print(' '.join(sorted(m for m in set(sys.modules) - before "
        "if not m.startswith('stspec'))))"
    )
    done = subprocess.run(  # noqa: S603 - our own interpreter
        [python, "-S", "-c", script],
        env=env,
        capture_output=True,
        text=True,
        check=True,
    )
    return done.stdout.split()


def main() -> int:
    """Measure both settings and print the ratios."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--repeat", type=int, default=31)
    parser.add_argument(
        "--instructions",
        action="store_true",
        help="also count instructions with valgrind (clean venv and python -S)",
    )
    args = parser.parse_args()
    package = Path(stspec.__file__).parent
    python = sys.executable
    with tempfile.TemporaryDirectory() as tmp:
        # A copy, byte-compiled, so that the source tree gets no __pycache__.
        root = Path(tmp) / "site"
        shutil.copytree(
            package, root / "stspec", ignore=shutil.ignore_patterns("__pycache__")
        )
        compileall.compile_dir(root, quiet=1)
        small = Path(tmp) / "small.safetensors"
        stspec.write(small, {"w": ("F32", [2], bytes(8))}, {"format": "pt"})

        env = dict(os.environ, PYTHONPATH=str(root))
        clean = Path(tmp) / "clean"
        venv.EnvBuilder(with_pip=False).create(clean)
        commands = {
            "python -c pass": [python, "-c", "pass"],
            "stspec check small.safetensors": [
                python,
                "-c",
                CHECK,
                "check",
                str(small),
            ],
            "python -c 'import stspec'": [python, "-c", "import stspec"],
            "argparse alone (see ARGPARSE)": [python, "-c", ARGPARSE],
        }
        settings = {
            "venv": commands,
            "clean venv": {
                name: [str(clean / "bin" / "python"), *command[1:]]
                for name, command in commands.items()
            },
            "bare (python -S)": {
                name: [python, "-S", *command[1:]] for name, command in commands.items()
            },
        }
        # PYTHONPATH comes first on sys.path, so the compiled copy is what runs.
        _measure(commands, env, 2)  # warm the page cache
        ratios = {
            label: _report(label, _measure(setting, env, args.repeat))
            for label, setting in settings.items()
        }
        print(f"\nimport stspec loads: {' '.join(_imported(python, env))}")
        if args.instructions:
            counted = {
                **commands,
                "stspec --version": [python, "-c", CHECK, "--version"],
                "argparse + the reader's modules": [python, "-c", READER],
            }
            for label, prefix in (
                ("clean venv", [str(clean / "bin" / "python")]),
                ("bare (python -S)", [python, "-S"]),
            ):
                _report_instructions(
                    label,
                    {name: [*prefix, *c[1:]] for name, c in counted.items()},
                    env,
                )
    return 0 if ratios["venv"] <= 1.2 else 1


if __name__ == "__main__":
    sys.exit(main())
