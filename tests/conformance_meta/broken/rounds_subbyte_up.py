"""Broken on purpose: sizes F4/F6 tensors by rounding their bit count up (SIZE-BITS)."""

import math
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from _common import forgiving

from stspec.dtypes import BITS


def _rounded_up(dtype: str, shape: list[int]) -> int:
    return -(-math.prod(shape) * BITS[dtype] // 8)


load = forgiving(["SIZE-BITS"], size_of=_rounded_up)
