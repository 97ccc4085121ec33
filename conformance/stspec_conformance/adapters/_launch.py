"""Starting a program under resource limits without forking the suite.

A ``preexec_fn`` makes :mod:`subprocess` fork: the child copies the page
tables of the suite's process (hundreds of MiB in an xdist worker) and
faults in copy-on-write pages until it execs, about 25 ms of CPU per run,
against about 2 ms when :mod:`subprocess` can use ``vfork``.  A suite run
starts a program about 900 times.  So on Linux the limits are set by
util-linux's ``prlimit``, which applies them to itself and then execs the
program: the same process, so its exit status, its ``rusage`` and its process
group are the program's.  Where ``prlimit`` is missing or refused, a
``preexec_fn`` sets the same limits.  Either way each limit is clamped to
this process's own hard limit, which an unprivileged child cannot raise.
"""

from __future__ import annotations

import contextlib
import functools
import shutil
import subprocess
import sys
from typing import TYPE_CHECKING, Final, NamedTuple

if TYPE_CHECKING:
    from collections.abc import Callable

__all__ = ["Launch", "Limit", "launch", "limits"]

# RLIMIT_CPU: SIGXCPU at the soft limit, SIGKILL this much later.
CPU_GRACE: Final = 2


class Limit(NamedTuple):
    """One resource limit: prlimit's option name, the resource, soft and hard."""

    option: str
    resource: int
    soft: int
    hard: int


class Launch(NamedTuple):
    """The argv to start and the ``preexec_fn`` to start it with (or None)."""

    argv: list[str]
    preexec: Callable[[], None] | None


def limits(cpu_seconds: int | None, data_bytes: int | None) -> list[Limit]:
    """The limits of a run: CPU time, data size, no core file."""
    import resource  # noqa: PLC0415 - POSIX only

    wanted: list[Limit] = []
    if cpu_seconds is not None:
        wanted.append(
            Limit("cpu", resource.RLIMIT_CPU, cpu_seconds, cpu_seconds + CPU_GRACE)
        )
    if data_bytes is not None:
        wanted.append(Limit("data", resource.RLIMIT_DATA, data_bytes, data_bytes))
    wanted.append(Limit("core", resource.RLIMIT_CORE, 0, 0))
    clamped = []
    for limit in wanted:
        _, ceiling = resource.getrlimit(limit.resource)
        if ceiling == resource.RLIM_INFINITY:
            clamped.append(limit)
        else:
            soft, hard = min(limit.soft, ceiling), min(limit.hard, ceiling)
            clamped.append(limit._replace(soft=soft, hard=hard))
    return clamped


@functools.cache
def prlimit() -> str | None:
    """The ``prlimit`` program, when it runs here and may set limits."""
    if not sys.platform.startswith("linux"):  # pragma: no cover - Linux CI
        return None
    found = shutil.which("prlimit")
    if found is None:  # pragma: no cover - util-linux is on every CI image
        return None
    try:
        probe = subprocess.run(  # noqa: S603 - a program found on PATH, no shell
            [found, "--core=0:0", "--", found, "--version"],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            timeout=30,
            check=False,
        )
    except (OSError, subprocess.TimeoutExpired):  # pragma: no cover - odd hosts
        return None
    return found if probe.returncode == 0 else None


def launch(
    argv: list[str],
    cpu_seconds: int | None,
    data_bytes: int | None,
    *,
    through: str | None = None,
) -> Launch:
    """How to start ``argv`` under the limits.

    ``through``: the ``prlimit`` program to use (default: :func:`prlimit`);
    an empty string forces the ``preexec_fn``.
    """
    chosen = prlimit() if through is None else through or None
    wanted = limits(cpu_seconds, data_bytes)
    if chosen is not None:
        options = [f"--{limit.option}={limit.soft}:{limit.hard}" for limit in wanted]
        return Launch([chosen, *options, "--", *argv], None)

    def apply() -> None:  # in the child between fork and exec: setrlimit only
        import resource  # noqa: PLC0415 - POSIX only

        for limit in wanted:
            with contextlib.suppress(ValueError, OSError):
                resource.setrlimit(limit.resource, (limit.soft, limit.hard))

    return Launch(list(argv), apply)
