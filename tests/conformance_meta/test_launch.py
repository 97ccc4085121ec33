"""A command runs under the same limits whether prlimit or a preexec_fn sets them.

On Linux the suite starts each run through util-linux's ``prlimit`` so that
``subprocess`` need not fork the suite's large process; elsewhere a
``preexec_fn`` sets the limits.  Both give the program the same limits, and
with ``prlimit`` the process started is the program itself.
"""

from __future__ import annotations

import json
import resource
import subprocess
import sys

import pytest

from stspec_conformance.adapters._launch import CPU_GRACE, launch, limits, prlimit

MIB = 1024 * 1024
# prints its pid and its CPU, data and core limits
SHOW = (
    "import json, os, resource; print(json.dumps([os.getpid(), *("
    "resource.getrlimit(r) for r in "
    "(resource.RLIMIT_CPU, resource.RLIMIT_DATA, resource.RLIMIT_CORE))]))"
)


def run(through: str) -> list[object]:
    start = launch([sys.executable, "-c", SHOW], 7, 900 * MIB, through=through)
    with subprocess.Popen(
        start.argv,
        stdout=subprocess.PIPE,
        preexec_fn=start.preexec,  # noqa: PLW1509 - setrlimit only
    ) as process:
        out, _ = process.communicate(timeout=120)
    assert process.returncode == 0, out
    pid, *limits_seen = json.loads(out)
    assert pid == process.pid  # the program itself, not a wrapper around it
    return list(limits_seen)


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="Linux only")
def test_on_linux_the_suite_starts_programs_without_forking_itself() -> None:
    found = prlimit()
    assert found is not None, "util-linux's prlimit is missing or refused"
    start = launch(["reader", "FILE"], 5, 64 * MIB)
    assert start.preexec is None  # so subprocess can use vfork
    assert start.argv[0] == found
    assert start.argv[-3:] == ["--", "reader", "FILE"]


@pytest.mark.parametrize("through", ["prlimit", "preexec_fn"])
def test_the_program_gets_the_cpu_data_and_core_limits(through: str) -> None:
    if through == "prlimit" and prlimit() is None:  # pragma: no cover - Linux CI
        pytest.skip("no prlimit here")
    seen = run((prlimit() or "") if through == "prlimit" else "")
    assert seen == [[7, 7 + CPU_GRACE], [900 * MIB, 900 * MIB], [0, 0]]


def test_both_ways_set_the_same_limits() -> None:
    if prlimit() is None:  # pragma: no cover - Linux CI
        pytest.skip("no prlimit here")
    assert run(prlimit() or "") == run("")


def test_a_limit_above_this_process_hard_limit_is_clamped_to_it(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    ceiling = 300 * MIB
    monkeypatch.setattr(resource, "getrlimit", lambda _: (ceiling, ceiling))
    got = {limit.option: (limit.soft, limit.hard) for limit in limits(5, 1 << 40)}
    assert got == {
        "cpu": (5, 5 + CPU_GRACE),
        "data": (ceiling, ceiling),
        "core": (0, 0),
    }


def test_no_limits_asked_still_forbids_core_files() -> None:
    got = [(limit.option, limit.soft, limit.hard) for limit in limits(None, None)]
    assert got == [("core", 0, 0)]
