"""The CPU time, wall-clock time and memory one load may use.

Every allowance comes from the file's length (``st_size``), never from its
blocks on disk: a sparse file and the same bytes stored densely get the same
allowance.  A reader may use memory in proportion to the bytes that exist:
:data:`HEADER_FACTOR` times the header (parsing JSON into objects costs many
times its text) plus :data:`DATA_FACTOR` times the rest (the file read whole,
a copy, the tensors returned as ``bytes``).  What a header *claims* beyond
the file's end earns nothing, so a 16-byte file claiming 2^64 bytes still
fails if the reader allocates from the claim, with one exception the spec
allows (READ-OUTCOME: memory proportional to the header, at most
100,000,000 bytes): a buffer of the stated header length N, once N is within
HEADER-LIMIT, even where the file is shorter (a reader that checks N and then
reads N bytes).

Hangs are judged by CPU time (a loaded machine slows a reader down but does
not make it use more CPU): the base (``--case-timeout``) plus one second per
:data:`CPU_BYTES_PER_SECOND` of file, since an accepted file makes the reader
deliver up to that many bytes, plus one second per
:data:`HEADER_CPU_BYTES_PER_SECOND` of header, since a dense valid header
(SPEC 1.6: about 1.8 million entries in 100,000,000 bytes) makes the reader
parse and deliver that many tensors.  Wall-clock time is only a backstop for
readers that wait without computing (a sleep, a lock, a blocked pipe).
"""

from __future__ import annotations

import math
import os
import struct
from dataclasses import dataclass
from typing import TYPE_CHECKING, Final

from stspec import MAX_HEADER_SIZE

if TYPE_CHECKING:
    from collections.abc import Mapping, Sequence
    from pathlib import Path

__all__ = [
    "CPU_BYTES_PER_SECOND",
    "DATA_FACTOR",
    "HEADER_CPU_BYTES_PER_SECOND",
    "HEADER_FACTOR",
    "WRITE_HEADER_FACTOR",
    "Allowance",
    "Limits",
    "header_length",
    "request_size",
    "stated_length",
    "unread_header",
]

MIB: Final = 1024 * 1024
HEADER_FACTOR: Final = 64
DATA_FACTOR: Final = 3
# A writer's memory per byte of the header its request makes: the JSON text,
# its encoded bytes, the file assembled from them, a growing buffer's
# doubling and a garbage collector's slack.  A writer that builds a header
# of just over 100,000,000 bytes the ordinary way and then refuses it needs
# about this many times the header; refusing it must not cost a resource
# failure.  (A request's own JSON, for a command, is its header share: every
# character counted as its six-byte escape.)
WRITE_HEADER_FACTOR: Final = 16
# A conservative rate: sha256 and a plain read run at several hundred MiB/s
# of CPU; a window-hashing reader of the 4 GiB case needs a few seconds.
CPU_BYTES_PER_SECOND: Final = 64 * MIB
# Parsing a header and building one answer per tensor: the strict reference's
# adapter needs about 20 s of CPU for the densest 100,000,000-byte header.
HEADER_CPU_BYTES_PER_SECOND: Final = 2 * MIB
# The wall-clock backstop grows with the CPU limit so that a machine running
# everything at once (2 cores, 8 jobs) does not turn slow into "hung".
WALL_FACTOR: Final = 3


def stated_length(path: str | Path) -> int:
    """The header length N the file's prefix states (0 without a prefix)."""
    try:
        with open(path, "rb") as file:
            prefix = file.read(8)
    except OSError:
        return 0
    if len(prefix) < 8:
        return 0
    (stated,) = struct.unpack("<Q", prefix)
    return int(stated)


def header_length(path: str | Path, length: int) -> int:
    """The header's length as the file's prefix states it, capped at the file."""
    return min(stated_length(path), max(0, length - 8))


def unread_header(path: str | Path, length: int) -> int:
    """The part of a stated N within HEADER-LIMIT that lies past the file's end."""
    stated = stated_length(path)
    if stated > MAX_HEADER_SIZE:
        return 0  # HEADER-LIMIT: rejected from the prefix alone
    return max(0, stated - header_length(path, length))


# A character of a name, key or value takes at most six bytes once written
# (``\\u0001``), so a save request's header share is six bytes a character.
ESCAPED_CHAR_BYTES: Final = 6


def request_size(
    tensors: Mapping[str, tuple[str, Sequence[int], bytes]],
    metadata: Mapping[str, object] | None,
) -> int:
    """The bytes a save request stands for: its tensors' plus its header at worst."""
    header, data = request_shares(tensors, metadata)
    return header + data


def request_shares(
    tensors: Mapping[str, tuple[str, Sequence[int], bytes]],
    metadata: Mapping[str, object] | None,
) -> tuple[int, int]:
    """(header, data): the header a save request makes at worst, and its bytes."""
    texts: list[object] = [*tensors, *(metadata or {}).items()]
    chars = sum(len(t) + 2 for t in _strings(texts))
    data = sum(len(d) for _, _, d in tensors.values())
    return ESCAPED_CHAR_BYTES * chars, data


def _strings(values: list[object]) -> list[str]:
    found: list[str] = []
    for value in values:
        if isinstance(value, str):
            found.append(value)
        elif isinstance(value, tuple):
            found.extend(_strings(list(value)))
    return found


@dataclass(frozen=True, slots=True)
class Allowance:
    """What one load of one file may use."""

    length: int  # the file's length in bytes
    memory: int  # bytes above the process's own size
    cpu_seconds: float
    wall_seconds: float

    def cpu_rlimit(self) -> int:
        """Whole seconds for ``RLIMIT_CPU`` (it has one-second granularity)."""
        return max(1, math.ceil(self.cpu_seconds))

    def describe(self) -> str:
        """For failure messages: how the allowance was computed."""
        return (
            f"{self.memory / MIB:.1f} MiB of memory, {self.cpu_seconds:g} s of CPU "
            f"and {self.wall_seconds:g} s of wall-clock time for a file of "
            f"{self.length} bytes"
        )


@dataclass(frozen=True, slots=True)
class Limits:
    """The run's settings; :meth:`for_file` turns them into one allowance."""

    cpu_seconds: float = 10.0  # --case-timeout
    wall_seconds: float = 60.0  # --wall-timeout
    memory_budget: int = 64 * MIB  # --memory-budget: on top of the file's share

    def for_size(self, size: int, *, cpu_seconds: float | None = None) -> Allowance:
        """The allowance for handling ``size`` bytes (see :func:`request_size`)."""
        base = self.cpu_seconds if cpu_seconds is None else cpu_seconds
        extra = size / CPU_BYTES_PER_SECOND
        return Allowance(
            size,
            self.memory_budget + DATA_FACTOR * size,
            base + extra,
            max(self.wall_seconds, 2 * base) + WALL_FACTOR * extra,
        )

    def for_request(
        self,
        tensors: Mapping[str, tuple[str, Sequence[int], bytes]],
        metadata: Mapping[str, object] | None,
        *,
        cpu_seconds: float | None = None,
    ) -> Allowance:
        """The allowance for writing a request (:data:`WRITE_HEADER_FACTOR`)."""
        header, data = request_shares(tensors, metadata)
        base = self.for_size(header + data, cpu_seconds=cpu_seconds)
        memory = self.memory_budget + WRITE_HEADER_FACTOR * header + DATA_FACTOR * data
        return Allowance(base.length, memory, base.cpu_seconds, base.wall_seconds)

    def for_file(
        self, path: str | Path, *, cpu_seconds: float | None = None
    ) -> Allowance:
        """The allowance for ``path`` (``cpu_seconds`` overrides the base)."""
        try:
            length = os.stat(path).st_size
        except OSError:
            length = 0
        head = header_length(path, length)
        memory = (
            self.memory_budget
            + HEADER_FACTOR * head
            + DATA_FACTOR * max(0, length - head)
            + unread_header(path, length)
        )
        base = self.cpu_seconds if cpu_seconds is None else cpu_seconds
        extra = length / CPU_BYTES_PER_SECOND + head / HEADER_CPU_BYTES_PER_SECOND
        cpu = base + extra
        wall = max(self.wall_seconds, 2 * base) + WALL_FACTOR * extra
        return Allowance(length, memory, cpu, wall)
