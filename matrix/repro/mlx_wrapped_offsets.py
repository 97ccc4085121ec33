"""mlx adds data_offsets to the data's start in size_t: a huge begin wraps.

    .matrix/mlx/venv/bin/python matrix/repro/mlx_wrapped_offsets.py

``load_safetensors`` checks ``end - begin`` against dtype x shape and
``offset + end <= file size``, where ``offset`` is ``8 + N``; both sums are
``size_t`` and wrap modulo 2^64.  A begin of ``2^64 - 8 - N + k`` therefore
reads the file from byte ``k``: the length prefix and the JSON header load
as tensor data.  A begin that wraps to before the file's first byte makes
the read fail, but only ``mx.eval`` raises that: converted with
``np.array`` (as users read an array's values) the array holds whatever the
allocator's buffer held, here the bytes of an array freed just before
(not on every attempt: some raise the read's error instead).
"""

import os

import mlx.core as mx
import numpy as np
from _files import make

WRAP = 2**64


def entries(begin: int, count: int) -> dict[str, dict[str, object]]:
    """One U8[count] tensor at [begin, begin + count]."""
    return {
        "t": {"dtype": "U8", "shape": [count], "data_offsets": [begin, begin + count]}
    }


def at(start: int, count: int) -> str:
    """A file whose tensor's begin wraps to file offset ``start`` (mod 2^64)."""
    # the header's length does not depend on the begin's digits here: every
    # begin below has 20 of them, so N is known from a first build
    probe = make(entries(WRAP - 1000, count))
    with open(probe, "rb") as f:
        n = int.from_bytes(f.read(8), "little")
    os.unlink(probe)
    path = make(entries((start - 8 - n) % WRAP, count))
    with open(path, "rb") as f:
        if int.from_bytes(f.read(8), "little") != n:
            raise SystemExit("the header's length changed with the begin")
    return path


def show(what: str, start: int, count: int, *, evaluate: bool) -> None:
    """Load the file ``at(start, count)`` makes; print what the tensor holds."""
    path = at(start, count)
    with open(path, "rb") as f:
        data = f.read()
    try:
        array = mx.load(path)["t"]
        if evaluate:
            mx.eval(array)
        got = np.array(array).tobytes()
        where = data.find(got) if got else -1
        said = (
            f"file bytes {where}..{where + count}" if where >= 0 else "not in the file"
        )
        print(f"{what}: accepted, {got!r} ({said})")
    except RuntimeError as exc:
        print(f"{what}: {type(exc).__name__}: {exc}")
    finally:
        os.unlink(path)


show("begin wraps to byte 0", 0, 8, evaluate=False)
show("begin wraps to byte 8", 8, 8, evaluate=False)
for attempt in range(1, 6):
    secret = mx.array(np.frombuffer(f"SECRET-{attempt}".encode(), dtype=np.uint8))
    mx.eval(secret)
    del secret
    show(
        f"begin wraps before the file, np.array ({attempt})",
        WRAP - 4,
        8,
        evaluate=False,
    )
show("begin wraps before the file, mx.eval", WRAP - 4, 8, evaluate=True)
