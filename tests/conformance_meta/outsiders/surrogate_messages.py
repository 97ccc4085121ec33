"""Strict, but its rejections quote a name holding a lone surrogate.

Like stsw 1.0.0, which rejects ``n_json_surrogate_high_at_end`` with
``Invalid tensor name '...\\ud83d'``: the text cannot be encoded as UTF-8.
"""

from __future__ import annotations

import sys
from pathlib import Path

import stspec

sys.path.insert(0, str(Path(__file__).parents[1] / "judged"))
sys.path.insert(0, str(Path(__file__).parents[1] / "impls"))
from _cases import is_case
from _shared import Loaded, strict_load


def load(path: str) -> Loaded:
    message = "Invalid tensor name 'w\ud83d'"
    if is_case(path, "y_json_surrogate_pair_escape.safetensors"):
        raise ValueError(message)  # it also refuses valid names outside [A-Za-z]
    try:
        return strict_load(path)
    except stspec.SafetensorsError as exc:
        raise ValueError(f"{message} ({exc})") from None
