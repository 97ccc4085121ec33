"""Check that each findings report's reproducer still shows what it reports.

``python -m matrix.findings_check [NAME ...]`` runs ``matrix/repro/`` scripts
named in ``matrix/findings.toml`` on the smallest file of each finding, in
the implementation's own environment under ``.matrix/`` (set up with
``python -m matrix setup --only NAME``; missing ones are skipped), and says
whether the library still does what the report observed: an accepted file
prints ``accepted``, a crash exits with the same exception type, an
allocation from claimed sizes fails under a memory limit.  Hangs are not
rerun.  Not part of CI: it needs the implementations installed.
"""

from __future__ import annotations

import json
import os
import re
import resource
import subprocess
import sys
import tempfile
import tomllib
from typing import TYPE_CHECKING, Any, Final

from matrix import envs
from matrix.findings import DATA, Finding, findings_of, script_of
from matrix.impls import IMPLS
from matrix.render_data import load_results
from stspec_corpus import materialise

if TYPE_CHECKING:
    from collections.abc import Callable
    from pathlib import Path

__all__ = ["check", "main", "memory_limit"]

_MEMORY: Final = 1 << 30  # address space for a reproducer of an allocation
# importing torch maps about 3.1 GiB of address space: a reproducer on the
# torch layer gets 5 GiB, room for torch but not for the 4 GiB (2^32) the
# smallest claimed sizes ask for on top of it
_MEMORY_TORCH: Final = 5 << 30
_TIMEOUT_S: Final = 120


def _command(name: str, script: Path, file: Path) -> tuple[list[str], dict[str, str]]:
    env = dict(os.environ)
    if script.suffix == ".mjs":
        env["STSPEC_MATRIX_ENV"] = str(envs.env_dir(name))
        return ["node", str(script), str(file)], env
    if script.suffix == ".java":  # the jars matrix/build/java_jars.sh copied
        jars = envs.env_dir(name) / "lib" / "*"
        # a JVM reserves its heap, code cache and class space up front: sized
        # to start within the reproducer's address-space limit
        small = ["-Xmx512m", "-XX:ReservedCodeCacheSize=32m",
                 "-XX:CompressedClassSpaceSize=64m", "-XX:+UseSerialGC"]  # fmt: skip
        # a library that needs a newer JDK has its java linked beside it
        linked = envs.env_dir(name) / "bin" / "java"
        java = str(linked) if linked.exists() else "java"
        return [java, *small, "-cp", str(jars), str(script), str(file)], env
    return [str(envs.python_of(name)), str(script), str(file)], env


def memory_limit(name: str) -> int:
    """The address space a reproducer of an allocation runs in."""
    known = {impl.name: impl for impl in IMPLS}
    impl = known.get(name)
    return _MEMORY_TORCH if impl is not None and impl.layer == "torch" else _MEMORY


def _limiter(limit: int) -> Callable[[], None]:
    def limit_memory() -> None:
        resource.setrlimit(resource.RLIMIT_AS, (limit, limit))

    return limit_memory


def _verdict(
    finding: Finding, got: dict[str, Any], run: subprocess.CompletedProcess[str]
) -> tuple[bool, str]:
    out = run.stdout.strip().splitlines()
    last_err = (run.stderr.strip().splitlines() or [""])[-1]
    if finding.kind.key == "crash":
        # "crashed (TypeError): ..."; a program's "(exit status N)" names no type
        crash = re.search(r"\((\w+)\)", str(got.get("detail", "")))
        wanted = crash.group(1) if crash else ""
        return run.returncode != 0 and wanted in run.stderr, last_err
    if finding.kind.key == "resource":
        failed = run.returncode != 0 and re.search(r"alloc|Memory", run.stderr)
        return bool(failed), last_err
    return bool(out) and out[-1] == "accepted", (out or [last_err])[-1]


def check(names: list[str]) -> int:
    """Run the reproducers; the number of findings that did not reproduce."""
    hands: dict[str, Any] = tomllib.loads(DATA.read_text("utf-8"))
    data = json.loads((envs.REPO / "corpus" / "manifest.json").read_text("utf-8"))
    manifest = {case["id"]: case for case in data["cases"]}
    failures = 0
    with tempfile.TemporaryDirectory() as tmp:
        for result in load_results(envs.REPO / "results"):
            name = result["implementation"]["name"]
            hand = hands.get(name, {})
            if (names and name not in names) or "script" not in hand:
                continue
            if not envs.env_dir(name).is_dir():
                print(
                    f"{name}: skipped, not set up "
                    f"(python -m matrix setup --only {name})"
                )
                continue
            for finding in findings_of(
                result, manifest, hand.get("not_the_library", {})
            ):
                if finding.kind.key == "hang":
                    continue
                kind = finding.kind.key
                script = envs.REPO / "matrix" / "repro" / str(script_of(hand, kind))
                # a reproducer of its own sets the allowance it measures against
                limited = kind == "resource" and kind not in hand.get("scripts", {})
                case = finding.cases[0]
                file = materialise(case["id"], tmp)
                command, env = _command(name, script, file)
                try:
                    run = subprocess.run(  # noqa: S603 - our own scripts
                        command,
                        capture_output=True,
                        text=True,
                        env=env,
                        timeout=_TIMEOUT_S,
                        check=False,
                        preexec_fn=_limiter(memory_limit(name)) if limited else None,
                    )
                except subprocess.TimeoutExpired:
                    # said, not raised: the other findings are still checked
                    ok, said = False, f"no answer within {_TIMEOUT_S} s"
                else:
                    ok, said = _verdict(finding, result["cases"][case["id"]], run)
                failures += not ok
                mark = "reproduces" if ok else "DOES NOT REPRODUCE"
                print(f"{name} {finding.kind.key} {case['id']}: {mark}: {said[:160]}")
                file.unlink()
    return failures


def main(argv: list[str] | None = None) -> int:
    """Check the named implementations (all by default); the exit status."""
    return 1 if check(sys.argv[1:] if argv is None else argv) else 0


if __name__ == "__main__":
    raise SystemExit(main())
