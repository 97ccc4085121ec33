"""A pytest run forked from the server is the process a fresh start would be.

``_suite_runner.run_suite`` starts every suite run through
``_forked_pytest.run_pytest``: a probe test reads the state a run's process sees
(arguments, import path, environment, standard streams, open descriptors, signal
handlers, limits, the modules loaded) in a fresh ``python -m pytest`` and in a
forked one, and they must agree.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import time
from typing import TYPE_CHECKING

import pytest
from _forked_pytest import run_pytest

if TYPE_CHECKING:
    from pathlib import Path

PROBE = r"""
import json, os, random, resource, signal, stat, sys, sysconfig, tempfile

STDLIB = sysconfig.get_paths()["stdlib"]

def _fd(fd):
    try:
        target = os.readlink(f"/proc/self/fd/{fd}")
    except OSError:
        return None
    return target.split(":")[0] if target.startswith(("pipe:", "socket:")) else target

def _stream(stream):
    return [stream.fileno(), stream.encoding, stream.errors, stream.line_buffering]

def test_probe():
    main = sys.modules["__main__"]
    modules = sorted(
        name for name, module in sys.modules.items()
        if not str(getattr(module, "__file__", None) or STDLIB).startswith(STDLIB)
    )
    umask = os.umask(0)
    os.umask(umask)
    state = {
        "argv": sys.argv,
        "path": sys.path,
        "cwd": os.getcwd(),
        "environ": dict(os.environ),
        "flags": list(sys.flags),
        "warnoptions": sys.warnoptions,
        "streams": [_stream(s) for s in (sys.stdin, sys.stdout, sys.stderr)],
        "kinds": [stat.S_IFMT(os.fstat(fd).st_mode) for fd in (0, 1, 2)],
        "fds": {fd: _fd(fd) for fd in sorted(map(int, os.listdir("/proc/self/fd")))},
        "signals": {
            s.name: repr(signal.getsignal(s))
            for s in signal.Signals if s not in (signal.SIGKILL, signal.SIGSTOP)
        },
        "limits": {
            name: resource.getrlimit(getattr(resource, name))
            for name in dir(resource) if name.startswith("RLIMIT_")
        },
        "umask": umask,
        "main": [main.__file__, main.__spec__.name],
        "tempdir": tempfile.tempdir,
        "group": os.getpgrp(),
        "modules": modules,
        "random": random.random(),
    }
    with open(os.environ["PROBE_OUT"], "w") as out:
        json.dump(state, out)
    print("probed")
"""
# differ between any two processes, fresh or forked: the descriptor the probe
# opened listing /proc/self/fd, and the random draw (compared apart)
OWN = ("random",)


def _probe(tmp_path: Path, name: str, *, forked: bool) -> tuple[dict[str, object], str]:
    project = tmp_path / "project"
    project.mkdir(exist_ok=True)
    (project / "test_probe.py").write_text(PROBE, encoding="utf-8")
    out = tmp_path / f"{name}.json"
    env = {**os.environ, "PROBE_OUT": str(out)}
    args = ["-s", "-q", "-p", "no:cacheprovider", "-p", "no:randomly", "test_probe.py"]
    if forked:
        run = run_pytest(args, cwd=project, env=env, timeout=120)
    else:
        run = subprocess.run(
            [sys.executable, "-m", "pytest", *args], cwd=project, env=env,
            capture_output=True, text=True, timeout=120, check=False,
        )  # fmt: skip
    assert run.returncode == 0, run.stdout + run.stderr
    state = json.loads(out.read_text(encoding="utf-8"))
    # the probe's own descriptor for the /proc/self/fd listing is gone when read
    state["fds"] = {fd: target for fd, target in state["fds"].items() if target}
    state["environ"].pop("PROBE_OUT")
    text = re.sub(r"in [\d.]+s", "in Ns", run.stdout) + run.stderr
    return state, text


def test_a_forked_run_sees_what_a_fresh_one_sees(tmp_path: Path) -> None:
    fresh, fresh_output = _probe(tmp_path, "fresh", forked=False)
    forked, forked_output = _probe(tmp_path, "forked", forked=True)
    again, _ = _probe(tmp_path, "again", forked=True)
    for key in fresh.keys() - set(OWN):
        assert forked[key] == fresh[key], key
    assert forked_output == fresh_output
    assert "1 passed" in fresh_output
    assert len({fresh["random"], forked["random"], again["random"]}) == 3


def test_an_exit_status_and_the_streams_come_back(tmp_path: Path) -> None:
    (tmp_path / "test_fails.py").write_text(
        "import sys\n"
        "def test_fails():\n"
        "    sys.__stderr__.write('to stderr\\r\\n')\n"
        "    assert 1 == 2\n",
        encoding="utf-8",
    )
    args = ["-q", "-s", "-p", "no:cacheprovider", "test_fails.py"]
    run = run_pytest(args, cwd=tmp_path, env=os.environ, timeout=120)
    assert run.returncode == pytest.ExitCode.TESTS_FAILED
    assert "1 failed" in run.stdout
    assert run.stderr == "to stderr\n"  # text mode, as subprocess.run gives it
    assert run.args == [sys.executable, "-m", "pytest", *args]
    usage = run_pytest(["--no-such-option"], cwd=tmp_path, env=os.environ, timeout=120)
    assert usage.returncode == pytest.ExitCode.USAGE_ERROR
    assert "unrecognized arguments: --no-such-option" in usage.stderr


def test_a_run_past_its_timeout_is_killed(tmp_path: Path) -> None:
    (tmp_path / "test_sleeps.py").write_text(
        "import os, time\n"
        "def test_sleeps():\n"
        "    print(os.getpid(), flush=True)\n"
        "    time.sleep(600)\n",
        encoding="utf-8",
    )
    began = time.monotonic()
    with pytest.raises(subprocess.TimeoutExpired) as timeout:
        run_pytest(
            ["-q", "-s", "test_sleeps.py"], cwd=tmp_path, env=os.environ, timeout=3
        )
    assert time.monotonic() - began < 60
    printed = timeout.value.output
    assert isinstance(printed, bytes)
    pid = int(re.findall(rb"^(\d+)$", printed, re.MULTILINE)[0])
    with pytest.raises(ProcessLookupError):
        os.kill(pid, 0)  # killed and reaped by the server
