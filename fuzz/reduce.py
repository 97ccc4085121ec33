"""A safetensors-aware reducer: the smallest input that keeps a failure.

libFuzzer's ``-minimize_crash`` shrinks bytes and keeps *any* crash, and most
of its cuts break the 8-byte length prefix, so it stalls.  :func:`reduce`
keeps exactly the failure it is given (a predicate on the candidate) and cuts
in the file's own terms, always re-writing the prefix:

1. JSON members: drop top-level members, entry fields, metadata members and
   array elements, one at a time, as long as the failure stays;
2. header text: delete ever smaller chunks of the header (delta debugging);
3. buffer: drop its tail, then chunks of it.

Each step is repeated until nothing more can be removed or ``budget``
candidates have been tried.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import mutators

if TYPE_CHECKING:
    from collections.abc import Callable, Iterator

__all__ = ["Reduction", "reduce"]


@dataclass(slots=True)
class Reduction:
    """The reduced input and how many candidates it took."""

    data: bytes
    tried: int
    budget: int

    def keeps(self, predicate: Callable[[bytes], bool], candidate: bytes) -> bool:
        """Try one candidate; adopt it if it is smaller and still fails."""
        if self.tried >= self.budget or len(candidate) >= len(self.data):
            return False
        self.tried += 1
        if predicate(candidate):
            self.data = candidate
            return True
        return False


def reduce(
    data: bytes, predicate: Callable[[bytes], bool], budget: int = 3000
) -> Reduction:
    """Shrink ``data`` while ``predicate`` (the failure is still there) holds."""
    state = Reduction(data, 0, budget)
    while True:
        size = len(state.data)
        _json_pass(state, predicate)
        _text_pass(state, predicate)
        _buffer_pass(state, predicate)
        if len(state.data) >= size or state.tried >= budget:
            return state


def _json_pass(state: Reduction, predicate: Callable[[bytes], bool]) -> None:
    progress = True
    while progress and state.tried < state.budget:
        progress = False
        for candidate in _json_candidates(state.data):
            if state.keeps(predicate, candidate):
                progress = True
                break


def _json_candidates(data: bytes) -> Iterator[bytes]:
    parts = mutators.split(data)
    if parts is None:
        return
    header, buffer = parts
    try:
        root = mutators.parse(header.decode("utf-8"))
    except (ValueError, RecursionError):
        return
    for path in _containers(root):
        for index in range(len(path)):
            removed = path[index]
            del path[index]
            try:
                text = mutators.dump(root)
            except RecursionError:
                text = None
            path.insert(index, removed)
            if text is not None:
                yield mutators.join(text.encode("utf-8", "surrogatepass"), buffer)


def _containers(value: object) -> list[list[object]]:
    """Every object and array in ``value``, outermost first."""
    found: list[list[object]] = []
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, mutators.Obj):
            found.append(item)  # type: ignore[arg-type]
            stack.extend(v for _, v in item)
        elif isinstance(item, list):
            found.append(item)
            stack.extend(item)
    return found


def _text_pass(state: Reduction, predicate: Callable[[bytes], bool]) -> None:
    if mutators.split(state.data) is None:
        _bytes_pass(state, predicate)
        return
    _part_pass(state, predicate, 0)


def _part_pass(
    state: Reduction, predicate: Callable[[bytes], bool], index: int
) -> None:
    """Delta debugging on one part of a split input: 0 the header, 1 the buffer."""
    parts = mutators.split(state.data)
    if parts is None:
        return
    chunk = max(1, len(parts[index]) // 2)
    while chunk >= 1 and state.tried < state.budget:
        parts = mutators.split(state.data)
        if parts is None:
            return
        part = parts[index]
        start, removed = 0, False
        while start < len(part) and state.tried < state.budget:
            candidate = part[:start] + part[start + chunk :]
            header, buffer = (
                (candidate, parts[1]) if index == 0 else (parts[0], candidate)
            )
            if state.keeps(predicate, mutators.join(header, buffer)):
                part, removed = candidate, True
            else:
                start += chunk
        if not removed:
            chunk //= 2


def _bytes_pass(state: Reduction, predicate: Callable[[bytes], bool]) -> None:
    """Shrink an input without a usable prefix: delta debugging on bytes."""
    chunk = max(1, len(state.data) // 2)
    while chunk >= 1 and state.tried < state.budget:
        start, removed = 0, False
        while start < len(state.data) and state.tried < state.budget:
            data = state.data
            if state.keeps(predicate, data[:start] + data[start + chunk :]):
                removed = True
            else:
                start += chunk
        if not removed:
            chunk //= 2


def _buffer_pass(state: Reduction, predicate: Callable[[bytes], bool]) -> None:
    parts = mutators.split(state.data)
    if parts is None:
        return
    header, buffer = parts
    for keep in (0, len(buffer) // 2):
        if keep < len(buffer) and state.keeps(
            predicate, mutators.join(header, buffer[:keep])
        ):
            return
    _part_pass(state, predicate, 1)
