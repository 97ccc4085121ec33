"""Check that each findings report's reproducer still shows what it reports.

``python -m matrix.findings_check [NAME ...]`` runs ``matrix/repro/`` scripts
named in ``matrix/findings.toml`` on the smallest file of every finding, in
the implementation's own environment under ``.matrix/`` (set up with
``python -m matrix setup --only NAME``; missing ones are skipped), and says
whether the library, called directly, still does what the report observed:

* an accepted file prints ``accepted``;
* a crash or an unexpected exception raises the exception type the run
  recorded, matched by name exactly (``KeyError`` is not ``TypeError``;
  a package prefix such as ``java.lang.`` or ``pyo3_runtime.`` is ignored),
  or dies by the same signal; a Rust or Go program's crash is its panic
  (``panicked at``, ``panic:``, ``fatal error:``), quoted as its message;
* a fail-open prints ``fail-open``;
* an allocation from claimed sizes fails under a memory limit;
* a hang is still running when the case's CPU-time limit (plus the
  reproducer's own start-up, measured on a small valid file) runs out.

It checks the other side too: each case ``not_the_library`` records as the
wrapper's doing is given to the library directly, and the record holds only
if the library does what the case asks within the case's CPU-time limit: it
accepts a valid (or tolerated) file, and refuses an invalid one, since
accepting an invalid file is the library's own failure, whatever the
wrapper then did with the answer.  And it runs each ``checks`` entry: a
statement the report makes that no outcome of the run shows (another
failure comes first there, or it is a measurement), shown by a reproducer
on a corpus file; it holds if the reproducer exits 0 (the report's own
reproducer when the library accepts the file, one of its own when what it
measured is what the statement says).  A
compiled reproducer is built against the row's own pins, offline: a Go one
in the row's module (its ``go.mod`` and ``go.sum`` under the environment
folder), a Rust one in a copy of the row's cargo project (its
``Cargo.toml`` and ``Cargo.lock``) whose compiled crates it reuses
(``rust_binary``).  Not part of CI: it needs the implementations installed.
"""

from __future__ import annotations

import json
import os
import re
import resource
import shutil
import signal
import subprocess
import sys
import tempfile
import tomllib
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final

from matrix import envs
from matrix.crash_line import crash_line, native_crash
from matrix.findings import DATA, Finding, findings_of, script_of
from matrix.impls import IMPLS
from matrix.render_data import load_results
from matrix.scrub import scrub
from stspec_corpus import materialise

if TYPE_CHECKING:
    from collections.abc import Callable

__all__ = [
    "can_run",
    "check",
    "main",
    "memory_limit",
    "raised_name",
    "recorded_name",
]

_MEMORY: Final = 1 << 30  # address space for a reproducer of an allocation
# importing torch maps about 3.1 GiB of address space: a reproducer on the
# torch layer gets 5 GiB, room for torch but not for the 4 GiB (2^32) the
# smallest claimed sizes ask for on top of it
_MEMORY_TORCH: Final = 5 << 30
_TIMEOUT_S: Final = 120
# what a reproducer gets when the run named no CPU-time limit for the case
_DEFAULT_CPU_S: Final = 60
# a small valid file: what starting the reproducer costs, without the finding
_BASELINE_CASE: Final = "y_example_readme_metadata"
# an exception type's name: Python's, Java's (dotted) and JavaScript's
_NAME: Final = r"(?:[A-Za-z_][\w.$]*)?(?:Error|Exception|error)"
_JAVA_UNCAUGHT: Final = re.compile(rf'Exception in thread "[^"]*" ({_NAME})')
_LINE_START: Final = re.compile(rf"^({_NAME})(?::|$)", re.MULTILINE)
# where the suite's detail names what was raised: in parentheses after the
# outcome, after "it said:" or "stderr:", or in a JVM's uncaught line
_IN_DETAIL: Final = re.compile(
    rf"(?:\(|it said: |stderr: |Exception in thread \"main\" )({_NAME})\b"
)
_LIMIT: Final = re.compile(r"more than (?:its )?([\d.]+) s of CPU time")
# reproducers this check knows how to run; any other would be run as Python
# and fail for reasons that say nothing about the library
_RUNNERS: Final = frozenset({".py", ".mjs", ".java", ".go", ".rs"})
# compiled to a native program: it crashes by a panic, not an exception
_NATIVE: Final = frozenset({".go", ".rs"})


def can_run(script: str) -> bool:
    """Whether this check can run a reproducer of this name."""
    return Path(script).suffix in _RUNNERS


def memory_limit(name: str) -> int:
    """The address space a reproducer of an allocation runs in."""
    known = {impl.name: impl for impl in IMPLS}
    impl = known.get(name)
    return _MEMORY_TORCH if impl is not None and impl.layer == "torch" else _MEMORY


def _short(name: str) -> str:
    """``java.lang.KeyError`` -> ``KeyError``: the type without its package."""
    return name.rsplit(".", 1)[-1]


def recorded_name(got: dict[str, Any], probed: dict[str, Any] | None = None) -> str:
    """The exception type the run recorded for a case, or "".

    The suite's record first; where its detail was cut before the name, the
    probe's answer for the same file (``probed``), which starts with it.
    """
    crash = str(got.get("crash", ""))
    if re.fullmatch(_NAME, crash):
        return _short(crash)
    found = _IN_DETAIL.search(str(got.get("detail", "")))
    if found:
        return _short(found.group(1))
    said = re.match(rf"(?:[^:]*: )?({_NAME})\b", str((probed or {}).get("error", "")))
    return _short(said.group(1)) if said else ""


def raised_name(stderr: str) -> str:
    """The exception type a reproducer died of, read from its stderr, or ""."""
    java = _JAVA_UNCAUGHT.search(stderr)
    if java:
        return _short(java.group(1))
    # a Python traceback ends with it; Node prints it above the stack
    names = _LINE_START.findall(stderr)
    if not names:
        return ""
    python = "Traceback (most recent call last)" in stderr
    return _short(names[-1] if python else names[0])


def go_binary(name: str, script: Path, tmp: str) -> Path:
    """The Go reproducer built in the row's module, as its wrapper was.

    The row's ``go.mod`` and ``go.sum`` (``matrix/build/go_module.sh`` copied
    them beside the wrapper) pin every module, and ``-mod=readonly`` with no
    proxy builds from exactly those, already in the module cache.  The go.mod
    replaces ``matrix/wire`` with ``../_gowire``, so the build folder keeps
    the set-up's layout: ``src/`` beside ``_gowire/``.  Built once per run; a
    failed build raises ``CalledProcessError``.
    """
    work = Path(tmp) / f"go-{name}-{script.stem}" / "src"
    binary = work / "repro"
    if binary.exists():
        return binary
    work.mkdir(parents=True, exist_ok=True)
    built = envs.env_dir(name)
    if (built / "_gowire").is_dir():
        shutil.copytree(built / "_gowire", work.parent / "_gowire", dirs_exist_ok=True)
    for pinned in ("go.mod", "go.sum"):
        shutil.copyfile(built / "src" / pinned, work / pinned)
    shutil.copyfile(script, work / "main.go")
    env = {**os.environ, "GOFLAGS": "-mod=readonly", "GOPROXY": "off"}
    subprocess.run(  # noqa: S603 - our own script, the go toolchain
        ["go", "build", "-trimpath", "-o", str(binary), "."],  # noqa: S607
        cwd=work,
        env=env,
        capture_output=True,
        text=True,
        check=True,
    )
    return binary


def rust_binary(name: str, script: Path, tmp: str) -> Path:
    """The Rust reproducer built against the row's pinned crate, as its wrapper was.

    The row's build script (``matrix/build/rust_*.sh``) left its cargo
    project under the environment folder, ``cli/``: its ``Cargo.toml`` names
    the crate at exactly the row's version and its ``Cargo.lock`` every crate
    of the build.  The reproducer is one more binary of a copy of that
    project, named after it and built alone, ``--locked --offline``: exactly
    those crates, from cargo's cache.  The target folder is the one the
    row's program was built in (``CARGO_TARGET_DIR`` when the caller sets it,
    as the build scripts take it; else the environment's ``target/``), where
    they are already compiled, so only the reproducer is; the row's own
    program is neither rebuilt nor replaced.  Built once per run; a failed
    build raises ``CalledProcessError``.
    """
    work = Path(tmp) / f"rust-{name}-{script.stem}"
    binary = work / script.stem
    if binary.exists():
        return binary
    work.mkdir(parents=True, exist_ok=True)
    project = envs.env_dir(name) / "cli"
    shutil.copyfile(project / "Cargo.lock", work / "Cargo.lock")
    shutil.copyfile(script, work / "repro.rs")
    manifest = (project / "Cargo.toml").read_text("utf-8")
    own = f'\n[[bin]]\nname = "{script.stem}"\npath = "repro.rs"\n'
    (work / "Cargo.toml").write_text(manifest + own, "utf-8")
    target = os.environ.get("CARGO_TARGET_DIR") or str(envs.env_dir(name) / "target")
    subprocess.run(  # noqa: S603 - our own script, rustup's cargo
        ["cargo", "build", "--release", "--quiet", "--locked", "--offline",  # noqa: S607
         "--bin", script.stem],
        cwd=work,
        env={**os.environ, "CARGO_TARGET_DIR": target},
        capture_output=True,
        text=True,
        check=True,
    )  # fmt: skip
    shutil.copy2(Path(target) / "release" / script.stem, binary)
    return binary


def _command(
    name: str, script: Path, file: Path, tmp: str = ""
) -> tuple[list[str], dict[str, str]]:
    env = dict(os.environ)
    builders = {".go": go_binary, ".rs": rust_binary}
    if script.suffix in builders:
        built = builders[script.suffix](name, script, tmp or tempfile.gettempdir())
        return [str(built), str(file)], env
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


def _build_error(stderr: str) -> str:
    """What a failed build said: its first error, else its last line.

    Cargo's last line only counts the errors; go build's is the error.
    """
    lines = [line for line in stderr.strip().splitlines() if line.strip()]
    errors = [line for line in lines if line.startswith("error")]
    return (errors or lines or ["?"])[0 if errors else -1]


def _limiter(memory: int | None, cpu: float | None) -> Callable[[], None]:
    def limit() -> None:
        if memory is not None:
            resource.setrlimit(resource.RLIMIT_AS, (memory, memory))
        if cpu is not None:
            soft = max(1, round(cpu))
            resource.setrlimit(resource.RLIMIT_CPU, (soft, soft + 5))

    return limit


def _cpu_limit(got: dict[str, Any]) -> float:
    found = _LIMIT.search(str(got.get("detail", "")))
    return float(found.group(1)) if found else float(_DEFAULT_CPU_S)


def _crashed(
    got: dict[str, Any],
    run: subprocess.CompletedProcess[str],
    probed: dict[str, Any] | None,
    *,
    native: bool,
) -> tuple[bool, str]:
    """Whether the run died as the recorded crash or exception did."""
    panic = native_crash(run.stderr) if native else ""
    if run.returncode < 0:  # a signal (a Rust abort too): the record names it
        died = signal.Signals(-run.returncode).name
        said = f"killed by {died}" + (f" after {panic}" if panic else "")
        return died in str(got.get("crash", "")), said
    if panic:  # a Rust or Go panic, or Go's runtime error: it says which
        # a panic that unwound to an exit status is not a recorded signal
        signalled = "SIG" in str(got.get("crash", ""))
        return run.returncode != 0 and not signalled, panic
    if native:  # no panic, no signal: what the program printed last says why
        out = run.stdout.strip().splitlines()
        return False, (out or [crash_line(run.stderr)])[-1]
    wanted, raised = recorded_name(got, probed), raised_name(run.stderr)
    said = f"raised {raised or 'nothing named'} (recorded: {wanted or '?'})"
    return run.returncode != 0 and bool(wanted) and raised == wanted, said


def _verdict(
    finding: Finding,
    got: dict[str, Any],
    run: subprocess.CompletedProcess[str],
    probed: dict[str, Any] | None = None,
    *,
    native: bool = False,
) -> tuple[bool, str]:
    """Whether the reproducer's run shows the finding, and what it said.

    ``native``: a Go or Rust program, whose crash is a ``panic:``, ``fatal
    error:`` or ``panicked at`` line rather than an exception's name.
    """
    out = run.stdout.strip().splitlines()
    last_err = crash_line(run.stderr)
    last = (out or [last_err])[-1]
    kind = finding.kind.key
    if kind in {"crash", "exception"}:
        return _crashed(got, run, probed, native=native)
    if kind == "resource":
        failed = run.returncode != 0 and re.search(
            r"alloc|Memory|out of memory", run.stderr
        )
        # Go's runtime error, not the goroutine dump's last line
        return bool(failed), last_err
    if kind == "hang":
        stopped = run.returncode in {-signal.SIGXCPU, -signal.SIGKILL}
        return stopped, "stopped at the CPU-time limit" if stopped else last
    if kind == "fail-open":
        return bool(out) and out[-1].startswith("fail-open"), last
    return bool(out) and out[-1] == "accepted", last


def _library_right(
    run: subprocess.CompletedProcess[str], *, invalid: bool
) -> tuple[bool, str]:
    """Whether the library, called directly, did what the case asks.

    A valid file must be accepted; an invalid one refused: the reproducer
    ends without printing ``accepted``, by an error of the library's (a
    signal or a Rust or Go panic is a crash, not a refusal).
    """
    out = run.stdout.strip().splitlines()
    said = (out or [crash_line(run.stderr)])[-1]
    accepted = bool(out) and out[-1] == "accepted"
    if invalid:
        crashed = run.returncode < 0 or bool(native_crash(run.stderr))
        return not accepted and run.returncode > 0 and not crashed, said
    return accepted, said


def _run(
    command: list[str],
    env: dict[str, str],
    limit: Callable[[], None],
    cpu: float | None = None,
) -> subprocess.CompletedProcess[str] | str:
    """The reproducer's run, or why there is none (said, not raised).

    With a CPU-time limit the wall-clock backstop is generous, so a loaded
    machine slows the run without deciding it.
    """
    timeout = _TIMEOUT_S if cpu is None else max(_TIMEOUT_S, 15 * cpu)
    try:
        return subprocess.run(  # noqa: S603 - our own scripts
            command,
            capture_output=True,
            text=True,
            env=env,
            timeout=timeout,
            check=False,
            preexec_fn=limit,
        )
    except subprocess.TimeoutExpired:
        return f"no answer within {timeout:g} s"


def _children_cpu() -> float:
    used = resource.getrusage(resource.RUSAGE_CHILDREN)
    return used.ru_utime + used.ru_stime


def _startup(name: str, script: Path, tmp: str) -> float:
    """CPU seconds the reproducer takes on a small valid file."""
    file = materialise(_BASELINE_CASE, tmp)
    command, env = _command(name, script, file, tmp)
    before = _children_cpu()
    _run(command, env, _limiter(None, None))
    file.unlink()
    return _children_cpu() - before


class _Checker:
    """The reproducer runs of one implementation, printed as they finish."""

    def __init__(self, name: str, hand: dict[str, Any], tmp: str) -> None:
        self.name, self.hand, self.tmp = name, hand, tmp
        self.failures = 0
        self._startups: dict[str, float] = {}

    def _script(self, kind: str) -> Path:
        return envs.REPO / "matrix" / "repro" / str(script_of(self.hand, kind))

    def _startup(self, script: Path) -> float:
        key = str(script)
        if key not in self._startups:
            self._startups[key] = _startup(self.name, script, self.tmp)
        return self._startups[key]

    def _say(
        self, ok: bool, what: str, case: str, marks: tuple[str, str], said: str
    ) -> None:
        self.failures += not ok
        mark = marks[0] if ok else marks[1]
        print(f"{self.name} {what} {case}: {mark}: {scrub(said)[:160]}")

    def finding(
        self, finding: Finding, got: dict[str, Any], probed: dict[str, Any]
    ) -> None:
        kind = finding.kind.key
        script = self._script(kind)
        case = finding.cases[0]
        # a reproducer of its own sets the allowance it measures against
        own = kind in self.hand.get("scripts", {})
        memory = memory_limit(self.name) if kind == "resource" and not own else None
        cpu = _cpu_limit(got) + self._startup(script) if kind == "hang" else None
        file = materialise(case["id"], self.tmp)
        command, env = _command(self.name, script, file, self.tmp)
        run = _run(command, env, _limiter(memory, cpu), cpu)
        file.unlink()
        if isinstance(run, str):
            ok, said = False, run
        else:
            native = script.suffix in _NATIVE
            ok, said = _verdict(finding, got, run, probed, native=native)
        self._say(ok, kind, case["id"], ("reproduces", "DOES NOT REPRODUCE"), said)

    def not_the_library(
        self, case_id: str, got: dict[str, Any], *, invalid: bool = False
    ) -> None:
        script = self._script("")
        cpu = _cpu_limit(got) + self._startup(script)
        file = materialise(case_id, self.tmp)
        command, env = _command(self.name, script, file, self.tmp)
        run = _run(command, env, _limiter(None, cpu), cpu)
        file.unlink()
        if isinstance(run, str):
            ok, said = False, run
        else:
            ok, said = _library_right(run, invalid=invalid)
        right = "the library rejects it" if invalid else "the library accepts it"
        self._say(ok, "not_the_library", case_id, (right, "NOT CONFIRMED"), said)

    def statement(self, check: dict[str, str]) -> None:
        """One ``checks`` entry: its reproducer on its case, exit status 0."""
        script = envs.REPO / "matrix" / "repro" / (check.get("script") or "")
        if "script" not in check:
            script = self._script("")
        file = materialise(check["case"], self.tmp)
        command, env = _command(self.name, script, file, self.tmp)
        run = _run(command, env, _limiter(None, None))
        file.unlink()
        if isinstance(run, str):
            ok, said = False, run
        else:
            out = run.stdout.strip().splitlines()
            ok, said = run.returncode == 0, (out or [crash_line(run.stderr)])[-1]
        self._say(ok, "check", check["case"], ("holds", "DOES NOT HOLD"), said)


def check(names: list[str]) -> int:
    """Run the reproducers; the number of findings or records that did not hold."""
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
            if not can_run(str(hand["script"])):
                print(f"{name}: skipped, {hand['script']} is not a reproducer it runs")
                continue
            if not envs.env_dir(name).is_dir():
                print(
                    f"{name}: skipped, not set up "
                    f"(python -m matrix setup --only {name})"
                )
                continue
            checker = _Checker(name, hand, tmp)
            cases = result.get("cases", {})
            excluded = hand.get("not_the_library", {})
            probed = result.get("probe", {})
            try:
                later = hand.get("variant_only", {})
                for finding in findings_of(result, manifest, excluded, later):
                    first = finding.cases[0]["id"]
                    checker.finding(finding, cases[first], probed.get(first) or {})
                for case_id in excluded:
                    if case_id in cases and case_id in manifest:
                        invalid = manifest[case_id]["verdict"] == "invalid"
                        checker.not_the_library(
                            case_id, cases[case_id], invalid=invalid
                        )
                for statement in hand.get("checks", []):
                    checker.statement(statement)
            except subprocess.CalledProcessError as built:  # the compiler said why
                said = _build_error(str(built.stderr))
                print(f"{name}: {hand['script']} does not build: {said[:160]}")
                checker.failures += 1
            failures += checker.failures
    return failures


def main(argv: list[str] | None = None) -> int:
    """Check the named implementations (all by default); the exit status."""
    return 1 if check(sys.argv[1:] if argv is None else argv) else 0


if __name__ == "__main__":
    raise SystemExit(main())
