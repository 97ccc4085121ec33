"""From parsed JSON members to tensor entries: structure, dtypes and sizes."""

from __future__ import annotations

from array import array
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Final, NamedTuple

from stspec._dtypes import BITS, DTYPES, OVERFLOW, RANK, bit_count
from stspec._json import Number, Path
from stspec._rules import U64_MAX

METADATA_KEY: Final = "__metadata__"
FIELDS: Final = frozenset(("dtype", "shape", "data_offsets"))


class TensorInfo(NamedTuple):
    """One tensor entry of a valid header.

    ``begin`` and ``end`` are offsets into the byte buffer, which starts right
    after the header (spec: offsets are relative to the buffer, not the file).
    """

    name: str
    dtype: str
    shape: tuple[int, ...]
    begin: int
    end: int

    @property
    def nbytes(self) -> int:
        """The tensor's size in bytes."""
        return self.end - self.begin


class TensorTable(Mapping[str, TensorInfo]):
    """The tensors of a valid file by name, in file order.

    The entries are packed into flat arrays and become TensorInfo objects only
    when looked up.  Beyond saving memory, this keeps the garbage collector
    from walking a million small containers after a large header is opened:
    arrays of integers are a handful of objects it never has to look into.
    """

    __slots__ = ("_codes", "_dims", "_index", "_offsets", "_starts")

    def __init__(self) -> None:
        self._index: dict[str, int] = {}
        self._codes = bytearray()  # position of the dtype in DTYPES
        self._offsets = array("Q")  # begin, end of each tensor
        self._dims = array("Q")  # every tensor's shape, one after another
        self._starts = array("Q", [0])  # where each tensor's shape begins in _dims

    @property
    def columns(
        self,
    ) -> tuple[dict[str, int], bytearray, array[int], array[int], array[int]]:
        """The raw storage, for a loop that fills it faster than :meth:`add`.

        In order: name -> position, dtype codes (index into DTYPES), begin/end
        pairs, all dimensions, and where each tensor's dimensions begin.
        """
        return self._index, self._codes, self._offsets, self._dims, self._starts

    def add(
        self, name: str, dtype: str, shape: Iterable[int], begin: int, end: int
    ) -> None:
        """Append one checked entry (names are unique; the caller checked)."""
        self._index[name] = len(self._codes)
        self._codes.append(RANK[dtype])
        self._offsets.append(begin)
        self._offsets.append(end)
        self._dims.extend(shape)
        self._starts.append(len(self._dims))

    def __getitem__(self, name: str) -> TensorInfo:
        position = self._index[name]
        shape = self._dims[self._starts[position] : self._starts[position + 1]]
        return TensorInfo(
            name,
            DTYPES[self._codes[position]].name,
            tuple(shape),
            self._offsets[2 * position],
            self._offsets[2 * position + 1],
        )

    def __iter__(self) -> Iterator[str]:
        return iter(self._index)

    def __len__(self) -> int:
        return len(self._index)

    def __contains__(self, name: object) -> bool:
        return name in self._index

    def __repr__(self) -> str:
        return f"TensorTable({list(self.values())!r})"


@dataclass(frozen=True, slots=True)
class Finding:
    """A rule violation found after parsing, located by header path or offset.

    ``path`` addresses top-level members by index, e.g. ``(3, "shape", 0)``;
    ``at`` is an absolute file offset for facts about the byte buffer.
    """

    rule: str
    msg: str
    path: Path = ()
    at: int | None = None


@dataclass(slots=True)
class Header:
    """The checked header: metadata, the usable entries and what is wrong."""

    metadata: dict[str, str] | None = None
    tensors: list[TensorInfo] = field(default_factory=list)
    # Member index of each entry in ``tensors`` (for locating layout faults).
    indices: list[int] = field(default_factory=list)
    findings: list[Finding] = field(default_factory=list)
    # False when some entry has no usable data_offsets: holes and overlaps
    # are then meaningless, so the layout rules are not evaluated.
    layout_ready: bool = True


def check_members(members: list[tuple[str, object]]) -> Header:
    """Check every top-level member; return the entries and the findings."""
    header = Header()
    for index, (name, entry) in enumerate(members):
        if name == METADATA_KEY:
            _check_metadata(header, index, entry)
        else:
            _check_entry(header, index, name, entry)
    return header


def _check_metadata(header: Header, index: int, value: object) -> None:
    if value is None:
        header.findings.append(
            Finding("META-NULL", "__metadata__ is null, expected an object", (index,))
        )
        return
    if type(value) is not dict:
        header.findings.append(
            Finding(
                "META-OBJECT",
                f"__metadata__ is {_kind(value)}, expected an object of strings",
                (index,),
            )
        )
        return
    metadata: dict[str, str] = {}
    for key, item in value.items():
        if type(item) is str:
            metadata[key] = item
        else:
            header.findings.append(
                Finding(
                    "META-STRING",
                    f"metadata value for {key!r} is {_kind(item)}, expected a string",
                    (index, key),
                )
            )
    if header.metadata is None:
        header.metadata = metadata


def _check_entry(header: Header, index: int, name: str, entry: object) -> None:
    """Report every fault of one entry; keep what is usable for later steps."""
    findings = header.findings
    if type(entry) is not dict:
        findings.append(
            Finding(
                "ENTRY-OBJECT",
                f"tensor {name!r} is {_kind(entry)}, expected an object with dtype, "
                "shape and data_offsets",
                (index,),
            )
        )
        header.layout_ready = False
        return
    missing = [key for key in ("dtype", "shape", "data_offsets") if key not in entry]
    if missing:
        findings.append(
            Finding(
                "ENTRY-FIELDS",
                f"tensor {name!r} lacks {', '.join(missing)}",
                (index,),
            )
        )
    findings.extend(
        Finding(
            "ENTRY-UNKNOWN",
            f"tensor {name!r} has unknown member {key!r}, expected only dtype, "
            "shape and data_offsets",
            (index, key),
        )
        for key in entry
        if key not in FIELDS
    )
    dtype = _check_dtype(findings, index, entry)
    shape = _check_shape(findings, index, entry)
    offsets = _check_offsets(findings, index, entry)
    if offsets is None:
        header.layout_ready = False
        return
    begin, end = offsets
    low, high = min(begin, end), max(begin, end)
    if begin > end:
        findings.append(
            Finding(
                "OFFSETS-ORDER",
                f"data_offsets begin {begin} exceeds end {end}",
                (index, "data_offsets"),
            )
        )
    if dtype is not None and shape is not None:
        _check_size(findings, index, dtype, shape, high - low)
    # The entry still claims bytes [low, high): keeping it in the tiling means
    # one fault in an entry does not also show up as a hole.
    header.tensors.append(TensorInfo(name, dtype or "", shape or (), low, high))
    header.indices.append(index)


def _check_dtype(
    findings: list[Finding], index: int, entry: dict[str, object]
) -> str | None:
    if "dtype" not in entry:
        return None
    dtype = entry["dtype"]
    if type(dtype) is str and dtype in BITS:
        return dtype
    shown = repr(dtype) if type(dtype) is str else _kind(dtype)
    findings.append(
        Finding(
            "DTYPE-NAME",
            f"dtype {shown} is not one of the 22 dtype names",
            (index, "dtype"),
        )
    )
    return None


def _check_shape(
    findings: list[Finding], index: int, entry: dict[str, object]
) -> tuple[int, ...] | None:
    if "shape" not in entry:
        return None
    shape = entry["shape"]
    if type(shape) is not list:
        findings.append(
            Finding(
                "SHAPE-ARRAY",
                f"shape is {_kind(shape)}, expected an array of integers",
                (index, "shape"),
            )
        )
        return None
    dims = [
        _check_u64(findings, "SHAPE-ARRAY", (index, "shape", position), value)
        for position, value in enumerate(shape)
    ]
    if any(dim is None for dim in dims):
        return None
    return tuple(dim for dim in dims if dim is not None)


def _check_offsets(
    findings: list[Finding], index: int, entry: dict[str, object]
) -> tuple[int, int] | None:
    if "data_offsets" not in entry:
        return None
    offsets = entry["data_offsets"]
    if type(offsets) is not list or len(offsets) != 2:
        shown = (
            f"an array of {len(offsets)}" if type(offsets) is list else _kind(offsets)
        )
        findings.append(
            Finding(
                "OFFSETS-PAIR",
                f"data_offsets is {shown}, expected an array of two integers",
                (index, "data_offsets"),
            )
        )
        return None
    begin = _check_u64(findings, "OFFSETS-PAIR", (index, "data_offsets", 0), offsets[0])
    end = _check_u64(findings, "OFFSETS-PAIR", (index, "data_offsets", 1), offsets[1])
    if begin is None or end is None:
        return None
    return begin, end


def _check_u64(
    findings: list[Finding], type_rule: str, path: Path, value: object
) -> int | None:
    """Return ``value`` if it is an integer token in 0..2^64-1, else report it."""
    if type(value) is int:
        if 0 <= value <= U64_MAX:
            return value
        # Only the fast JSON path yields negative ints; the strict parser
        # keeps signed tokens as Number.
        rule = "NUM-RANGE" if value > U64_MAX else "NUM-INTEGER"
        shown = (
            str(value)
            if value.bit_length() < 128
            else f"a {len(str(value))}-digit integer"
        )
        findings.append(Finding(rule, f"{shown} is not an integer in 0..2^64-1", path))
        return None
    if isinstance(value, Number):
        if value.is_integer_token:
            digits = len(value.token)
            shown = value.token if digits <= 40 else f"a {digits}-digit integer"
            findings.append(Finding("NUM-RANGE", f"{shown} exceeds 2^64-1", path))
        else:
            findings.append(
                Finding(
                    "NUM-INTEGER",
                    f"number {value.token[:40]} is not a plain non-negative integer",
                    path,
                )
            )
        return None
    findings.append(
        Finding(type_rule, f"element is {_kind(value)}, expected an integer", path)
    )
    return None


def _check_size(
    findings: list[Finding], index: int, dtype: str, shape: tuple[int, ...], nbytes: int
) -> None:
    bits = bit_count(dtype, shape)
    if bits == OVERFLOW:
        findings.append(
            Finding(
                "SIZE-OVERFLOW",
                f"{dtype} tensor of shape {_short(shape)} needs more than 2^64-1 bits",
                (index, "shape"),
            )
        )
    elif bits % 8:
        findings.append(
            Finding(
                "SIZE-BITS",
                f"{dtype} tensor of shape {_short(shape)} holds {bits} bits, "
                "expected a multiple of 8",
                (index, "shape"),
            )
        )
    elif bits // 8 != nbytes:
        findings.append(
            Finding(
                "SIZE-MATCH",
                f"data_offsets span {nbytes} bytes, expected {bits // 8} for "
                f"{dtype} {_short(shape)}",
                (index, "data_offsets"),
            )
        )


def _short(shape: tuple[int, ...]) -> str:
    text = str(list(shape))
    return text if len(text) <= 80 else text[:77] + "..."


def _kind(value: object) -> str:
    """Name a JSON value's type the way the spec does."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, (int, Number)):
        return "a number"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, list):
        return "an array"
    return "an object"
