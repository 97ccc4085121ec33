"""What a program leaves running is found below the suite, and killed.

After each run the command adapter kills what the program left: its session's
members and the orphans the suite (a subreaper) adopted.  On Linux they are
found by walking the suite's descendants through ``/proc/PID/task/*/children``
instead of reading every process of the machine; the walk must find exactly
what the whole table would, a setsid daemon among them.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from typing import TYPE_CHECKING

import pytest

from stspec_conformance.adapters import _process

if TYPE_CHECKING:
    from collections.abc import Iterator

pytestmark = pytest.mark.skipif(
    not sys.platform.startswith("linux"), reason="procfs and subreapers: Linux"
)

# a child in the leader's session, and a double-forked setsid daemon
TREE = (
    "import os, subprocess, sys, time\n"
    "subprocess.Popen(['sleep', '60'])\n"
    "if os.fork() == 0:\n"
    "    os.setsid()\n"
    "    if os.fork() == 0:\n"
    "        time.sleep(60)\n"
    "    os._exit(0)\n"
    "print('ready', flush=True)\n"
    "time.sleep(60)\n"
)


def _below_in_table(parent: int) -> set[int]:
    """The descendants of ``parent`` by the whole table's parent links."""
    table = _process._table()
    found = {parent}
    grew = True
    while grew:
        more = {pid for pid, p in table.items() if p.ppid in found} - found
        found |= more
        grew = bool(more)
    return found - {parent}


@pytest.fixture
def tree() -> Iterator[tuple[subprocess.Popen[str], set[int]]]:
    """The leader of the tree, and the suite's children before it started."""
    assert _process.become_subreaper()
    before = _process.children(os.getpid())
    leader = subprocess.Popen(
        [sys.executable, "-c", TREE],
        stdout=subprocess.PIPE,
        text=True,
        start_new_session=True,
    )
    assert leader.stdout is not None
    assert leader.stdout.readline() == "ready\n"
    time.sleep(0.2)  # the daemon's first fork has exited: it is an orphan now
    yield leader, before
    _process.end_leftovers(os.getpid(), keep={*before, leader.pid}, session=leader.pid)
    leader.kill()
    leader.wait()
    leader.stdout.close()


def test_the_walk_finds_what_the_whole_table_finds(
    tree: tuple[subprocess.Popen[str], set[int]],
) -> None:
    leader, _ = tree
    walked = _process._descendants(os.getpid())
    assert walked is not None, "no /proc/PID/task/*/children here"
    assert set(walked) == _below_in_table(os.getpid())
    adopted = {pid for pid, p in walked.items() if p.ppid == os.getpid()}
    assert leader.pid in adopted
    # the daemon: adopted by the suite, in a session of its own
    assert any(walked[pid].session not in {leader.pid, os.getsid(0)} for pid in adopted)
    in_session = {pid for pid, p in walked.items() if p.session == leader.pid}
    assert len(in_session) >= 2  # the leader and its sleep


def test_a_session_and_its_adopted_daemon_are_killed(
    tree: tuple[subprocess.Popen[str], set[int]],
) -> None:
    leader, before = tree
    keep = {*before, leader.pid}
    left = _below_in_table(os.getpid()) - {leader.pid}
    left = {pid for pid in left if pid not in before and _alive(pid)}
    assert len(left) >= 2  # the sleep and the daemon
    killed = _process.end_leftovers(os.getpid(), keep=keep, session=leader.pid)
    named = {int(entry.split(" ", 1)[0]) for entry in killed}
    assert left <= named, (left, killed)
    assert _all_end(left), left


def _alive(pid: int) -> bool:
    """Whether ``pid`` runs (a zombie, or a reaped pid, does not)."""
    proc = _process._stat(pid)
    return proc is not None and proc.state != "Z"


def _all_end(pids: set[int]) -> bool:
    """Whether every one of ``pids`` ends (SIGKILL lands asynchronously)."""
    deadline = time.monotonic() + 30  # a backstop against a hang, not a speed check
    while any(_alive(pid) for pid in pids):
        if time.monotonic() > deadline:
            return False
        time.sleep(0.01)
    return True
