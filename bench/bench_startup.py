"""Start-up cost of `stspec check small.safetensors` against `python -c pass`.

Run: python bench/bench_startup.py [--repeat 31]
Both commands run alternately in fresh interpreters; the CPU time (user +
system) of each child is taken from getrusage, which a loaded machine
distorts far less than wall time.  Prints the medians, the ratio check /
pass, and the ratio to what a command that only builds an argparse parser
costs (ARGPARSE below; target: the check at most 1.2 times that).
--instructions also counts instructions with valgrind.

--instructions also prints what each part of a check adds: argparse, the
command's parser, the reader's modules, the auditor's modules and the check
itself, each measured as a command that stops there (STAGES), and the least
a check can cost with this reader and this parser against the goal.

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
import itertools
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

# What the console script does (pip's and setuptools' wrappers alike; the
# script is stspec.audit.cli:run).
CHECK = "import sys; from stspec.audit.cli import run; sys.exit(run())"
# What any command built on argparse pays before it does anything: argparse,
# re (argparse imports it), and gettext with locale (the first parser looks up
# translations).  Shown for reference: a floor the check cannot go below.
ARGPARSE = "import argparse; argparse.ArgumentParser(add_help=False).parse_args([])"
# run() ends with gc.freeze(): the interpreter's last collection leaves out
# what exists then.  Each stage below is a command that stops after one more
# part of a check and ends the same way, so that its count minus the one
# before is what that part costs.
FREEZE = "; import gc; gc.freeze()"
_PARSED = (
    ARGPARSE + "; from stspec.audit.cli import parser; "
    "parser().parse_args(['check', 'small.safetensors'])"
)
# A small header as writers emit it is judged whole (recognise.sound_header):
# these are the reader's modules a check of such a file loads.
_READER = _PARSED + "; import stspec.reader.recognise"
# One such file named alone takes the short way (stspec.audit.small), which
# loads no other auditor module than those it imports.
_AUDITOR = _READER + "; import stspec.audit.small"
STAGES = {
    "argparse alone, last collection skipped": ARGPARSE + FREEZE,
    "+ the command's parser, arguments parsed": _PARSED + FREEZE,
    # The least a check of a small file can cost with this reader: nothing run.
    "+ the reader's modules for a small file": _READER + FREEZE,
    "+ the auditor's modules": _AUDITOR + FREEZE,
}
# The goal: the check at most this many times argparse alone.
GOAL = 1.2


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
    _report_parts(setting, counts)


def _report_parts(setting: str, counts: dict[str, float]) -> None:
    """Print what each part of a check adds, and what the goal leaves for it."""
    floor = counts["argparse alone (see ARGPARSE)"]
    print(f"\nwhere a check's instructions go, {setting} (millions):")
    stages = list(STAGES)
    print(f"  {stages[0]:<44} {counts[stages[0]]:7.1f} M")
    for before, part in itertools.pairwise(stages):
        print(f"  {part:<44} {counts[part] - counts[before]:+7.1f} M")
    rest = counts["stspec check small.safetensors"] - counts[stages[-1]]
    # Each stage compiles a -c script longer than the check's own, and its
    # collections fall at other moments: a part is known to about 1 M.
    shown = f"{rest:+7.1f} M" if rest >= 1 else "  under 1 M (the stages' noise)"
    print(f"  {'+ opening, judging and printing the file':<44} {shown}")
    goal = GOAL * floor
    least = counts["+ the reader's modules for a small file"]
    print(
        f"  goal: the check at most {GOAL:g}x argparse alone, {goal:.1f} M. "
        f"argparse, the parser and the reader's modules leave "
        f"{goal - least:.1f} M for the auditor's modules, which take "
        f"{counts[stages[-1]] - least:.1f} M"
    )


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
                **{name: [python, "-c", code] for name, code in STAGES.items()},
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
