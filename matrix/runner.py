"""Run the conformance suite against one implementation; write results/NAME.json.

The suite runs in the implementation's own environment (Python wrappers are
imported in-process by ``pytest conformance --impl=WRAPPER.py``) or, for
``cmd:`` programs, from the ``_suite`` environment.  Its ``--report-json``
is turned into one outcome per corpus case (and per other test), in the
outcome classes of the suite (``stspec_conformance._outcomes.OUTCOMES``).
"""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import threading
import time
from typing import TYPE_CHECKING, Any, Final

from matrix import envs, inputs, probe
from matrix.scrub import scrub
from stspec_conformance._outcomes import OUTCOMES

if TYPE_CHECKING:
    from pathlib import Path

    from matrix.impls import Impl

__all__ = [
    "OUTCOMES",
    "called_as",
    "classify",
    "convert",
    "corpus_seed",
    "impl_spec",
    "pass_sigint",
    "run",
    "write_setup_failure",
]

# A whole run that takes longer is interrupted (pytest still writes its report).
RUN_LIMIT_S: Final = 1500
_CASE_TESTS: Final = ("test_must_accept[", "test_must_reject[", "test_tolerated[")
_MUST_REJECT: Final = ("test_must_reject[", "test_single_fault_rejected[")
_CRASH_KIND: Final = re.compile(
    r"(?:crashed|crash)\s*(?:\(([^)]+)\)|:\s*(killed by signal \d+[^;,.]*|"
    r"exit status -?\d+|[A-Za-z_.]*(?:Error|Exception|Panic)\w*))"
)
_WRAPPERS: Final = envs.REPO / "matrix" / "wrappers"
# a corpus seed as the suite makes one (hex) or a user gives one (a word)
_SEED: Final = re.compile(r"[A-Za-z0-9_.-]{1,64}")


def write_setup_failure(impl: Impl, results: Path, reason: str) -> None:
    """results/NAME.json for an implementation that could not be set up.

    Its row stays on the page with the reason and no score.
    """
    results.mkdir(parents=True, exist_ok=True)
    record = {
        "implementation": {
            "name": impl.name,
            "title": impl.title,
            "language": impl.language,
            "note": impl.note,
        },
        "setup_error": reason,
    }
    (results / f"{impl.name}.json").write_text(
        json.dumps(record, indent=1, sort_keys=True) + "\n", encoding="utf-8"
    )


def impl_spec(impl: Impl) -> str:
    """The ``--impl`` value for ``impl`` (absolute paths)."""
    if impl.wrapper.startswith("builtin:"):
        return impl.wrapper.removeprefix("builtin:")
    if impl.kind == "python":
        return str(_WRAPPERS / impl.wrapper)
    if impl.wrapper.endswith(".mjs"):
        return f"cmd:node {_WRAPPERS / impl.wrapper}"
    return f"cmd:{envs.env_dir(impl.name) / 'bin' / impl.wrapper}"


def _python(impl: Impl, python: Path | None = None) -> Path:
    if python is not None:
        return python
    return envs.python_of(impl.name) if impl.kind == "python" else envs.suite_python()


def _env(impl: Impl) -> dict[str, str]:
    env = envs.run_env(impl)
    env["PYTHONPATH"] += os.pathsep + str(_WRAPPERS)
    return env


_DESCRIBE: Final = """
import json, sys
from stspec_conformance.adapters._resolve import resolve
adapter = resolve(sys.argv[1], memory_limit=int(sys.argv[2]) << 20)
caps = getattr(adapter, "capabilities", None)
print(json.dumps({
    "name": adapter.name,
    "version": adapter.version,
    "kind": adapter.kind,
    "capabilities": caps.as_json() if caps is not None else None,
    "describe_error": getattr(adapter, "describe_error", "") or None,
}))
"""


def describe(impl: Impl, python: Path | None = None) -> dict[str, Any]:
    """What the suite makes of the wrapper: name, version, declaration."""
    done = subprocess.run(  # noqa: S603
        [
            str(_python(impl, python)),
            "-c",
            _DESCRIBE,
            impl_spec(impl),
            str(impl.memory_limit_mib),
        ],
        capture_output=True,
        text=True,
        env=_env(impl),
        cwd=envs.REPO,
        timeout=300,
        check=False,
    )
    if done.returncode != 0:
        return {"error": done.stderr.strip().splitlines()[-1:] or ["?"]}
    described: dict[str, Any] = json.loads(done.stdout)
    return described


def _environment(impl: Impl, python: Path | None) -> dict[str, Any]:
    out: dict[str, Any] = {"pins": {"pip": list(impl.pip), "npm": list(impl.npm)}}
    if python is not None:
        out["python"] = "given: " + str(python)
    if impl.kind == "python":
        done = subprocess.run(  # noqa: S603
            [str(_python(impl, python)), "-m", "pip", "list", "--format=freeze"],
            capture_output=True,
            text=True,
            check=False,
        )
        out["installed"] = sorted(
            line for line in done.stdout.splitlines() if "==" in line
        )
    if impl.layer:
        out["layer"] = impl.layer
    if impl.build:
        out["build"] = f"matrix/build/{impl.build}"
    return out


def _suite_commit() -> str:
    done = subprocess.run(
        ["git", "rev-parse", "HEAD"],  # noqa: S607
        capture_output=True,
        text=True,
        cwd=envs.REPO,
        check=False,
    )
    return done.stdout.strip() or "?"


def pass_sigint() -> None:
    """Let the suite's processes take SIGINT, even if this one ignores it.

    A runner started in the background (`... &`) ignores SIGINT, and so would
    pytest, which must take it as KeyboardInterrupt to stop and still write
    its report when the run's time limit interrupts it.  An ignored signal
    stays ignored across exec, a handler does not: with Python's own handler
    here, every child starts with the default.  Set here once (main thread
    only), not between fork and exec, so rows can run in threads (--jobs).
    """
    if (
        threading.current_thread() is threading.main_thread()
        and signal.getsignal(signal.SIGINT) is signal.SIG_IGN
    ):
        signal.signal(signal.SIGINT, signal.default_int_handler)


def _run_suite(
    impl: Impl, report: Path, log: Path, python: Path | None, select: str | None
) -> tuple[int, float]:
    argv = [
        str(_python(impl, python)),
        "-m",
        "pytest",
        "conformance",
        "-p",
        "_matrix_profile",
        "--hypothesis-profile=stspec-matrix",
        f"--impl={impl_spec(impl)}",
        "-q",
        "-p",
        "no:cacheprovider",
        f"--report-json={report}",
        f"--case-timeout={impl.case_timeout_s:g}",
        f"--memory-limit={impl.memory_limit_mib}",
        *impl.suite_args,
        *(["-k", select] if select else []),
    ]
    start = time.monotonic()
    with log.open("w", encoding="utf-8") as out:
        proc = subprocess.Popen(  # noqa: S603
            argv,
            stdout=out,
            stderr=subprocess.STDOUT,
            env=_env(impl),
            cwd=envs.REPO,
            start_new_session=True,
        )
        try:
            code = proc.wait(timeout=RUN_LIMIT_S)
        except subprocess.TimeoutExpired:
            # SIGINT: pytest stops and still writes its report for the tests run.
            os.killpg(proc.pid, signal.SIGINT)
            try:
                code = proc.wait(timeout=120)
            except subprocess.TimeoutExpired:
                os.killpg(proc.pid, signal.SIGKILL)
                code = proc.wait()
    return code, time.monotonic() - start


def _crash_kind(message: str) -> str:
    found = _CRASH_KIND.search(message)
    if not found:
        return ""
    return (found.group(1) or found.group(2) or "").strip()


def classify(test: dict[str, Any]) -> str:
    """The outcome class of one test of a ``--report-json`` report."""
    result = str(test.get("result") or "")
    outcome = str(test.get("outcome") or "")
    message = str(test.get("message") or "")
    if result == "skipped":
        return "not-applicable"
    if outcome == "accepted" and result != "passed":
        # a file that had to be rejected was accepted: that is the failure;
        # any other failed acceptance loaded the wrong content
        name = str(test.get("test") or "")
        refusal = (
            test.get("failure") == "accepted-invalid"  # the suite's own judgement
            or name.startswith(_MUST_REJECT)
            or test.get("verdict") == "invalid"
        )
        if not refusal:
            return "wrong-content"
    if outcome in OUTCOMES:
        return outcome
    lowered = message.lower()
    for word, cls in (
        ("crashed", "crashed"),
        ("hung", "hung"),
        ("invalid-output", "invalid-output"),
        ("resource", "resource"),
        ("rejected", "rejected"),
        ("accepted", "accepted"),
    ):
        if lowered.startswith(word):
            return cls
    if result in {"crashed", "error"}:
        return "crashed"
    return "passed" if result == "passed" else "failed"


def _is_case(test: dict[str, Any]) -> bool:
    return bool(test.get("case")) and str(test.get("test")).startswith(_CASE_TESTS)


# The suite builds a header-only reader's expectation for an i_ file with the
# strict reader, which rejects every i_ file: its own error, not the reader's.
_SUITE_EXPECTATION_ERROR: Final = "stspec.errors.SafetensorsError"


def _entry(test: dict[str, Any]) -> dict[str, Any]:
    outcome = classify(test)
    message = str(test.get("message") or "")
    entry: dict[str, Any] = {"outcome": outcome, "ok": test.get("result") == "passed"}
    if (
        outcome == "wrong-content"
        and test.get("verdict") == "tolerated"
        and message.startswith(_SUITE_EXPECTATION_ERROR)
    ):
        # accepted; the content was not checked (see _SUITE_EXPECTATION_ERROR)
        entry = {"outcome": "accepted", "ok": True, "unchecked": True}
    if outcome in {"crashed", "exception"} and (
        kind := str(test.get("crash") or "") or _crash_kind(message)
    ):
        entry["crash"] = kind
    if outcome == "resource" and test.get("memory"):
        entry["memory"] = str(test["memory"])
    if message and test.get("result") != "passed":
        entry["detail"] = scrub(message)[:300]
    return entry


def corpus_seed(report: dict[str, Any]) -> str | None:
    """The report's corpus seed, if it is one the suite could have made."""
    seed = report.get("corpus_seed")
    if isinstance(seed, str) and _SEED.fullmatch(seed):
        return seed
    return None


def convert(report: dict[str, Any]) -> tuple[dict[str, Any], dict[str, Any]]:
    """(cases, other tests): corpus case id -> entry, test name -> entry."""
    cases: dict[str, Any] = {}
    others: dict[str, Any] = {}
    for test in report.get("tests", []):
        entry = _entry(test)
        if _is_case(test):
            cases[str(test["case"])] = entry
        else:
            others[str(test.get("test") or test.get("nodeid"))] = entry
    return dict(sorted(cases.items())), dict(sorted(others.items()))


def called_as(spec: str) -> str:
    """``spec`` as a checkout would say it: environments under ``.matrix/``.

    Where the environments were (``STSPEC_MATRIX_DIR``) and where the
    checkout was are the machine's, not the row's.
    """
    spec = spec.replace(str(envs.matrix_root()) + "/", ".matrix/")
    return spec.replace(str(envs.REPO) + "/", "")


def _probe(impl: Impl) -> dict[str, Any]:
    """What the implementation loads from each corpus file (matrix.probe).

    Every y_, n_ and i_ file under corpus/files: two readers that accept one
    valid file but load different tensors are a differential too (the
    six recipe cases, large files the suite builds on demand, are left out).
    """
    files = sorted((envs.REPO / "corpus" / "files").glob("*.safetensors"))
    out: dict[str, Any] = {}
    for case, answer in probe.probe(impl, files).items():
        answer.pop("file", None)
        if "error" in answer:
            answer["error"] = str(answer["error"]).replace(str(envs.REPO) + "/", "")
        tensors = answer.get("tensors")
        if isinstance(tensors, dict) and len(tensors) > probe.KEPT_TENSORS:
            answer["tensors"] = dict(sorted(tensors.items())[: probe.KEPT_TENSORS])
            answer["tensors_total"] = len(tensors)
        out[case] = answer
    return out


def reprobe(impl: Impl, results: Path) -> None:
    """Probe again and replace ``probe`` in an existing ``results/NAME.json``."""
    path = results / f"{impl.name}.json"
    data = json.loads(path.read_text(encoding="utf-8"))
    data["probe"] = _probe(impl)
    _write(path, data)


def _say(line: str) -> None:
    # one write per line: rows running in threads (--jobs) do not mix lines
    sys.stderr.write(f"[matrix] {line}\n")
    sys.stderr.flush()


def _write(path: Path, data: dict[str, Any]) -> None:
    path.write_text(
        # ASCII: names and messages may hold lone surrogates (from JSON escapes)
        json.dumps(data, indent=1, sort_keys=True, ensure_ascii=True) + "\n",
        encoding="utf-8",
    )


def run(
    impl: Impl,
    results: Path,
    *,
    python: Path | None = None,
    select: str | None = None,
) -> Path:
    """Run the suite against ``impl``; write and return ``results/NAME.json``.

    ``python``: run in this interpreter's environment instead of the
    implementation's own (CI uses the dev environment); ``select``: a pytest
    ``-k`` expression restricting the tests (the result is then partial).
    """
    _say(f"running {impl.name}")
    pass_sigint()
    ran_from = inputs.inputs(impl)  # before the run: what it ran against
    folder = envs.env_dir(impl.name)
    folder.mkdir(parents=True, exist_ok=True)
    raw = folder / "report.json"
    raw.unlink(missing_ok=True)
    code, seconds = _run_suite(impl, raw, folder / "run.log", python, select)
    try:
        report = json.loads(raw.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        report = {}
    cases, others = convert(report)
    loaded = _probe(impl) if python is None and not select else {}
    data = {
        "implementation": {
            "name": impl.name,
            "title": impl.title,
            "language": impl.language,
            "kind": impl.kind,
            "note": impl.note,
            "called_as": called_as(impl_spec(impl)),
            "described": describe(impl, python),
        },
        "environment": _environment(impl, python),
        "inputs": ran_from,
        "suite": {
            "version": report.get("suite_version"),
            "commit": _suite_commit(),
        },
        "limits": {
            "case_timeout_s": impl.case_timeout_s,
            "memory_limit_mib": impl.memory_limit_mib,
        },
        "run": {
            "exit_status": code,
            "seconds": round(seconds),
            # pytest's exit status 2: interrupted (the run's time limit)
            "complete": bool(report) and not select and code != 2,
            **({"selected": select} if select else {}),
            # the run's corpus variants: STSPEC_CORPUS_SEED=this repeats its bytes
            "corpus_seed": corpus_seed(report),
        },
        "summary": report.get("summary", {}),
        "cases": cases,
        "tests": others,
        "probe": loaded,
    }
    out = results / f"{impl.name}.json"
    _write(out, data)
    _say(f"{impl.name}: {len(cases)} cases, exit {code}, {seconds:.0f} s")
    return out
