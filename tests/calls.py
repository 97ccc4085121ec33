"""Count the Python-level calls a piece of the reader makes.

A count, not a time: it is the same on a quiet or a loaded machine, so a
change that makes the reader call Python once per member, or adds a fixed
cost to every small file, cannot land unseen.
"""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Callable
    from types import FrameType

    from _typeshed import TraceFunction


def python_calls(call: Callable[[], object]) -> int:
    """How many Python-level function calls ``call()`` makes, itself included.

    It is called once before counting: compiled patterns and caches are not
    the point.
    """
    call()
    calls = 0

    def count(_frame: object, event: str, _arg: object) -> None:
        nonlocal calls
        calls += event == "call"

    previous = sys.getprofile()
    sys.setprofile(count)
    try:
        call()
    finally:
        sys.setprofile(previous)
    return calls


def python_work(call: Callable[[], object]) -> tuple[int, int]:
    """The Python-level calls and bytecode instructions ``call()`` runs.

    Called once before counting, as :func:`python_calls`.  Calls alone miss
    a loop that runs Python per item inside one function; instructions do not.
    """
    call()
    calls = opcodes = 0

    def trace(frame: FrameType, event: str, _arg: object) -> TraceFunction:
        nonlocal calls, opcodes
        calls += event == "call"
        opcodes += event == "opcode"
        frame.f_trace_opcodes = True
        return trace

    # Put back the tracer that was there: coverage's, when CI measures it
    # (with None, coverage stopped for every later test of this process).
    previous = sys.gettrace()
    sys.settrace(trace)
    try:
        call()
    finally:
        sys.settrace(previous)
    return calls, opcodes
