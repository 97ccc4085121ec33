"""write() killed at every step: the old file or the new one, and no leftovers.

Each run forks a child that writes and sends itself the signal just before
its k-th call into ``os`` (or ``flock``), for every k up to the number of
calls an undisturbed write makes: every step, deterministically, at the cost
of a fork rather than a new interpreter.
"""

from __future__ import annotations

import fcntl
import os
import signal
from typing import TYPE_CHECKING

import pytest

from stspec import Tensor, serialize, write
from stspec.writer import atomic as _atomic
from writer.writes import OLD, names

if TYPE_CHECKING:
    from pathlib import Path

pytestmark = [
    pytest.mark.usefixtures("temporary"),
    pytest.mark.skipif(not hasattr(os, "fork"), reason="forks a writer"),
]
# Three chunks (header and two tensors) in slices of 64 bytes: kills land
# between slices of one tensor too.
TENSORS = {"a": Tensor("U8", (100,), bytes(100)), "b": Tensor("U8", (150,), b"b" * 150)}
NEW = serialize(TENSORS)
WATCHED = (
    "scandir", "lstat", "fstat", "open", "write", "fsync",
    "fchmod", "fchown", "link", "replace", "close", "unlink",
)  # fmt: skip
DONE = 0  # the child's exit status when no signal was sent


def run_child(destination: Path, signum: int, kill_at: int, log: Path) -> int:
    """Fork a writer that signals itself before call ``kill_at``; its wait status."""
    pid = os.fork()
    if pid:
        return os.waitpid(pid, 0)[1]
    status = 3
    try:  # the child: never returns into pytest
        signal.signal(signal.SIGTERM, signal.SIG_DFL)
        signal.signal(signal.SIGINT, signal.default_int_handler)
        calls: list[str] = []
        for name in WATCHED:
            setattr(os, name, counting(calls, name, getattr(os, name), signum, kill_at))
        setattr(fcntl, "flock", counting(calls, "flock", fcntl.flock, signum, kill_at))  # noqa: B010 - mypy: a typed attribute
        setattr(_atomic, "_CHUNK", 64)  # noqa: B010 - mypy: a Final name
        try:
            write(destination, TENSORS)
        finally:
            log.write_text(" ".join(calls))
        status = DONE
    finally:
        os._exit(status)


def counting(
    calls: list[str], name: str, real: object, signum: int, kill_at: int
) -> object:
    def call(*args: object, **kwargs: object) -> object:
        calls.append(name)
        if len(calls) == kill_at:
            os.kill(os.getpid(), signum)
        return real(*args, **kwargs)  # type: ignore[operator]

    return call


@pytest.mark.parametrize(
    "signum", [signal.SIGKILL, signal.SIGTERM], ids=["KILL", "TERM"]
)
def test_killed_at_every_step_leaves_old_or_new_and_nothing_else(
    tmp_path: Path, temporary: str, signum: int
) -> None:
    destination = tmp_path / "model.safetensors"
    log = tmp_path.parent / f"{tmp_path.name}.calls"
    destination.write_bytes(OLD)
    assert run_child(destination, signum, 0, log) == DONE
    steps = log.read_text().split()
    assert destination.read_bytes() == NEW
    # The steps the outcome hinges on, as an undisturbed write takes them.
    renamed = steps.index("replace")  # killed before it: the old file
    synced = steps.index("fsync")  # a held-back SIGTERM wins until this one
    assert steps.count("write") >= 6
    leftovers_seen = 0
    for kill_at in range(1, len(steps) + 1):
        destination.write_bytes(OLD)
        status = run_child(destination, signum, kill_at, log)
        assert os.WIFSIGNALED(status), (kill_at, status)
        assert os.WTERMSIG(status) == signum
        finished = kill_at > (renamed if signum == signal.SIGKILL else synced) + 1
        assert destination.read_bytes() == (NEW if finished else OLD), steps[
            kill_at - 1
        ]
        leftovers = set(names(tmp_path)) - {destination.name}
        if leftovers:
            # Only SIGKILL, which nothing can catch, leaves a name behind:
            # after the unnamed file was linked, or mid-write of a named one.
            assert signum == signal.SIGKILL
            assert all(_atomic._is_temp_name(name) for name in leftovers)
            if temporary == "unnamed":
                assert steps.index("link") < kill_at - 1 <= renamed
            leftovers_seen += 1
            # The next write removes what the dead one left.
            write(destination, {})
            assert names(tmp_path) == [destination.name]
    if signum == signal.SIGKILL:
        first = steps.index("link" if temporary == "unnamed" else "open")
        assert leftovers_seen == renamed - first
