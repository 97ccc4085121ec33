"""Run the suite against many implementations, N at a time (``--jobs N``).

One row is one pytest process that runs its cases one after another, so it
keeps about one core busy; N rows at a time keep N cores busy.  With N > 1
the rows start longest first, by the ``run.seconds`` each one's last
``results/NAME.json`` recorded (rows without a recorded run first, since
they may be the longest): the short rows then fill the gaps the long ones
leave, and the whole run ends soon after its longest row.  With N = 1 the
rows run in the order given, as before.

Each row still writes its own ``results/NAME.json`` and its own
``.matrix/NAME/run.log``; the console gets one line when a row starts and one
when it ends.  A row that raises is reported and the others go on.
"""

from __future__ import annotations

import json
import sys
import threading
from concurrent.futures import ThreadPoolExecutor
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Callable, Sequence
    from pathlib import Path

    from matrix.impls import Impl

__all__ = ["last_seconds", "longest_first", "run_rows"]


def last_seconds(impl: Impl, results: Path) -> float | None:
    """How long the last recorded run of ``impl`` took (None: none recorded)."""
    try:
        recorded = json.loads((results / f"{impl.name}.json").read_text("utf-8"))
        seconds = recorded["run"]["seconds"]
    except (OSError, ValueError, KeyError, TypeError):
        return None
    if isinstance(seconds, bool) or not isinstance(seconds, int | float):
        return None
    return float(seconds)


def longest_first(impls: Sequence[Impl], results: Path) -> list[Impl]:
    """``impls`` ordered for a parallel run: unknown first, then longest first."""
    known = {impl.name: last_seconds(impl, results) for impl in impls}

    def key(impl: Impl) -> tuple[bool, float]:
        seconds = known[impl.name]
        return (seconds is not None, -(seconds or 0.0))

    return sorted(impls, key=key)  # stable: ties keep the order given


def run_rows(
    impls: Sequence[Impl],
    results: Path,
    run_row: Callable[[Impl], object],
    jobs: int = 1,
) -> list[str]:
    """``run_row`` on every row, ``jobs`` at a time; the names of those that raised.

    ``results`` is where the last recorded runs are (for the order).
    """
    if jobs < 1:
        msg = f"--jobs must be at least 1, not {jobs}"
        raise ValueError(msg)
    order = list(impls) if jobs == 1 else longest_first(impls, results)
    failed: list[str] = []
    lock = threading.Lock()

    def one(impl: Impl) -> None:
        try:
            run_row(impl)
        except Exception as exc:  # noqa: BLE001 - reported; the other rows go on
            with lock:
                failed.append(impl.name)
            sys.stderr.write(
                f"[matrix] run of {impl.name} failed: {type(exc).__name__}: {exc}\n"
            )
            sys.stderr.flush()

    if jobs == 1:
        for impl in order:
            one(impl)
    else:
        with ThreadPoolExecutor(max_workers=jobs, thread_name_prefix="row") as pool:
            # submitted in order: a free worker takes the next longest row
            list(pool.map(one, order))
    return [impl.name for impl in order if impl.name in failed]
