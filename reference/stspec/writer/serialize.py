"""The canonical writer: HF safetensors 0.8.0's byte layout, minus its bugs."""

from __future__ import annotations

import contextlib
import json
import operator
import struct
from collections.abc import Mapping

from stspec.dtypes import BITS, OVERFLOW, RANK, bit_count
from stspec.errors import HeaderPath, SafetensorsError
from stspec.reader.header import METADATA_KEY
from stspec.rules import MAX_HEADER_SIZE, U64_MAX
from stspec.writer.atomic import replace_file

# typing is not imported at run time (start-up cost, see stspec/record.py); mypy
# reads TYPE_CHECKING as True.
TYPE_CHECKING = False
if TYPE_CHECKING:
    import os
    from collections.abc import Sequence
    from typing import Final, NamedTuple
else:
    from stspec.record import NamedTuple

__all__ = ["BytesLike", "Tensor", "serialize", "write"]

# Any object exporting the buffer protocol is accepted at run time (numpy
# arrays, array.array, mmap); the annotation names the common ones because
# collections.abc.Buffer only exists from Python 3.12.
BytesLike = bytes | bytearray | memoryview

_ALIGNMENT: Final = 8  # spec: the byte buffer starts at a multiple of 8


class Tensor(NamedTuple):
    """One tensor to write: its dtype name, its shape and its raw bytes.

    ``data`` is the little-endian, C-order element bytes (sub-byte dtypes F4
    and F6_* packed as the spec describes); any buffer is accepted.  A plain
    ``(dtype, shape, data)`` tuple works wherever a Tensor does.
    """

    dtype: str
    shape: tuple[int, ...] | list[int]
    data: BytesLike


class _Plan(NamedTuple):
    """What serialize and write both emit: the 8 + N header bytes, then data."""

    head: bytes
    views: list[memoryview]


def serialize(
    tensors: Mapping[str, Tensor | tuple[str, Sequence[int], BytesLike]],
    metadata: Mapping[str, str] | None = None,
) -> bytes:
    """Return the canonical safetensors bytes for ``tensors`` and ``metadata``.

    The layout is HF safetensors 0.8.0's (spec WRITE-CANONICAL): ``__metadata__``
    first with its keys sorted, then the tensors by descending dtype order and
    then by name, compact JSON, 0x20 padding so the data starts at a multiple
    of 8.  ``metadata={}`` is written as an empty ``__metadata__`` object.

    Raises:
        SafetensorsError: with ``offset=None`` and one of the rule ids
            WRITE-RESERVED, JSON-SURROGATE, DTYPE-NAME, SHAPE-ARRAY,
            NUM-INTEGER, NUM-RANGE, SIZE-OVERFLOW, SIZE-BITS, SIZE-MATCH,
            META-STRING, HEADER-LIMIT.
        TypeError: ``tensors`` is not a mapping of str to 3-tuples whose data
            is a buffer, or ``metadata`` is neither None nor a mapping.

    """
    plan = _plan(tensors, metadata)
    # One copy: join sizes the result once and copies every view into it.
    return b"".join([plan.head, *plan.views])


def write(
    path: str | os.PathLike[str],
    tensors: Mapping[str, Tensor | tuple[str, Sequence[int], BytesLike]],
    metadata: Mapping[str, str] | None = None,
) -> None:
    """Write ``serialize(tensors, metadata)`` to ``path``, atomically.

    The bytes go to a temporary file in the destination's directory (unnamed
    where Linux allows), which is fsync()ed and renamed over ``path``, and
    then the directory is fsync()ed (spec WRITE-ATOMIC).  On any failure or
    interruption the destination is untouched or complete and no temporary
    file is left: SIGINT and SIGTERM are held back to a safe point while
    their handlers are Python's defaults, and temporaries of writers killed
    earlier are removed.  A replaced file keeps its permission bits (and its
    owner where allowed); a new one gets what ``open(path, "wb")`` gives.
    ``path`` names the file ``open(path, "wb")`` would: ``link/../x`` is
    resolved by the kernel, after the symlink.  Tensor data is streamed,
    never joined into one object.

    Raises:
        SafetensorsError: as serialize() does, before any file is created.
        TypeError: as serialize() does.
        IsADirectoryError: ``path`` ends in a separator, ``.`` or ``..``.
        OSError: the file cannot be created, written, renamed or synced, or
            the destination is a FIFO, a socket or a device (EEXIST: it is
            never replaced).
        KeyboardInterrupt: Ctrl-C during the write (after the clean-up).

    """
    plan = _plan(tensors, metadata)
    replace_file(path, [plan.head, *plan.views])


def _plan(
    tensors: Mapping[str, Tensor | tuple[str, Sequence[int], BytesLike]],
    metadata: Mapping[str, str] | None,
) -> _Plan:
    if not isinstance(tensors, Mapping):
        raise TypeError(
            f"tensors must be a mapping of name to Tensor, got "
            f"{type(tensors).__name__}; pass a dict such as "
            "{'w': stspec.Tensor('F32', (2,), data)}"
        )
    parts: list[str] = []
    if metadata is not None:
        parts.append(f'"{METADATA_KEY}":{_metadata_json(metadata)}')
    entries = [_check_entry(name, value) for name, value in tensors.items()]
    # spec WRITE-CANONICAL: descending dtype declaration order, then the name;
    # str order is code-point order, which is UTF-8 byte order.
    entries.sort(key=lambda entry: (-RANK[entry.dtype], entry.name))
    begin = 0
    for entry in entries:
        end = begin + entry.view.nbytes
        shape = ",".join(map(str, entry.shape))
        parts.append(
            f'{_string(entry.name)}:{{"dtype":"{entry.dtype}","shape":[{shape}],'
            f'"data_offsets":[{begin},{end}]}}'
        )
        begin = end
    header = ("{" + ",".join(parts) + "}").encode("utf-8")
    # Pad with 0x20 so that 8 + N is a multiple of 8 (N itself, since 8 is).
    header += b" " * (-len(header) % _ALIGNMENT)
    if len(header) > MAX_HEADER_SIZE:
        raise SafetensorsError(
            "HEADER-LIMIT",
            None,
            f"header length {len(header)} exceeds the limit of {MAX_HEADER_SIZE}",
        )
    head = struct.pack("<Q", len(header)) + header
    return _Plan(head, [entry.view for entry in entries])


class _Entry(NamedTuple):
    name: str
    dtype: str
    shape: tuple[int, ...]
    view: memoryview


def _check_entry(name: object, value: object) -> _Entry:
    if not isinstance(name, str):
        raise TypeError(
            f"tensor names must be str, got {name!r} of type {type(name).__name__}; "
            "convert the key with str()"
        )
    if name == METADATA_KEY:
        raise SafetensorsError(
            "WRITE-RESERVED",
            None,
            f"tensor name {name!r} is reserved for the metadata; rename the tensor",
            (name,),
        )
    _check_scalars(name, (name,))
    if not isinstance(value, tuple) or len(value) != 3:
        raise TypeError(
            f"tensors[{name!r}] must be a Tensor(dtype, shape, data) or a 3-tuple, "
            f"got {type(value).__name__}"
        )
    dtype, shape, data = value
    if not isinstance(dtype, str) or dtype not in BITS:
        raise SafetensorsError(
            "DTYPE-NAME",
            None,
            f"dtype {dtype!r} is not one of the {len(BITS)} dtype names "
            "(case-sensitive, e.g. 'F32')",
            (name, "dtype"),
        )
    dims = _check_shape(name, shape)
    bits = bit_count(dtype, dims)
    if bits == OVERFLOW:
        raise SafetensorsError(
            "SIZE-OVERFLOW",
            None,
            f"shape {list(dims)} of {dtype} holds more than 2^64-1 bits",
            (name, "shape"),
        )
    if bits % 8:
        raise SafetensorsError(
            "SIZE-BITS",
            None,
            f"shape {list(dims)} of {dtype} is {bits} bits, not a whole number "
            "of bytes",
            (name, "shape"),
        )
    view = _as_bytes(name, data)
    if view.nbytes != bits // 8:
        raise SafetensorsError(
            "SIZE-MATCH",
            None,
            f"data of {view.nbytes} bytes does not match shape {list(dims)} of "
            f"{dtype}, which needs {bits // 8}",
            (name,),
        )
    return _Entry(name, dtype, dims, view)


def _check_shape(name: str, shape: object) -> tuple[int, ...]:
    if not isinstance(shape, (tuple, list)):
        raise SafetensorsError(
            "SHAPE-ARRAY",
            None,
            f"shape {shape!r} is not a list or tuple of integers",
            (name, "shape"),
        )
    return tuple(_check_dim(name, index, dim) for index, dim in enumerate(shape))


def _check_dim(name: str, index: int, dim: object) -> int:
    path: HeaderPath = (name, "shape", index)
    if isinstance(dim, float):
        raise SafetensorsError(
            "NUM-INTEGER", None, f"dimension {dim!r} is not an integer", path
        )
    value: int | None = None
    # bool is an int subclass, but it is a slip, and JSON true is no integer;
    # other integer types (numpy's) are welcome through __index__.
    if not isinstance(dim, bool):
        with contextlib.suppress(TypeError):
            value = operator.index(dim)  # type: ignore[arg-type]
    if value is None:
        raise SafetensorsError(
            "SHAPE-ARRAY", None, f"dimension {dim!r} is not an integer", path
        )
    if value < 0:
        raise SafetensorsError(
            "NUM-INTEGER", None, f"dimension {value} is negative", path
        )
    if value > U64_MAX:
        raise SafetensorsError(
            "NUM-RANGE", None, f"dimension {value} exceeds 2^64-1", path
        )
    return value


def _as_bytes(name: str, data: object) -> memoryview:
    try:
        view = memoryview(data)  # type: ignore[arg-type]
    except TypeError:
        raise TypeError(
            f"tensors[{name!r}].data must be a bytes-like object (bytes, "
            f"bytearray, memoryview, array), got {type(data).__name__}"
        ) from None
    if not view.nbytes:
        return memoryview(b"")  # cast() refuses views with a zero in the shape
    if view.c_contiguous:
        return view.cast("B")  # a flat byte view of the same memory: no copy
    # A strided buffer: its logical C-order bytes, copied (HF 0.8.0's numpy
    # writer writes the memory order instead, bug #825).
    return memoryview(view.tobytes())


def _metadata_json(metadata: object) -> str:
    if not isinstance(metadata, Mapping):
        raise TypeError(
            f"metadata must be None or a mapping of str to str, got "
            f"{type(metadata).__name__}"
        )
    members = []
    for key, value in metadata.items():
        path: HeaderPath = (
            (METADATA_KEY, key) if isinstance(key, str) else (METADATA_KEY,)
        )
        if not isinstance(key, str) or not isinstance(value, str):
            raise SafetensorsError(
                "META-STRING",
                None,
                f"metadata item {key!r}: {value!r} is not a pair of str; convert "
                "both to str",
                path,
            )
        _check_scalars(key, path)
        _check_scalars(value, path)
        members.append((key, value))
    # spec WRITE-CANONICAL: sorted keys (HF's order is a random HashMap's).
    members.sort()
    return "{" + ",".join(f"{_string(k)}:{_string(v)}" for k, v in members) + "}"


def _check_scalars(text: str, path: HeaderPath) -> None:
    if text.isascii():
        return
    try:
        text.encode("utf-8")
    except UnicodeEncodeError as exc:
        raise SafetensorsError(
            "JSON-SURROGATE",
            None,
            f"string {text!r} holds the lone surrogate "
            f"U+{ord(text[exc.start]):04X}, which UTF-8 cannot encode",
            path,
        ) from None


def _string(text: str) -> str:
    # json.dumps with ensure_ascii=False escapes exactly what serde_json does:
    # '"', '\\', \b \t \n \f \r and other controls as \u00xx (lowercase);
    # non-ASCII, '/' and DEL stay raw.  Verified against safetensors 0.8.0.
    return json.dumps(text, ensure_ascii=False)
