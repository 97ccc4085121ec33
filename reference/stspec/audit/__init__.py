"""The auditor: everything behind ``stspec check``.

It reads files with the reader (:func:`stspec.read`, :func:`stspec.validate`)
and adds what a person auditing a folder needs: finding the files, checking
them across processes, sharded checkpoints as one model, naming formats that
are not safetensors, summaries, SARIF and the text of the terminal.  Nothing
in the reader or the writer imports it.  Its modules load on demand, so
``import stspec`` does not pay for them.
"""

from __future__ import annotations

# No typing at run time (start-up cost, see stspec/record.py); mypy reads this as True.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Final

__all__ = ["INVALID", "TROUBLE", "VALID"]

# The exit statuses of ``stspec check`` and ``stspec inspect``.
VALID: Final = 0
INVALID: Final = 1  # invalid or tolerated: the strict reference rejects both
TROUBLE: Final = 2  # usage or I/O error
