"""A command-protocol-2 reader built on the reference, with switches for tests.

    python cmd_reader.py [SWITCHES] FILE | --describe

Switches: ``--whole`` reads the file into memory (default and ``--mmap``: mmap);
``--header-only`` declares and answers dtype and shape only; ``--lax`` accepts
any header that is a JSON object (with ``--header-only``: a careless
validator); ``--no-f64`` rejects F64 tensors and ``--declare-no-f64`` says so
in ``--describe``; ``--exit0`` exits 0 after every answer, a rejection too
(inconsistent); ``--on=SUFFIX:ACTION`` misbehaves on files whose name ends
with SUFFIX (ACTION: ``kill9``, ``sleep``, ``spin``, ``exit3``, ``alloc``,
``shared``, ``shared-then-crash``, ``shared-then-oom``, ``traceback``).
"""

from __future__ import annotations

import hashlib
import json
import mmap
import os
import struct
import sys
import time
from pathlib import Path

import stspec

sys.path.insert(0, str(Path(__file__).parent))
from _cases import is_case

HASH_LIMIT = 256 * 1024 * 1024
WINDOW = 1024 * 1024


def digest(view: memoryview) -> dict[str, object]:
    n = view.nbytes
    if n <= HASH_LIMIT:
        return {"sha256": hashlib.sha256(view).hexdigest()}
    starts = sorted({0, max(0, n // 2 - WINDOW // 2), max(0, n - WINDOW)})
    return {
        "windows": [
            [s, hashlib.sha256(view[s : s + WINDOW]).hexdigest()] for s in starts
        ]
    }


# Enough to stand out above the suite's own peak (a forked child starts there).
SHARED_CAP = 320 * 1024 * 1024


def claim_shared_memory(path: str) -> None:
    """Fill a buffer sized by the 8-byte prefix's claim, from a shared mapping.

    ``RLIMIT_DATA`` does not count shared mappings: only a measured peak of
    resident memory sees this allocation.
    """
    with Path(path).open("rb") as file:
        prefix = file.read(8)
    claimed = struct.unpack("<Q", prefix)[0] if len(prefix) == 8 else 0
    size = min(claimed, SHARED_CAP)
    if size:
        buffer = mmap.mmap(-1, size)  # MAP_SHARED | MAP_ANONYMOUS
        for page in range(0, size, mmap.PAGESIZE):
            buffer[page] = 1
        buffer.close()


def misbehave(action: str) -> None:
    if action == "kill9":
        os.kill(os.getpid(), 9)
    if action == "sleep":
        time.sleep(3600)
    if action == "spin":
        while True:
            pass
    if action == "exit3":
        sys.exit(3)
    if action == "alloc":  # a buffer sized by the header's claim, not by the file
        ends = [int(e["data_offsets"][1]) for e in lax_header_entries(sys.argv[-1])]  # type: ignore[index]
        buffer = bytes(min(max(ends), 3 << 30))  # 3 GiB: fine without a limit
        del buffer
        return
    if action == "shared":
        claim_shared_memory(sys.argv[-1])
        return
    if action == "shared-then-crash":  # over the allowance, then a bug of another kind
        claim_shared_memory(sys.argv[-1])
        raise IndexError("a bug after a large buffer, not an allocation failure")
    if action == "shared-then-oom":  # over the allowance, then Rust's words on abort
        claim_shared_memory(sys.argv[-1])
        sys.stderr.write("memory allocation of 4294967296 bytes failed\n")
        sys.stderr.flush()
        os.abort()
    raise RuntimeError("a bug, not a rejection")  # exit 1 with a traceback


def lax_header_entries(path: str) -> list[dict[str, object]]:
    with Path(path).open("rb") as file:
        (n,) = struct.unpack("<Q", file.read(8))
        header = json.loads(file.read(n))
    if not isinstance(header, dict):
        raise TypeError("not an object")
    header.pop("__metadata__", None)
    return [dict(entry, name=name) for name, entry in header.items()]


def lax_header(path: str) -> dict[str, object]:
    with Path(path).open("rb") as file:
        (n,) = struct.unpack("<Q", file.read(8))
        metadata = json.loads(file.read(n)).get("__metadata__")
    tensors = {
        e["name"]: {"dtype": e["dtype"], "shape": e["shape"]}
        for e in lax_header_entries(path)
    }
    return {"result": "accepted", "metadata": metadata, "tensors": tensors}


def answer(path: str, switches: list[str]) -> dict[str, object]:
    header_only = "--header-only" in switches
    if "--lax" in switches:
        return lax_header(path)
    if "--whole" in switches:
        with Path(path).open("rb") as file:
            st = stspec.read(file.read())
    else:
        st = stspec.read(path)  # memory-mapped, read-only
    tensors: dict[str, object] = {}
    for name, info in st.tensors.items():
        if info.dtype == "F64" and "--no-f64" in switches:
            return {"result": "rejected", "rule": "DTYPE-NAME", "reason": "no F64"}
        entry: dict[str, object] = {"dtype": info.dtype, "shape": list(info.shape)}
        if not header_only:
            entry.update(digest(st.tensor_bytes(name)))
        tensors[name] = entry
    return {"result": "accepted", "metadata": st.metadata, "tensors": tensors}


def describe(switches: list[str]) -> dict[str, object]:
    caps: dict[str, object] = {"header_only": "--header-only" in switches}
    if "--declare-no-f64" in switches:
        caps["read_dtypes"] = [d.name for d in stspec.DTYPES if d.name != "F64"]
    return {"protocol": 2, "name": "cmd_reader", "version": "1", "capabilities": caps}


def main() -> int:
    *switches, target = sys.argv[1:]
    if target == "--describe":
        sys.stdout.write(json.dumps(describe(switches)) + "\n")
        return 0
    for switch in switches:
        if switch.startswith("--on="):
            suffix, _, action = switch[5:].partition(":")
            if is_case(target, suffix):
                misbehave(action)
    try:
        result = answer(target, switches)
    except stspec.SafetensorsError as exc:
        result = {"result": "rejected", "rule": exc.rule, "reason": str(exc)}
    except (ValueError, KeyError, TypeError, struct.error) as exc:
        result = {"result": "rejected", "reason": repr(exc)}
    sys.stdout.write(json.dumps(result) + "\n")
    return 0 if result["result"] == "accepted" or "--exit0" in switches else 1


if __name__ == "__main__":
    sys.exit(main())
