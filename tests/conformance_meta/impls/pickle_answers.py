"""A reader that rejects every file and answers the suite with pickles.

Its fork server (which imports this module) swaps the sender of the isolated
mode's protocol for one that writes a pickle whose ``__reduce__`` runs code:
unpickled in pytest's process, it would create the file named by
``PICKLE_ANSWERS_MARKER`` and could rewrite the suite.  ``PICKLE_ANSWERS_WHICH``
says which message is replaced: ``ready`` (the server's first answer) or
``outcome`` (every answer about a file).
"""

from __future__ import annotations

import os
import pickle
import struct
from typing import Any

MARKER = os.environ.get("PICKLE_ANSWERS_MARKER", "")
WHICH = os.environ.get("PICKLE_ANSWERS_WHICH", "ready")


class _RunsCode:
    def __reduce__(self) -> tuple[Any, ...]:
        code = f"open({MARKER!r}, 'w').write('ran in pytest')"
        return (eval, (code,))  # noqa: S307 - the attack under test


def _pickled(stream: Any, message: Any) -> None:
    if message.get("kind") == WHICH:
        data = pickle.dumps(_RunsCode())
        stream.write(struct.pack("<Q", len(data)) + data)
        stream.flush()
    else:
        _write(stream, message)


try:  # only in the suite's fork server
    from stspec_conformance.adapters import _fork_server

    _write = _fork_server._write
    _fork_server._write = _pickled
except ImportError:
    pass


def load(path: str) -> None:
    del path
    msg = "this reader rejects every file"
    raise ValueError(msg)
