"""Valid files: the building blocks, this suite's own encoder, and :func:`valid_files`.

The encoder is independent of the implementation under test and of the
reference writer, so a bug in either cannot hide itself; only the dtype table
(names, bit widths) comes from the reference package.  Every strategy takes
the dtypes to draw from, so a reader that declares fewer dtypes is tested on
what it declares (see ``_capabilities``).
"""

from __future__ import annotations

import functools
import json
import math
import struct
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Final, TypeVar, cast

from hypothesis import strategies as st
from hypothesis.errors import InvalidArgument

from stspec.dtypes import BITS, DTYPES
from stspec_conformance._arguments import (
    check_choice,
    check_dtypes,
    check_flag,
    check_sizes,
)

__all__ = [
    "DTYPE_NAMES",
    "METADATA_KEY",
    "RawTensor",
    "ValidFile",
    "dtype_names",
    "edge_content",
    "encode",
    "metadata_maps",
    "metadata_text",
    "nbytes_of",
    "shapes",
    "tensor_names",
    "tensor_sets",
    "tensors",
    "valid_files",
]

DTYPE_NAMES: Final[tuple[str, ...]] = tuple(dt.name for dt in DTYPES)
METADATA_KEY: Final = "__metadata__"
RawTensor = tuple[str, tuple[int, ...], bytes]
T = TypeVar("T")
Draw = Callable[[st.SearchStrategy[object]], object]


# --- building blocks -------------------------------------------------------------


def dtype_names(*, only: Iterable[str] | None = None) -> st.SearchStrategy[str]:
    """Dtype names of the spec (all 22, or those in ``only``)."""
    return _dtype_names(check_dtypes("only", only))


@functools.cache
def _dtype_names(only: frozenset[str] | None) -> st.SearchStrategy[str]:
    names = DTYPE_NAMES if only is None else tuple(n for n in DTYPE_NAMES if n in only)
    return st.sampled_from(names)


def pick(options: tuple[T, ...]) -> st.SearchStrategy[T]:
    """One of ``options`` (the strategy is cached per tuple)."""
    return cast("st.SearchStrategy[T]", _sampled(options))


@functools.cache
def _sampled(options: tuple[object, ...]) -> st.SearchStrategy[object]:
    return st.sampled_from(options)


@functools.cache
def _exactly(size: int) -> st.SearchStrategy[bytes]:
    return st.binary(min_size=size, max_size=size)


def _fix_bits(dtype: str, dims: Sequence[int]) -> tuple[int, ...]:
    """Extend a shape so the bit count is a multiple of 8 (F4, F6)."""
    shape = tuple(dims)
    count = math.prod(shape)
    if count * BITS[dtype] % 8 == 0:
        return shape
    extra = next(k for k in range(2, 9) if count * k * BITS[dtype] % 8 == 0)
    return (*shape, extra)


def shapes(
    dtype: str, *, max_rank: int = 3, max_dim: int = 5
) -> st.SearchStrategy[tuple[int, ...]]:
    """Shapes whose bit count for ``dtype`` is a whole number of bytes.

    Rank 0 (one element) and zero dimensions (empty tensors) are included; a
    shape that would leave a partial byte (F4, F6) gets one more dimension.
    """
    check_choice("dtype", [dtype], DTYPE_NAMES, "dtype names")
    check_sizes(max_rank=max_rank, max_dim=max_dim)
    return _shapes(dtype, max_rank, max_dim)


@functools.cache
def _shapes(
    dtype: str, max_rank: int, max_dim: int
) -> st.SearchStrategy[tuple[int, ...]]:
    drawn = st.lists(st.integers(0, max_dim), max_size=max_rank).map(
        functools.partial(_fix_bits, dtype)
    )
    return st.one_of(drawn, drawn, drawn, _empty_high_rank(max_dim))


def _with_zero(dims: list[int], at: int) -> tuple[int, ...]:
    return tuple(0 if i == at % len(dims) else d for i, d in enumerate(dims))


@functools.cache
def _empty_high_rank(max_dim: int) -> st.SearchStrategy[tuple[int, ...]]:
    """Empty tensors of rank 4 to 6 (a reader may report them as ``[0]``)."""
    dims = st.lists(st.integers(0, max_dim), min_size=4, max_size=6)
    return st.builds(_with_zero, dims, st.integers(0, 5))


def nbytes_of(dtype: str, shape: Sequence[int]) -> int:
    """The byte size of a tensor (the shape must be byte-aligned)."""
    return math.prod(shape) * BITS[dtype] // 8


def tensors(
    *,
    dtypes: Iterable[str] | None = None,
    max_rank: int = 3,
    max_dim: int = 5,
) -> st.SearchStrategy[RawTensor]:
    """One tensor as ``(dtype, shape, raw bytes)``."""
    only = check_dtypes("dtypes", dtypes)
    check_sizes(max_rank=max_rank, max_dim=max_dim)
    return _tensors(dtypes=only, max_rank=max_rank, max_dim=max_dim)


@st.composite
def _tensors(
    draw: st.DrawFn,
    *,
    dtypes: frozenset[str] | None,
    max_rank: int,
    max_dim: int,
) -> RawTensor:
    dtype = draw(dtype_names(only=dtypes))
    shape = draw(shapes(dtype, max_rank=max_rank, max_dim=max_dim))
    raw = draw(_exactly(nbytes_of(dtype, shape)))
    # Mixed with a ramp, so the bytes are never all equal (hypothesis likes
    # zeros): byte-order and offset bugs always show.
    data = bytes((b + 37 * i + 11) % 256 for i, b in enumerate(raw))
    if dtype == "BOOL":
        # SPEC 6.1: BOOL bytes other than 0x00/0x01 are out of scope (a writer
        # may normalise them), so no strategy draws them
        data = bytes(b & 1 for b in data)
    return dtype, shape, data


def _not_reserved(name: str) -> bool:
    return name != METADATA_KEY


# Characters whose order differs between code points (the spec's order, UTF-8
# byte order) and UTF-16 code units (JavaScript's default sort): U+E000-U+FFFF
# sort after a surrogate pair in UTF-16, before it by code point.
ORDER_SEPARATING: Final = "a\ue000\uff21\ufffd\U00010000\U0001f600"


@functools.cache
def tensor_names() -> st.SearchStrategy[str]:
    """Tensor names: mostly ``layer.0.weight``-like, sometimes any Unicode.

    Some are drawn from characters that sort differently by UTF-16 code unit
    than by code point, so a writer's order is pinned down.
    """
    plain = st.text("abcdefghijklmnopqrstuvwxyz0123456789_.", min_size=1, max_size=12)
    anything = st.text(max_size=6)
    ordered = st.text(ORDER_SEPARATING, min_size=1, max_size=3)
    return st.one_of(plain, plain, anything, ordered).filter(_not_reserved)


def tensor_sets(
    *,
    dtypes: Iterable[str] | None = None,
    min_size: int = 0,
    max_size: int = 5,
    max_rank: int = 3,
    max_dim: int = 5,
) -> st.SearchStrategy[dict[str, RawTensor]]:
    """A mapping ``name -> (dtype, shape, bytes)`` with distinct names."""
    only = check_dtypes("dtypes", dtypes)
    check_sizes(
        min_size=min_size, max_size=max_size, max_rank=max_rank, max_dim=max_dim
    )
    return _tensor_sets(only, min_size, max_size, max_rank, max_dim)


@functools.cache
def _tensor_sets(
    only: frozenset[str] | None,
    min_size: int,
    max_size: int,
    max_rank: int,
    max_dim: int,
) -> st.SearchStrategy[dict[str, RawTensor]]:
    return st.dictionaries(
        tensor_names(),
        tensors(dtypes=only, max_rank=max_rank, max_dim=max_dim),
        min_size=min_size,
        max_size=max_size,
    )


def metadata_maps(
    *, max_size: int = 3, empty: bool = True
) -> st.SearchStrategy[dict[str, str] | None]:
    """None, or a ``__metadata__`` map of strings.

    ``empty=False`` never draws ``{}``: for readers that do not tell an
    absent ``__metadata__`` from an empty one (``metadata_presence`` false).
    """
    check_sizes(max_size=max_size)
    check_flag("empty", empty)
    if not empty and max_size == 0:
        msg = "metadata_maps(max_size=0, empty=False) leaves only None to draw"
        raise InvalidArgument(msg)
    return _metadata_maps(max_size, empty)


@functools.cache
def _metadata_maps(
    max_size: int, empty: bool
) -> st.SearchStrategy[dict[str, str] | None]:
    maps = st.builds(
        _with_twins,
        st.dictionaries(
            metadata_text(),
            metadata_text(),
            min_size=0 if empty else 1,
            max_size=max_size,
        ),
        st.sampled_from((0, 0, 0, 1)),
        metadata_text(),
        st.just(max_size),
    )
    return st.one_of(st.none(), maps)


# Values a reader might "clean": line endings (CR LF, CR, LF), other
# whitespace at either end, U+2028, NUL.
AWKWARD_TEXT: Final = (
    "a\r\nb",
    "\r\n",
    "a\rb",
    "x\n",
    " lead",
    "trail\t",
    "\u2028\u00a0",
    "\x00",
)
# Metadata keys equal only after Unicode normalisation (NFC, NFD, NFKC):
# distinct keys a reader must keep apart.
NORMALISATION_TWINS: Final = (("\u00e9", "e\u0301"), ("\u212b", "\u00c5"))


@functools.cache
def metadata_text() -> st.SearchStrategy[str]:
    """Metadata keys and values: any short text, often awkward whitespace."""
    return st.one_of(st.text(max_size=8), pick(AWKWARD_TEXT))


def _with_twins(
    drawn: dict[str, str], twins: int, value: str, max_size: int
) -> dict[str, str]:
    """Add a pair of keys that differ only in Unicode normalisation (size allowing)."""
    if not twins or len(drawn) + 2 > max_size:
        return drawn
    first, second = NORMALISATION_TWINS[len(drawn) % len(NORMALISATION_TWINS)]
    return {**drawn, first: value, second: value + "\r\n"}


def edge_content(
    dtypes: Iterable[str] | None = None,
) -> tuple[dict[str, RawTensor], dict[str, str]]:
    """Tensors and metadata that random draws reach only rarely.

    For explicit examples, so every run has them: a tensor of every one of
    ``dtypes`` (default: all 22), CR LF and other whitespace in metadata
    values, metadata keys and tensor names equal only after Unicode
    normalisation or case folding, empty tensors of rank 4 and 6, and names
    inserted out of order, two of which sort one way by code point and the
    other by UTF-16 code unit.
    """
    names = [n for n in DTYPE_NAMES if dtypes is None or n in set(dtypes)]
    first = "U8" if "U8" in names else names[0]
    tensors = {
        "z.empty4": (first, (2, 0, 3, 1), b""),
        "\uff21": _edge_tensor(first, 5),
        "\U0001f600": _edge_tensor(first, 6),
        "a.empty6": (first, (1, 1, 1, 1, 1, 0), b""),
    }
    tensors.update({name.lower(): _edge_tensor(name, 7) for name in names})
    # tensor names a writer keeping NFC-normalised or case-folded keys merges
    for index, (composed, decomposed) in enumerate(NORMALISATION_TWINS):
        tensors[composed] = _edge_tensor(first, 11 + index)
        tensors[decomposed] = _edge_tensor(first, 13 + index)
    tensors["Twin.W"] = _edge_tensor(first, 17)
    tensors["twin.w"] = _edge_tensor(first, 19)
    metadata = {
        "crlf": "line 1\r\nline 2\r\n",
        "cr": "a\rb",
        "spaces": " \t both ends \t ",
        **{composed: "composed" for composed, _ in NORMALISATION_TWINS},
        **{decomposed: "decomposed" for _, decomposed in NORMALISATION_TWINS},
    }
    return tensors, metadata


def _edge_tensor(dtype: str, seed: int) -> RawTensor:
    shape = _fix_bits(dtype, (4,))
    modulus = 2 if dtype == "BOOL" else 256
    data = bytes((seed + 3 * i) % modulus for i in range(nbytes_of(dtype, shape)))
    return dtype, shape, data


# --- the model-side encoder ---------------------------------------------------------


@dataclass(slots=True)
class Entry:
    """One header member, as JSON text pieces a corruption may edit."""

    key: str  # the member name as JSON text (quoted, maybe escaped)
    fields: list[tuple[str, str]]  # (field name text, value text) in order
    raw: str | None = None  # the whole value as text (overrides fields)

    def render(self, sep: str) -> str:
        value = self.raw
        if value is None:
            value = "{" + ",".join(f"{k}:{sep}{v}" for k, v in self.fields) + "}"
        return f"{self.key}:{sep}{value}"


@dataclass(slots=True)
class Layout:
    """A file before it is turned into bytes."""

    members: list[Entry]
    buffer: bytes
    sep: str = ""
    before: str = ""  # text before `{` (only tolerated variants use it)
    after: str = ""  # text between `}` and the padding
    padding: int = 0
    padding_char: str = " "

    def header(self) -> bytes:
        body = ("," + self.sep).join(m.render(self.sep) for m in self.members)
        text = f"{self.before}{{{self.sep}{body}{self.sep}}}{self.after}"
        return text.encode("utf-8", "surrogatepass")

    def assemble(self, header: bytes | None = None) -> bytes:
        head = self.header() if header is None else header
        head += (self.padding_char * self.padding).encode()
        return struct.pack("<Q", len(head)) + head + self.buffer


def _json_string(text: str, *, ascii_only: bool) -> str:
    return json.dumps(text, ensure_ascii=ascii_only)


def member(
    name: str,
    dtype: str,
    shape: Sequence[int],
    begin: int,
    end: int,
    *,
    ascii_only: bool = False,
    order: Sequence[int] = (0, 1, 2),
) -> Entry:
    """A tensor's header member (fields in ``order``: dtype, shape, offsets)."""
    fields = [
        ('"dtype"', json.dumps(dtype)),
        ('"shape"', json.dumps(list(shape), separators=(",", ":"))),
        ('"data_offsets"', json.dumps([begin, end], separators=(",", ":"))),
    ]
    return Entry(_json_string(name, ascii_only=ascii_only), [fields[i] for i in order])


def encode(
    tensors: Mapping[str, tuple[str, Sequence[int], bytes]],
    metadata: Mapping[str, str] | None = None,
    *,
    member_order: Sequence[str] | None = None,
    data_order: Sequence[str] | None = None,
    metadata_position: int = 0,
    whitespace: str = "",
    padding: int | None = None,
) -> bytes:
    """Encode a valid file with this module's own encoder.

    ``member_order`` and ``data_order`` are permutations of the names (header
    order and byte-buffer order, independent of each other);
    ``metadata_position`` is the index of ``__metadata__`` among the members;
    ``whitespace`` goes between JSON tokens; ``padding`` is the number of
    0x20 bytes after the object (default: pad 8 + N to a multiple of 8).
    """
    return _layout(
        tensors,
        metadata,
        member_order=member_order,
        data_order=data_order,
        metadata_position=metadata_position,
        whitespace=whitespace,
        padding=padding,
    ).assemble()


def _layout(
    tensors: Mapping[str, tuple[str, Sequence[int], bytes]],
    metadata: Mapping[str, str] | None,
    *,
    member_order: Sequence[str] | None = None,
    data_order: Sequence[str] | None = None,
    metadata_position: int = 0,
    whitespace: str = "",
    padding: int | None = None,
    ascii_names: bool = False,
    field_orders: Mapping[str, Sequence[int]] | None = None,
) -> Layout:
    names = list(tensors)
    offsets: dict[str, tuple[int, int]] = {}
    buffer = bytearray()
    for name in data_order or names:
        data = bytes(tensors[name][2])
        offsets[name] = (len(buffer), len(buffer) + len(data))
        buffer += data
    members = [
        member(
            name,
            tensors[name][0],
            tensors[name][1],
            *offsets[name],
            ascii_only=ascii_names,
            order=(field_orders or {}).get(name, (0, 1, 2)),
        )
        for name in (member_order or names)
    ]
    if metadata is not None:
        text = ",".join(
            _json_string(k, ascii_only=ascii_names)
            + ":"
            + _json_string(v, ascii_only=ascii_names)
            for k, v in metadata.items()
        )
        position = max(0, min(metadata_position, len(members)))
        members.insert(
            position, Entry(json.dumps(METADATA_KEY), [], raw="{" + text + "}")
        )
    layout = Layout(members, bytes(buffer), sep=whitespace)
    if padding is None:
        padding = -(8 + len(layout.header())) % 8
    layout.padding = padding
    return layout


def clip(data: bytes, limit: int = 400) -> str:
    """The repr of the start of ``data`` (failure reports stay short)."""
    text = repr(data[:limit])
    return text + (f"... ({len(data)} bytes)" if len(data) > limit else "")


# --- valid files ----------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class ValidFile:
    """A file and what an accepting reader must return for it."""

    data: bytes
    tensors: dict[str, RawTensor]
    metadata: dict[str, str] | None
    kind: str = "valid"
    rule: str | None = None  # for tolerated variants: the MAY rule it uses

    def __repr__(self) -> str:
        """Short enough for hypothesis' failure reports."""
        shapes = {name: (t[0], list(t[1])) for name, t in self.tensors.items()}
        return (
            f"ValidFile(kind={self.kind!r}, "
            f"tensors={shapes}, metadata={self.metadata!r}, "
            f"data={clip(self.data)})"
        )

    def _repr_pretty_(self, printer: Any, cycle: bool) -> None:  # noqa: ANN401
        """Hypothesis' pretty printer would print every field (files can be 200 kB)."""
        del cycle
        printer.text(repr(self))


@dataclass(slots=True)
class Drawn:
    """A drawn file in pieces a corruption may still edit."""

    tensors: dict[str, RawTensor]
    metadata: dict[str, str] | None
    layout: Layout
    names_in_data_order: list[str] = field(default_factory=list)
    # the dtypes the reader declares (None: all); faults prefer these
    allowed: frozenset[str] | None = None
    # dtypes a fault wrote into the header beyond those of ``tensors``
    extra_dtypes: set[str] = field(default_factory=set)
    # metadata members (JSON text, each followed by a comma) a fault that
    # rewrites ``__metadata__`` keeps before its own key (late faults)
    filler_meta: str = ""


@st.composite
def drawn_parts(
    draw: st.DrawFn,
    *,
    dtypes: Iterable[str] | None = None,
    min_tensors: int = 0,
    max_tensors: int = 5,
    with_metadata: bool | None = None,
    plain: bool = False,
    empty_metadata: bool = True,
) -> Drawn:
    """Tensors, metadata and a layout (orders, whitespace, padding) to encode."""
    tensors_ = draw(
        tensor_sets(dtypes=dtypes, min_size=min_tensors, max_size=max_tensors)
    )
    if with_metadata is None:
        metadata = draw(metadata_maps(empty=empty_metadata))
    elif with_metadata:
        metadata = draw(
            st.dictionaries(
                metadata_text(),
                metadata_text(),
                min_size=0 if empty_metadata else 1,
                max_size=3,
            )
        )
    else:
        metadata = None
    names = list(tensors_)
    if plain:
        member_order, data_order = names, names
        sep, ascii_names, metadata_position, extra = "", False, 0, None
        field_orders: dict[str, Sequence[int]] = {}
    else:
        member_order = draw(st.permutations(names))
        data_order = draw(st.permutations(names))
        sep = draw(pick(("", "", " ", "\n")))
        ascii_names = draw(st.booleans())
        metadata_position = draw(st.integers(0, len(names)))
        extra = draw(pick((None, None, 0, 8, 13)))
        field_orders = {
            name: draw(st.permutations([0, 1, 2]))
            for name in names
            if draw(st.booleans())
        }
    layout = _layout(
        tensors_,
        metadata,
        member_order=member_order,
        data_order=data_order,
        metadata_position=metadata_position,
        whitespace=sep,
        ascii_names=ascii_names,
        field_orders=field_orders,
    )
    if extra is not None:
        layout.padding += extra
    only = None if dtypes is None else frozenset(dtypes)
    return Drawn(tensors_, metadata, layout, list(data_order), only)


def valid_files(
    *,
    dtypes: Iterable[str] | None = None,
    min_tensors: int = 0,
    max_tensors: int = 5,
    empty_metadata: bool = True,
) -> st.SearchStrategy[ValidFile]:
    """Random valid files of ``dtypes`` (default: all 22).

    ``empty_metadata=False`` never draws ``"__metadata__": {}`` (see
    :func:`metadata_maps`).  See ``strategies`` for what else varies.
    """
    only = check_dtypes("dtypes", dtypes)
    check_sizes(min_tensors=min_tensors, max_tensors=max_tensors)
    check_flag("empty_metadata", empty_metadata)
    return drawn_parts(
        dtypes=only,
        min_tensors=min_tensors,
        max_tensors=max_tensors,
        empty_metadata=empty_metadata,
    ).map(_valid_file)


def _valid_file(drawn: Drawn) -> ValidFile:
    return ValidFile(drawn.layout.assemble(), drawn.tensors, drawn.metadata)
