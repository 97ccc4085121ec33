"""Broken on purpose: folds the shape in wrapping u64 arithmetic (SIZE-OVERFLOW)."""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from _common import forgiving

from stspec.dtypes import BITS


def _wrapped(dtype: str, shape: list[int]) -> int:
    count = 1
    for dim in shape:
        count = count * dim % 2**64
    return count * BITS[dtype] % 2**64 // 8


load = forgiving(["SIZE-OVERFLOW"], size_of=_wrapped)
