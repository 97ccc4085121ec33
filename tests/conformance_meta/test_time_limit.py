"""An in-process call is limited by CPU time, with a wall-clock backstop.

A loaded machine makes a reader slower, not hung: only CPU the reader spends
counts against ``--case-timeout``; a reader that waits without computing is
stopped by the backstop.
"""

from __future__ import annotations

import signal
import time

import pytest

from stspec_conformance.adapters import Hang, time_limit


def test_a_spinning_call_is_stopped_by_its_cpu_time() -> None:
    spin = pytest.raises(Hang, match=r"used more than 0\.3 s of CPU time")
    with spin, time_limit(0.3, wall=120):
        while True:
            pass


def test_waiting_past_the_cpu_limit_is_not_a_hang() -> None:
    # 0.5 s of wall-clock time, almost no CPU: a wall-clock limit of 0.2 s
    # would have called this hung.
    with time_limit(0.2, wall=30):
        time.sleep(0.5)


def test_a_waiting_call_is_stopped_by_the_backstop() -> None:
    wait = pytest.raises(Hang, match=r"no answer within 0\.5 s of wall-clock time")
    with wait, time_limit(10, wall=0.5):
        time.sleep(30)


def test_the_timers_are_cleared_after_the_call() -> None:
    with time_limit(5, wall=30):
        pass
    assert signal.getitimer(signal.ITIMER_PROF) == (0.0, 0.0)
    assert signal.getitimer(signal.ITIMER_REAL) == (0.0, 0.0)
