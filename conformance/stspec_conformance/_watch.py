"""``--in-process`` runs watched: a run the implementation ends is no green run.

In-process, the implementation's code runs in pytest's own process, so an
``os._exit(0)`` in a load ends pytest with exit status 0 and no report at
all, and a CI step running it turns green.  So the process started from the
command line does not run the suite itself: it starts the same command again
as a child (stdin, stdout and stderr shared, so ``--pdb`` works), and the
child writes a file when pytest ends the run itself (``pytest_unconfigure``,
which runs after usage errors too).  A child that exits 0 without writing it
was ended by something else than pytest: the watcher says so and exits with
status 3 (pytest's internal error), never 0.  A non-zero status is passed on
as it is.  The child gets a temporary folder of its own (``TMPDIR``),
which the watcher removes once it has exited: a child ended in the middle
of a load leaves the case's staging folder there, never in the user's
temporary folder.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import subprocess
import sys
import tempfile
from typing import TYPE_CHECKING, Final

if TYPE_CHECKING:
    import pytest

__all__ = ["finished", "watch"]

# Set in the child: where it writes its exit status.
STATUS_VARIABLE: Final = "STSPEC_IN_PROCESS_STATUS"
ENDED: Final = 3


def watch(config: pytest.Config) -> int | None:
    """Run this command as a watched child; None when this run needs no watcher.

    Only a run from the command line is watched (its arguments can be given
    again; ``pytest.main()`` called by other code is left alone); an xdist
    worker is watched by its controller already.
    """
    if (
        not config.getoption("in_process", False)
        or os.environ.get(STATUS_VARIABLE)
        or hasattr(config, "workerinput")
        or config.invocation_params.plugins
        # pytest.main() called by other code: that code's process is not ours
        or tuple(sys.argv[1:]) != tuple(config.invocation_params.args)
    ):
        return None
    handle, status = tempfile.mkstemp(prefix="stspec-status-")
    os.close(handle)
    scratch = tempfile.mkdtemp(prefix="stspec-run-")
    try:
        child = subprocess.Popen(  # noqa: S603 - this same command again
            [sys.executable, "-m", "pytest", *config.invocation_params.args],
            cwd=config.invocation_params.dir,
            env={**os.environ, STATUS_VARIABLE: status, "TMPDIR": scratch},
        )
        while True:
            try:
                code = child.wait()
                break
            except KeyboardInterrupt:  # the child got it too: let it finish
                continue
        with open(status, encoding="ascii") as file:
            ended_by_pytest = file.read().strip() == "finished"
    finally:
        with contextlib.suppress(OSError):
            os.unlink(status)
        shutil.rmtree(scratch, ignore_errors=True)
    if code != 0 or ended_by_pytest:
        return code
    sys.stderr.write(
        "stspec conformance: the run ended with exit status 0 before pytest "
        "finished it (no report): with --in-process the implementation runs in "
        "pytest's process, and something in it ended that process (os._exit, a signal, "
        "a crash in native code). Run without --in-process to see which case "
        "did it.\n"
    )
    return ENDED


def finished() -> None:
    """In a watched child: say that pytest ended the run itself."""
    path = os.environ.get(STATUS_VARIABLE)
    if path:
        with open(path, "w", encoding="ascii") as file:
            file.write("finished\n")
