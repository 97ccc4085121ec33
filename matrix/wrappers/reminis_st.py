"""reminis 0.34.0: safetensors to and from its SQLite model database.

Read as ``reminis`` imports a model: ``safetensors_to_sqlite(path, db)`` into
a temporary database (its own header parser: N, ``json``, the dtype, each
range read and compared with dtype x shape), then every tensor row and the
``st.*`` metadata rows read back from its documented schema (shapes are
stored reversed, GGUF-style, and reversed back).  Metadata values are stored
with ``str()``; an absent ``__metadata__`` comes back as ``{}``.  Written as
``reminis export`` writes: a database in its own schema (``converter.SCHEMA``,
``db.INSERT_OR_REPLACE_TENSOR``, the same rows the importer writes) turned
into a file by ``sqlite_to_safetensors``.  15 dtypes.  It has no error type
of its own: it refuses with ``ValueError``; a ``TypeError``, ``KeyError`` or
``OverflowError`` from its code is an unexpected exception.
"""

from __future__ import annotations

import json
import sqlite3
import tempfile
from importlib.metadata import version
from pathlib import Path
from typing import Any, Final

from _spec import REFUSALS, Tensors
from reminis.converter import SCHEMA
from reminis.db import INSERT_OR_REPLACE_TENSOR
from reminis.dtypes import (
    DTYPE_SYSTEM_SAFETENSORS,
    SAFETENSORS_DTYPE_IDS,
    SAFETENSORS_DTYPES,
)
from reminis.safetensors_io import safetensors_to_sqlite, sqlite_to_safetensors

NAME: Final = "reminis"
VERSION: Final = version("reminis")
_DTYPES: Final = sorted(SAFETENSORS_DTYPES)
READ_REJECTS: Final = (*REFUSALS, sqlite3.Error)
CAPABILITIES: Final = {
    "read_dtypes": _DTYPES,
    "write_dtypes": _DTYPES,
    "metadata_presence": False,
}


def load(path: str) -> tuple[Tensors, Any]:
    """Import into a temporary database; read the tensors and metadata back."""
    with tempfile.TemporaryDirectory() as folder:
        database = safetensors_to_sqlite(
            path, str(Path(folder) / "model.db"), verbose=False
        )
        with sqlite3.connect(database) as conn:
            rows = conn.execute(
                "SELECT name, shape, dtype, data FROM tensors ORDER BY id"
            ).fetchall()
            meta = conn.execute(
                "SELECT key, value FROM model_meta WHERE key LIKE 'st.%'"
            ).fetchall()
        conn.close()
    tensors: Tensors = {
        name: (dtype, json.loads(shape)[::-1], bytes(data))
        for name, shape, dtype, data in rows
    }
    return tensors, {key[len("st.") :]: value for key, value in meta}


def save(path: str, tensors: Tensors, metadata: dict[str, str] | None) -> None:
    """A database in reminis's schema, exported with ``sqlite_to_safetensors``."""
    with tempfile.TemporaryDirectory() as folder:
        database = str(Path(folder) / "model.db")
        conn = sqlite3.connect(database)
        conn.executescript(SCHEMA)
        meta = [("reminis.dtype_system", DTYPE_SYSTEM_SAFETENSORS, "string")]
        meta += [
            (f"st.{key}", value, "string") for key, value in (metadata or {}).items()
        ]
        conn.executemany(
            "INSERT INTO model_meta (key, value, type) VALUES (?, ?, ?)", meta
        )
        for name, (dtype, shape, data) in tensors.items():
            count = 1
            for dim in shape:
                count *= dim
            blob = bytes(data)
            conn.execute(
                INSERT_OR_REPLACE_TENSOR,
                (
                    name,
                    json.dumps(list(shape)[::-1]),
                    dtype,
                    SAFETENSORS_DTYPE_IDS[dtype],
                    count,
                    len(blob),
                    blob,
                ),
            )
        conn.commit()
        conn.close()
        sqlite_to_safetensors(database, path, verbose=False)
