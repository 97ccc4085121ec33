#!/usr/bin/env python3
"""Measure the harnesses' power: plant a bug in a copy of the reference, time the find.

    python fuzz/planted.py PLANT --harness reader|differential|roundtrip
        [--seconds 120] [--seeds DIR] [--env NAME=VALUE]... [-- LIBFUZZER FLAGS]

The copy lives in a temporary folder, first on PYTHONPATH, so the checkout is
never touched.  Each plant is one or two replaced lines; if the reference's
code has moved and the line is gone, the command says so instead of measuring
nothing.  The harness fuzzes from an empty working corpus plus the seeds
(default: fuzz/seeds.py output for -max_len=8192) until its first failure or
the time limit, and one JSON line reports: found or not, wall seconds,
executions, whether the seeds alone found it, and the failure's first line.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Final, NamedTuple

__all__ = ["PLANTS", "Plant", "main", "plant"]

ROOT: Final = Path(__file__).resolve().parent.parent


class Plant(NamedTuple):
    """A bug: in ``file`` (under reference/stspec), replace ``old`` by ``new``."""

    what: str
    edits: tuple[tuple[str, str, str], ...]  # (file, old, new)


PLANTS: Final = {
    "dtype_keyerror": Plant(
        "a KeyError escapes for C64 scalars (bit_count, shape [])",
        (("dtypes.py", "    count = BITS[dtype]\n",
          '    count = BITS[dtype] if dtype != "C64" or shape else {}[dtype]\n'),),
    ),
    "trailing_byte": Plant(
        "the layout's fast path accepts one trailing byte after in-order entries",
        (("reader/layout.py", "begins[0] == 0 and ends[-1] == buffer_length)",
          "begins[0] == 0 and ends[-1] in (buffer_length, buffer_length - 1))"),),
    ),
    "escaped_duplicate_field": Plant(
        "KEY-UNIQUE misses a repeated entry field spelt with an escape",
        (("reader/members.py", "        if key in seen:\n",
          '        if key in seen and "\\\\" not in text[key_pos:pos]:\n'),),
    ),
    "recursion_escape": Plant(
        "RecursionError escapes: the depth bound always says shallow, and the "
        "C decoder's RecursionError is no longer caught (two lines)",
        (
            ("reader/values.py",
             "            self._shallow = nests_shallowly(self.raw)\n",
             "            self._shallow = True\n"),
            ("reader/values.py",
             "            except (ValueError, RecursionError, Doubt):\n",
             "            except (ValueError, Doubt):\n"),
        ),
    ),
}  # fmt: skip


def plant(name: str, into: Path) -> Path:
    """Copy the reference into ``into`` with the plant applied; return its root."""
    source = ROOT / "reference" / "stspec"
    target = into / "stspec"
    shutil.copytree(source, target)
    for file, old, new in PLANTS[name].edits:
        path = target / file
        text = path.read_text(encoding="utf-8")
        if text.count(old) != 1:
            raise SystemExit(f"{name}: the line to replace is not (once) in {file}")
        path.write_text(text.replace(old, new), encoding="utf-8")
    return into


def _executions(log: str) -> int | None:
    counts = re.findall(r"^#(\d+)", log, re.MULTILINE)
    done = re.findall(r"stat::number_of_executed_units:\s*(\d+)", log)
    found = [int(n) for n in counts + done]
    return max(found) if found else None


def main(argv: list[str] | None = None) -> int:
    """Command line: one measurement, one JSON line."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("plant", choices=sorted(PLANTS))
    parser.add_argument("--harness", choices=("reader", "differential", "roundtrip"))
    parser.add_argument("--seconds", type=int, default=120)
    parser.add_argument("--seeds", type=Path)
    parser.add_argument("--env", action="append", default=[])
    parser.add_argument("flags", nargs="*")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="stspec-planted-") as tmp:
        work = Path(tmp)
        plant(args.plant, work / "src")
        (work / "corpus").mkdir()
        (work / "artifacts").mkdir()
        env = dict(os.environ)
        env["PYTHONPATH"] = os.pathsep.join(
            [str(work / "src"), env.get("PYTHONPATH", "")]
        ).rstrip(os.pathsep)
        env.update(item.split("=", 1) for item in args.env)
        seeds = args.seeds
        if seeds is None:
            seeds = work / "seeds"
            subprocess.run(  # noqa: S603
                [sys.executable, str(ROOT / "fuzz" / "seeds.py"), str(seeds)],
                check=True,
                capture_output=True,
            )
        script = ROOT / "fuzz" / f"fuzz_{args.harness}.py"
        flags = [f"-max_total_time={args.seconds}", "-timeout=30", "-rss_limit_mb=3072"]
        if args.harness != "roundtrip":
            flags.append(f"-dict={ROOT / 'fuzz' / 'safetensors.dict'}")
        flags += [f"-artifact_prefix={work / 'artifacts'}/", *args.flags]
        inputs = [str(work / "corpus")] + (
            [str(seeds)] if args.harness != "roundtrip" else []
        )
        start = time.monotonic()
        done = subprocess.run(  # noqa: S603
            [sys.executable, str(script), *flags, *inputs],
            capture_output=True,
            text=True,
            env=env,
            cwd=ROOT,
            check=False,
        )
        wall = time.monotonic() - start
        log = done.stdout + done.stderr
        found = any((work / "artifacts").iterdir())
        failure = re.search(r"^(\w+(?:Error|Exception)\b.*)$", log, re.MULTILINE)
        report = {
            "plant": args.plant,
            "harness": args.harness,
            "env": args.env,
            "found": found,
            "seconds": round(wall, 1),
            "executions": _executions(log),
            "by_seeds": found and "INITED" not in log,
            "failure": failure.group(1)[:200] if failure and found else None,
        }
        print(json.dumps(report), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
