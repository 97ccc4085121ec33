"""Recipes: cases too large to commit, described by parameters, built on demand.

A recipe turns its JSON parameters into *segments*: ``(offset, bytes)`` pairs
that are written into a file of a given size; everything between segments is
zero.  Materialising seeks over the zero runs, so on file systems with sparse
files (ext4, xfs, btrfs, APFS, NTFS) a 4 GiB case costs a few kilobytes.
"""

from __future__ import annotations

import hashlib
import itertools
import json
import string
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Final

from stspec_corpus._model import assemble, entry, obj

if TYPE_CHECKING:
    from pathlib import Path

_ZERO_CHUNK: Final = 1 << 22
# sha256 is computed only for outputs up to this size: hashing more costs seconds.
HASH_LIMIT: Final = 256 * 1024 * 1024


@dataclass(frozen=True, slots=True)
class Output:
    """What a recipe produces: non-zero segments inside a file of ``size`` bytes."""

    segments: tuple[tuple[int, bytes], ...]
    size: int

    def chunks(self) -> Iterator[bytes]:
        """Yield the file's bytes in order, zero runs included."""
        cursor = 0
        for offset, data in self.segments:
            yield from _zeros(offset - cursor)
            yield data
            cursor = offset + len(data)
        yield from _zeros(self.size - cursor)

    def sha256(self) -> str:
        """Return the sha256 of the whole file."""
        digest = hashlib.sha256()
        for chunk in self.chunks():
            digest.update(chunk)
        return digest.hexdigest()

    def write(self, path: Path) -> None:
        """Write the file, leaving the zero runs as holes where possible."""
        with path.open("wb") as handle:
            for offset, data in self.segments:
                handle.seek(offset)
                handle.write(data)
            handle.truncate(self.size)


def _zeros(count: int) -> Iterator[bytes]:
    if count < 0:
        raise ValueError("recipe segments overlap or are out of order")
    chunk = bytes(min(count, _ZERO_CHUNK))
    while count > 0:
        yield chunk[: min(count, _ZERO_CHUNK)]
        count -= _ZERO_CHUNK


Params = Mapping[str, object]


def _int(params: Params, key: str) -> int:
    value = params[key]
    if not isinstance(value, int):
        raise TypeError(f"recipe parameter {key!r} must be an integer")
    return value


def _str(params: Params, key: str) -> str:
    value = params[key]
    if not isinstance(value, str):
        raise TypeError(f"recipe parameter {key!r} must be a string")
    return value


def padded_header(params: Params) -> Output:
    """N = ``length``; the header ``header`` followed by 0x20 up to N bytes.

    Params: header (text), length (N, the value written and the bytes present).
    """
    header = _str(params, "header").encode()
    length = _int(params, "length")
    data = length.to_bytes(8, "little") + header + b" " * (length - len(header))
    return Output(((0, data),), len(data))


def sparse(params: Params) -> Output:
    """Return the header as given and a buffer of ``buffer_length`` zero bytes.

    Params: header (text, used verbatim: it carries its own padding),
    buffer_length, tail (hex of bytes that end the buffer; the rest of the
    buffer is zero).
    """
    head = assemble(_str(params, "header"), align=None)
    tail = bytes.fromhex(_str(params, "tail"))
    size = len(head) + _int(params, "buffer_length")
    segments = [(0, head)]
    if tail:
        segments.append((size - len(tail), tail))
    return Output(tuple(segments), size)


def tensor_names(count: int) -> list[str]:
    """Return the names of the many-tensors recipes: t00000, t00001, ..."""
    width = len(str(count - 1))
    return [f"t{i:0{width}d}" for i in range(count)]


def many_tensors(params: Params) -> Output:
    """``count`` U8[1] tensors t00000.. in order, tensor i holding i % 256.

    Params: count, overlap (true: every tensor claims [0,1] of a 1-byte buffer),
    hole_at (optional: one unused byte before that tensor).
    """
    count = _int(params, "count")
    overlap = bool(params.get("overlap", False))
    hole_at = _int(params, "hole_at") if "hole_at" in params else count
    names = tensor_names(count)
    if overlap:
        members = [(name, entry("U8", [1], 0, 1)) for name in names]
        buffer = b"\x00"
    else:
        start = [i + (i >= hole_at) for i in range(count)]
        members = [
            (n, entry("U8", [1], start[i], start[i] + 1)) for i, n in enumerate(names)
        ]
        buffer = bytes(i % 256 for i in range(count))
        if hole_at < count:
            buffer = buffer[:hole_at] + b"\x00" + buffer[hole_at:]
    data = assemble(obj(members), buffer)
    return Output(((0, data),), len(data))


DENSE_ENTRY: Final = '{"dtype":"U8","shape":[0],"data_offsets":[0,0]}'


DENSE_DIGITS: Final = string.digits + string.ascii_uppercase + string.ascii_lowercase


def dense_names(count: int) -> Iterator[str]:
    """Return the names of the dense-header recipe: 0000, 0001, ..., in byte order.

    Four base-62 digits (0-9A-Za-z, ascending in ASCII), so at most 62^4.
    """
    names = itertools.product(DENSE_DIGITS, repeat=4)
    return ("".join(name) for name in itertools.islice(names, count))


def dense_header(params: Params) -> Output:
    """``count`` empty U8[0] tensors at [0,0], the header padded to N = ``length``.

    Params: count (at most 62^4: names have four digits), length (N).  Entries
    as short as a tensor entry gets, so the most a header of N bytes holds.
    """
    count = _int(params, "count")
    length = _int(params, "length")
    if count > len(DENSE_DIGITS) ** 4:
        raise ValueError("dense-header names have four base-62 digits")
    text = "{" + ",".join(f'"{name}":{DENSE_ENTRY}' for name in dense_names(count))
    header = (text + "}").encode()
    if len(header) > length:
        raise ValueError(f"{count} entries need {len(header)} bytes, above N")
    data = length.to_bytes(8, "little") + header + b" " * (length - len(header))
    return Output(((0, data),), len(data))


def metadata_keys(count: int) -> list[str]:
    """Return the keys of the many-metadata recipe: k00000, k00001, ..."""
    return [f"k{i:05d}" for i in range(count)]


def metadata_value(index: int, length: int) -> str:
    """Return the value of key ``index`` in the many-metadata recipe."""
    return (f"{index}:" + "abcdefghij" * (length // 10 + 1))[:length]


_METADATA_FAULTS: Final = ("none", "integer", "duplicate", "bad-utf8")


def many_metadata(params: Params) -> Output:
    """Build a metadata-only header: ``count`` keys k00000.., values of ``length``.

    Params: count, length, fault (none; integer: key ``at`` holds the number
    1; duplicate: key ``at`` repeats the name of key ``at`` - 10; bad-utf8:
    the value of key ``at`` starts with the byte 0xFF), at.
    """
    count, length = _int(params, "count"), _int(params, "length")
    fault, at = _str(params, "fault"), _int(params, "at")
    if fault not in _METADATA_FAULTS:
        raise ValueError(f"many-metadata: unknown fault {fault!r}")
    keys = metadata_keys(count)
    pieces: list[bytes] = []
    for i, key in enumerate(keys):
        name = keys[i - 10] if fault == "duplicate" and i == at else key
        value = json.dumps(metadata_value(i, length)).encode()
        if i == at and fault == "integer":
            value = b"1"
        elif i == at and fault == "bad-utf8":
            value = b'"\xff' + value[1:]
        pieces.append(json.dumps(name).encode() + b":" + value)
    header = b'{"__metadata__":{' + b",".join(pieces) + b"}}"
    header += b" " * (-(8 + len(header)) % 8)
    data = len(header).to_bytes(8, "little") + header
    return Output(((0, data),), len(data))


RECIPES: Final[dict[str, Callable[[Params], Output]]] = {
    "many-metadata": many_metadata,
    "padded-header": padded_header,
    "sparse": sparse,
    "many-tensors": many_tensors,
    "dense-header": dense_header,
}


def run(name: str, params: Params) -> Output:
    """Run the named recipe."""
    return RECIPES[name](params)
