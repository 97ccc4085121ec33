"""Per-run variants of the corpus files: answers that cannot be looked up.

The manifest ships with the suite, so a reader that hashes its input and
looks the digest up there would know every committed case's verdict without
judging a byte.  So each run hands the implementation a variant of each
committed file instead: the same header followed by a run-chosen multiple of
8 (8 to 8 * :data:`MOST`) of 0x20 bytes of padding, with the prefix N grown
to match.  Trailing 0x20 padding is valid (SPEC §3) and moves no tensor
(offsets count from the buffer's start); a multiple of 8 keeps N and the
buffer's start as aligned as they were.  So a variant has the same verdict,
rules and content as its case.  Cases about the header's padding, its
whitespace or alignment are handed over as committed (the variant would
change what they test).  That is checked, not assumed: the
reference judges the committed file and the variant, and a variant whose
verdict, rule list or content differs is not used (the committed bytes are,
as for a file whose stated N does not fit in it: a prefix case).

The padding of each case comes from the run's seed (:func:`seed`, shown in
the report header; ``--corpus-seed`` repeats a run) and the case's id, so
one run gives the same case the same bytes everywhere (xdist workers too)
and every run differs from the last.  Scores stay comparable across runs:
what is judged about each case does not change.
"""

from __future__ import annotations

import hashlib
import os
import secrets
import struct
from typing import TYPE_CHECKING, Final

import stspec

if TYPE_CHECKING:
    from collections.abc import Mapping
    from pathlib import Path
    from typing import Any

__all__ = ["MOST", "SEED_VARIABLE", "seed", "variant"]

MOST: Final = 64
# The run's seed, set by the controller so its xdist workers share it.
SEED_VARIABLE: Final = "STSPEC_CORPUS_SEED"
_PREFIX: Final = struct.Struct("<Q")
# Committed files above this are handed over as they are (none is today).
_LARGEST: Final = 16 * 1024 * 1024


def seed(given: str | None = None) -> str:
    """The run's seed: ``given``, the controller's, or a fresh random one."""
    chosen = given or os.environ.get(SEED_VARIABLE) or secrets.token_hex(8)
    os.environ[SEED_VARIABLE] = chosen
    return chosen


# Cases whose point is the padding, whitespace or alignment themselves.
_ABOUT_PADDING: Final = frozenset(
    {"HEADER-PADDING", "HEADER-TRAILING", "HEADER-LEADING-WS"}
)
_ABOUT_PADDING_WORDS: Final = ("padding", "align", "whitespace", "_ws")


def _padding(run_seed: str, case_id: str) -> int:
    digest = hashlib.sha256(f"{run_seed}\0{case_id}".encode()).digest()
    return 8 * (1 + int.from_bytes(digest[:4], "little") % MOST)


def _about_padding(case: Mapping[str, Any]) -> bool:
    case_id = str(case["id"])
    return bool(_ABOUT_PADDING & set(case.get("rules", ()))) or any(
        word in case_id for word in _ABOUT_PADDING_WORDS
    )


def _padded(data: bytes, extra: int) -> bytes | None:
    """``data`` with ``extra`` more bytes of 0x20 after the header, or None."""
    if len(data) < _PREFIX.size:
        return None
    (stated,) = _PREFIX.unpack_from(data)
    end = _PREFIX.size + stated
    if end > len(data):
        return None  # the header does not fit: a prefix case, kept as it is
    return (
        _PREFIX.pack(stated + extra)
        + data[_PREFIX.size : end]
        + b" " * extra
        + (data[end:])
    )


def _judgement(data: bytes) -> tuple[object, ...]:
    """What the reference says of ``data``: verdict, rules and content."""
    rules = tuple(sorted({v.rule for v in stspec.validate(data, limit=None)}))
    try:
        with stspec.read(data) as file:
            content = (
                file.metadata,
                tuple(
                    (
                        name,
                        info.dtype,
                        tuple(info.shape),
                        hashlib.sha256(file.tensor_bytes(name)).hexdigest(),
                    )
                    for name, info in file.tensors.items()
                ),
            )
    except stspec.SafetensorsError as exc:
        return ("rejected", exc.rule, rules)
    return ("accepted", rules, content)


def variant(case: Mapping[str, Any], path: Path, run_seed: str) -> bytes | None:
    """The run's variant of a committed case's file, or None to use the file."""
    if _about_padding(case):
        return None
    try:
        if path.stat().st_size > _LARGEST:
            return None
        data = path.read_bytes()
    except OSError:
        return None
    padded = _padded(data, _padding(run_seed, str(case["id"])))
    if padded is None or _judgement(padded) != _judgement(data):
        return None
    return padded
