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
