"""reminis 0.34.0: where the memory of importing one large tensor goes.

    .matrix/reminis/venv/bin/python matrix/repro/reminis_import_peak.py FILE

``safetensors_to_sqlite`` reads each tensor whole (``f.read(end - begin)``)
and binds it to one ``INSERT`` as a BLOB; SQLite copies the bound value,
builds the row's record from it and writes the record's pages into its page
cache, which the importer sets to 250 MB (``PRAGMA cache_size=-256000`` in
``reminis/db.py``), so the pages of a tensor that fits stay in memory until
the transaction ends.  Run on ``n_example_format_notes_size_mismatch`` (a
valid 74 MiB tensor, then one whose range does not hold its shape), it
prints the resident memory the import added (the kernel's high-water mark,
reset first), Python's own peak (tracemalloc) and SQLite's (its
``sqlite3_memory_highwater``), the same import with SQLite's default page
cache, and the allowance the conformance suite gives the file (64 MiB, 64
times its header and three times the rest).  It exits 0 if the import
raises reminis's own ``ValueError`` and its resident memory grows past that
allowance, 1 if not.
"""

import ctypes
import gc
import sys
import tempfile
import tracemalloc
from pathlib import Path

import reminis.db
from reminis.safetensors_io import safetensors_to_sqlite

MIB = 1 << 20
LENGTH = Path(sys.argv[1]).stat().st_size
with open(sys.argv[1], "rb") as file:
    HEADER = min(int.from_bytes(file.read(8), "little"), max(0, LENGTH - 8))
# the suite's: 64 MiB, 64 times the header and 3 times the rest of the file
ALLOWANCE = 64 * MIB + 64 * HEADER + 3 * (LENGTH - HEADER)


def _sqlite() -> ctypes.CDLL:
    """The SQLite library Python's ``sqlite3`` module is linked with."""
    with open("/proc/self/maps", encoding="utf-8") as maps:
        for line in maps:
            if "libsqlite3" in line:
                return ctypes.CDLL(line.split()[-1])
    return ctypes.CDLL(None)  # linked statically into the interpreter


SQLITE = _sqlite()
SQLITE.sqlite3_memory_highwater.restype = ctypes.c_int64
SQLITE.sqlite3_memory_highwater.argtypes = [ctypes.c_int]


def _kib(key: str) -> int:
    with open("/proc/self/status", encoding="ascii") as status:
        for line in status:
            if line.startswith(f"{key}:"):
                return int(line.split()[1])
    raise SystemExit(f"no {key} in /proc/self/status")


def imported(path: str) -> tuple[str, int, int, int]:
    """What the import said, its resident growth, Python's and SQLite's peaks."""
    # a refused import leaves its connection open until it is collected
    gc.collect()
    with open("/proc/self/clear_refs", "w", encoding="ascii") as refs:
        refs.write("5")  # the high-water mark starts from now
    start = _kib("VmRSS")
    SQLITE.sqlite3_memory_highwater(1)
    tracemalloc.start()
    try:
        with tempfile.TemporaryDirectory() as folder:
            safetensors_to_sqlite(path, str(Path(folder) / "m.db"), verbose=False)
        said = "accepted"
    except ValueError as exc:
        said = f"ValueError {str(exc).partition(': ')[2] or exc}"
    python = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    grown = (_kib("VmHWM") - start) * 1024
    return said, grown, python, SQLITE.sqlite3_memory_highwater(0)


said, grown, python, sqlite = imported(sys.argv[1])
print(f"import: {said[:120]}")
print(
    f"resident memory added: {grown / MIB:.1f} MiB (Python's allocations "
    f"{python / MIB:.1f} MiB, SQLite's {sqlite / MIB:.1f} MiB)"
)
reminis.db.BULK_WRITE_PRAGMAS = tuple(
    p for p in reminis.db.BULK_WRITE_PRAGMAS if "cache_size" not in p
)
_said, default_grown, default_python, default_sqlite = imported(sys.argv[1])
print(
    f"with SQLite's default page cache: {default_grown / MIB:.1f} MiB "
    f"(Python's {default_python / MIB:.1f} MiB, SQLite's "
    f"{default_sqlite / MIB:.1f} MiB)"
)
print(f"the suite's allowance for the file: {ALLOWANCE / MIB:.1f} MiB")
over = said.startswith("ValueError") and grown > ALLOWANCE
print("over the allowance" if over else "within the allowance")
sys.exit(0 if over else 1)
