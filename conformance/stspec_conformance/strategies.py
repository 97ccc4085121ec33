"""Hypothesis strategies for safetensors files, for this suite and for implementers.

Everything here builds files with its own small encoder (:func:`encode`), not
with the implementation under test and not with the reference writer, so a
bug in either cannot hide itself.  The only thing taken from the reference
package is its dtype table (names and bit widths).

Valid files
    :func:`valid_files` draws a :class:`ValidFile`: random tensors of all 22
    dtypes (empty and rank-0 ones included), optional metadata, and the
    freedoms the format allows (member order, field order, data order
    independent of header order, escaped names, whitespace between tokens,
    extra 0x20 padding).

Single-fault corruptions
    :func:`corruptions` draws a :class:`Corruption`: a valid file changed in
    exactly one way that breaks exactly one MUST rule, with that rule's id
    (what the strict reference reports).  :data:`CORRUPTION_KINDS` lists the
    kinds, spelt ``RULE/what``.

Tolerated variants
    :func:`tolerated_variants` draws a :class:`ValidFile` that breaks only MAY
    rules (leading whitespace, tab/newline padding, unknown entry fields,
    ``"__metadata__": null``); a reader may reject it, or must load it as
    ``tensors``/``metadata`` say.

Example::

    from hypothesis import given
    from stspec_conformance import strategies as sts

    @given(sts.valid_files())
    def test_loads(case):
        assert my_reader.loads(case.data) == case.tensors
"""

from __future__ import annotations

import functools
import json
import math
import struct
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Final, TypeVar, cast

from hypothesis import strategies as st

from stspec._dtypes import BITS, DTYPES

__all__ = [
    "CORRUPTION_KINDS",
    "DTYPE_NAMES",
    "TOLERATED_KINDS",
    "Corruption",
    "RawTensor",
    "ValidFile",
    "corruptions",
    "dtype_names",
    "encode",
    "metadata_maps",
    "shapes",
    "tensor_names",
    "tensor_sets",
    "tensors",
    "tolerated_variants",
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
    return _dtype_names(None if only is None else frozenset(only))


@functools.cache
def _dtype_names(only: frozenset[str] | None) -> st.SearchStrategy[str]:
    names = DTYPE_NAMES if only is None else tuple(n for n in DTYPE_NAMES if n in only)
    return st.sampled_from(names)


def _pick(options: tuple[T, ...]) -> st.SearchStrategy[T]:
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
    return _shapes(dtype, max_rank, max_dim)


@functools.cache
def _shapes(
    dtype: str, max_rank: int, max_dim: int
) -> st.SearchStrategy[tuple[int, ...]]:
    return st.lists(st.integers(0, max_dim), max_size=max_rank).map(
        functools.partial(_fix_bits, dtype)
    )


def nbytes_of(dtype: str, shape: Sequence[int]) -> int:
    """The byte size of a tensor (the shape must be byte-aligned)."""
    return math.prod(shape) * BITS[dtype] // 8


@st.composite
def tensors(
    draw: st.DrawFn,
    *,
    dtypes: Iterable[str] | None = None,
    max_rank: int = 3,
    max_dim: int = 5,
) -> RawTensor:
    """One tensor as ``(dtype, shape, raw bytes)``."""
    dtype = draw(dtype_names(only=dtypes))
    shape = draw(shapes(dtype, max_rank=max_rank, max_dim=max_dim))
    raw = draw(_exactly(nbytes_of(dtype, shape)))
    # Mixed with a ramp, so the bytes are never all equal (hypothesis likes
    # zeros): byte-order and offset bugs always show.
    return dtype, shape, bytes((b + 37 * i + 11) % 256 for i, b in enumerate(raw))


def _not_reserved(name: str) -> bool:
    return name != METADATA_KEY


@functools.cache
def tensor_names() -> st.SearchStrategy[str]:
    """Tensor names: mostly ``layer.0.weight``-like, sometimes any Unicode."""
    plain = st.text("abcdefghijklmnopqrstuvwxyz0123456789_.", min_size=1, max_size=12)
    anything = st.text(max_size=6)
    return st.one_of(plain, plain, anything).filter(_not_reserved)


def tensor_sets(
    *,
    dtypes: Iterable[str] | None = None,
    min_size: int = 0,
    max_size: int = 5,
    max_rank: int = 3,
    max_dim: int = 5,
) -> st.SearchStrategy[dict[str, RawTensor]]:
    """A mapping ``name -> (dtype, shape, bytes)`` with distinct names."""
    only = None if dtypes is None else frozenset(dtypes)
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


@functools.cache
def metadata_maps(*, max_size: int = 3) -> st.SearchStrategy[dict[str, str] | None]:
    """None, or a ``__metadata__`` map of strings."""
    text = st.text(max_size=8)
    return st.one_of(st.none(), st.dictionaries(text, text, max_size=max_size))


# --- the model-side encoder ---------------------------------------------------------


@dataclass(slots=True)
class _Entry:
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
class _Layout:
    """A file before it is turned into bytes."""

    members: list[_Entry]
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


def _entry(
    name: str,
    dtype: str,
    shape: Sequence[int],
    begin: int,
    end: int,
    *,
    ascii_only: bool = False,
    order: Sequence[int] = (0, 1, 2),
) -> _Entry:
    fields = [
        ('"dtype"', json.dumps(dtype)),
        ('"shape"', json.dumps(list(shape), separators=(",", ":"))),
        ('"data_offsets"', json.dumps([begin, end], separators=(",", ":"))),
    ]
    return _Entry(_json_string(name, ascii_only=ascii_only), [fields[i] for i in order])


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
) -> _Layout:
    names = list(tensors)
    offsets: dict[str, tuple[int, int]] = {}
    buffer = bytearray()
    for name in data_order or names:
        data = bytes(tensors[name][2])
        offsets[name] = (len(buffer), len(buffer) + len(data))
        buffer += data
    members = [
        _entry(
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
            position, _Entry(json.dumps(METADATA_KEY), [], raw="{" + text + "}")
        )
    layout = _Layout(members, bytes(buffer), sep=whitespace)
    if padding is None:
        padding = -(8 + len(layout.header())) % 8
    layout.padding = padding
    return layout


def _clip(data: bytes, limit: int = 400) -> str:
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
            f"data={_clip(self.data)})"
        )


@dataclass(slots=True)
class _Drawn:
    tensors: dict[str, RawTensor]
    metadata: dict[str, str] | None
    layout: _Layout
    names_in_data_order: list[str] = field(default_factory=list)


@st.composite
def _drawn(
    draw: st.DrawFn,
    *,
    dtypes: Iterable[str] | None = None,
    min_tensors: int = 0,
    max_tensors: int = 5,
    with_metadata: bool | None = None,
    plain: bool = False,
) -> _Drawn:
    tensors_ = draw(
        tensor_sets(dtypes=dtypes, min_size=min_tensors, max_size=max_tensors)
    )
    if with_metadata is None:
        metadata = draw(metadata_maps())
    elif with_metadata:
        metadata = draw(
            st.dictionaries(st.text(max_size=8), st.text(max_size=8), max_size=3)
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
        sep = draw(_pick(("", "", " ", "\n")))
        ascii_names = draw(st.booleans())
        metadata_position = draw(st.integers(0, len(names)))
        extra = draw(_pick((None, None, 0, 8, 13)))
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
    return _Drawn(tensors_, metadata, layout, list(data_order))


def valid_files(
    *,
    dtypes: Iterable[str] | None = None,
    min_tensors: int = 0,
    max_tensors: int = 5,
) -> st.SearchStrategy[ValidFile]:
    """Random valid files (see the module docstring for what varies)."""
    return _drawn(dtypes=dtypes, min_tensors=min_tensors, max_tensors=max_tensors).map(
        _valid_file
    )


def _valid_file(drawn: _Drawn) -> ValidFile:
    return ValidFile(drawn.layout.assemble(), drawn.tensors, drawn.metadata)


# --- single-fault corruptions ---------------------------------------------------


@dataclass(frozen=True, slots=True)
class Corruption:
    """A file with one fault, the MUST rule it breaks, and what was done."""

    data: bytes
    rule: str
    kind: str
    description: str

    def __repr__(self) -> str:
        """Short enough for hypothesis' failure reports (files can be 200 kB)."""
        return (
            f"Corruption(kind={self.kind!r}, description={self.description!r}, "
            f"data={_clip(self.data)})"
        )


def _unique(drawn: _Drawn, stem: str) -> str:
    taken = set(drawn.tensors)
    index = 0
    while f"{stem}{index}" in taken:
        index += 1
    return f"{stem}{index}"


def _append_tensor(
    drawn: _Drawn,
    dtype: str,
    shape: Sequence[int],
    data: bytes,
    *,
    begin: int | None = None,
) -> _Entry:
    """Add a tensor at the end of the buffer (or at ``begin``) and the header."""
    name = _unique(drawn, "w")
    start = len(drawn.layout.buffer) if begin is None else begin
    entry = _entry(name, dtype, shape, start, start + len(data))
    if begin is None:
        drawn.layout.buffer += data
    drawn.layout.members.append(entry)
    drawn.tensors[name] = (dtype, tuple(shape), data)
    return entry


def _field(entry: _Entry, name: str) -> int:
    return next(i for i, (k, _) in enumerate(entry.fields) if k == f'"{name}"')


def _set_field(entry: _Entry, name: str, value: str) -> None:
    entry.fields[_field(entry, name)] = (f'"{name}"', value)


def _repad(layout: _Layout, header: bytes | None = None) -> bytes:
    head = layout.header() if header is None else header
    layout.padding = -(8 + len(head)) % 8
    return layout.assemble(head)


_Fault = Callable[[st.DrawFn, _Drawn], tuple[bytes, str]]
_FAULTS: dict[str, _Fault] = {}


def _fault(kind: str) -> Callable[[_Fault], _Fault]:
    def register(function: _Fault) -> _Fault:
        _FAULTS[kind] = function
        return function

    return register


@_fault("FILE-PREFIX/short-file")
def _short(draw: st.DrawFn, d: _Drawn) -> tuple[bytes, str]:
    size = draw(st.integers(0, 7))
    return d.layout.assemble()[:size], f"the file is {size} bytes long"


@_fault("HEADER-BOUNDS/n-past-end")
def _past_end(draw: st.DrawFn, d: _Drawn) -> tuple[bytes, str]:
    data = bytearray(d.layout.assemble())
    n = len(data) - 8 + draw(st.sampled_from([1, 2, 1000, 99_999_999 - len(data)]))
    data[:8] = struct.pack("<Q", n)
    return bytes(data), f"N = {n} reaches past the end of the file"


@_fault("HEADER-UTF8/invalid-bytes")
def _bad_utf8(draw: st.DrawFn, d: _Drawn) -> tuple[bytes, str]:
    bad = draw(_pick((b"\xff", b"\xc0\xaf", b"\xed\xa0\x80", b"\xe2\x82", b"\x80")))
    d.layout.members = [
        m for m in d.layout.members if m.key != json.dumps(METADATA_KEY)
    ]
    d.layout.members.insert(
        0, _Entry(json.dumps(METADATA_KEY), [], raw='{"k":"@@BAD@@"}')
    )
    header = d.layout.header().replace(b"@@BAD@@", b"x" + bad + b"y")
    return _repad(d.layout, header), f"a metadata value holds the bytes {bad!r}"


@_fault("HEADER-OBJECT/not-an-object")
def _not_object(draw: st.DrawFn, d: _Drawn) -> tuple[bytes, str]:
    del d  # the header is replaced wholesale
    text = draw(_pick(("[]", "[{}]", '"{}"', "1", "null", "true")))
    layout = _Layout([], b"")
    return _repad(layout, text.encode()), f"the header is {text}"


@_fault("HEADER-TRAILING/junk-after-object")
def _junk_after(draw: st.DrawFn, d: _Drawn) -> tuple[bytes, str]:
    junk = draw(_pick(("x", "}", ",{}", "{}", "\x00", "0")))
    d.layout.after = junk
    return _repad(d.layout), f"{junk!r} follows the closing brace"


def _needs_member(d: _Drawn) -> _Entry:
    if not d.layout.members:
        _append_tensor(d, "U8", [0], b"")
    return d.layout.members[-1]


@_fault("JSON-SYNTAX/trailing-comma")
def _trailing_comma(draw: st.DrawFn, d: _Drawn) -> tuple[bytes, str]:
    del draw
    _needs_member(d)
    header = d.layout.header()
    header = header[: header.rindex(b"}")] + b",}"
    return _repad(d.layout, header), "a comma before the closing brace"


@_fault("JSON-SYNTAX/nan-literal")
def _nan(draw: st.DrawFn, d: _Drawn) -> tuple[bytes, str]:
    literal = draw(_pick(("NaN", "Infinity", "-Infinity")))
    entry = _append_tensor(d, "U8", [0, 1], b"")
    _set_field(entry, "shape", f"[0,{literal}]")
    return _repad(d.layout), f"{literal} as a shape dimension"


@_fault("JSON-SYNTAX/single-quotes")
def _single_quotes(draw: st.DrawFn, d: _Drawn) -> tuple[bytes, str]:
    del draw
    entry = _append_tensor(d, "U8", [0], b"")
    entry.key = "'" + entry.key.strip('"') + "'"
    return _repad(d.layout), "a member name in single quotes"


@_fault("JSON-SYNTAX/comment")
def _comment(draw: st.DrawFn, d: _Drawn) -> tuple[bytes, str]:
    comment = draw(_pick(("/* c */", "// c\n")))
    header = d.layout.header().replace(b"{", b"{" + comment.encode(), 1)
    return _repad(d.layout, header), f"a comment {comment!r}"


@_fault("JSON-SYNTAX/leading-zero")
def _leading_zero(draw: st.DrawFn, d: _Drawn) -> tuple[bytes, str]:
    entry = _append_tensor(d, "U8", [1], b"\x07")
    begin = int(json.loads(entry.fields[_field(entry, "data_offsets")][1])[0])
    zeros = draw(_pick(("0", "00")))
    _set_field(entry, "data_offsets", f"[{zeros}{begin},{begin + 1}]")
    return _repad(d.layout), "an offset with a leading zero"


@_fault("JSON-SYNTAX/raw-control-character")
def _control(draw: st.DrawFn, d: _Drawn) -> tuple[bytes, str]:
    char = draw(_pick(("\x00", "\x01", "\n", "\x1f")))
    entry = _append_tensor(d, "U8", [0], b"")
    entry.key = '"w' + char + 'x"'
    return _repad(d.layout), f"a raw {char!r} inside a name"


@_fault("JSON-DEPTH/deep-nesting")
def _deep(draw: st.DrawFn, d: _Drawn) -> tuple[bytes, str]:
    depth = draw(_pick((127, 200, 1000, 100_000)))
    d.layout.members.append(_Entry('"deep"', [], raw="[" * depth + "]" * depth))
    return _repad(d.layout), f"arrays nested {depth} deep"


@_fault("JSON-SURROGATE/lone-surrogate")
def _surrogate(draw: st.DrawFn, d: _Drawn) -> tuple[bytes, str]:
    escape = draw(_pick(("\\ud800", "\\udfff", "\\udc00x", "\\ud83d")))
    entry = _append_tensor(d, "U8", [0], b"")
    entry.key = '"w' + escape + '"'
    return _repad(d.layout), f"the escape {escape} in a name"


@_fault("KEY-UNIQUE/tensor-name")
def _dup_tensor(draw: st.DrawFn, d: _Drawn) -> tuple[bytes, str]:
    entry = (
        _needs_member(d)
        if not d.tensors
        else draw(st.sampled_from([m for m in d.layout.members if m.raw is None]))
    )
    copy = replace(entry, fields=list(entry.fields))
    d.layout.members.insert(draw(st.integers(0, len(d.layout.members))), copy)
    return _repad(d.layout), f"the tensor {entry.key} appears twice"


@_fault("KEY-UNIQUE/escaped-tensor-name")
def _dup_escaped(draw: st.DrawFn, d: _Drawn) -> tuple[bytes, str]:
    del draw
    entry = _append_tensor(d, "U8", [0], b"")
    name = json.loads(entry.key)
    copy = replace(entry, fields=list(entry.fields))
    copy.key = '"' + "".join(f"\\u{ord(c):04x}" for c in name) + '"'
    d.layout.members.append(copy)
    return _repad(d.layout), f"{entry.key} and {copy.key} name one tensor"


@_fault("KEY-UNIQUE/metadata-key")
def _dup_meta(draw: st.DrawFn, d: _Drawn) -> tuple[bytes, str]:
    value = draw(_pick(('"1","k":"1"', '"1","k":"2"')))
    d.layout.members = [
        m for m in d.layout.members if m.key != json.dumps(METADATA_KEY)
    ]
    d.layout.members.insert(
        0, _Entry(json.dumps(METADATA_KEY), [], raw='{"k":' + value + "}")
    )
    return _repad(d.layout), "a metadata key appears twice"


@_fault("KEY-UNIQUE/entry-field")
def _dup_field(draw: st.DrawFn, d: _Drawn) -> tuple[bytes, str]:
    entry = _append_tensor(d, "U8", [0], b"")
    index = draw(st.integers(0, 2))
    entry.fields.append(entry.fields[index])
    return _repad(d.layout), f"the field {entry.fields[index][0]} appears twice"


@_fault("NUM-INTEGER/fraction-or-exponent")
def _float(draw: st.DrawFn, d: _Drawn) -> tuple[bytes, str]:
    entry = _append_tensor(d, "U8", [2], b"\x01\x02")
    begin = int(json.loads(entry.fields[_field(entry, "data_offsets")][1])[0])
    form = draw(_pick(("{}.0", "{}e0", "{}E+0", "{}.00")))
    _set_field(entry, "data_offsets", f"[{begin},{form.format(begin + 2)}]")
    return _repad(d.layout), f"the end offset written as {form.format(begin + 2)}"


@_fault("NUM-INTEGER/minus-zero")
def _minus_zero(draw: st.DrawFn, d: _Drawn) -> tuple[bytes, str]:
    del draw
    entry = _append_tensor(d, "U8", [0], b"")
    _set_field(entry, "shape", "[-0]")
    return _repad(d.layout), "a shape dimension written -0"


@_fault("NUM-RANGE/above-u64")
def _huge_number(draw: st.DrawFn, d: _Drawn) -> tuple[bytes, str]:
    value = draw(_pick((2**64, 2**64 + 1, 10**30)))
    entry = _append_tensor(d, "U8", [0, 1], b"")
    _set_field(entry, "shape", f"[0,{value}]")
    return _repad(d.layout), f"the dimension {value} of an empty tensor"


@_fault("ENTRY-OBJECT/positional-array")
def _positional(draw: st.DrawFn, d: _Drawn) -> tuple[bytes, str]:
    del draw
    entry = _append_tensor(d, "U8", [2], b"\x01\x02")
    values = dict(entry.fields)
    parts = [values[key] for key in ('"dtype"', '"shape"', '"data_offsets"')]
    entry.raw = "[" + ",".join(parts) + "]"
    return _repad(d.layout), "a tensor entry written as a positional array"


@_fault("ENTRY-OBJECT/scalar-member")
def _scalar_member(draw: st.DrawFn, d: _Drawn) -> tuple[bytes, str]:
    value = draw(_pick(('"x"', "1", "null", "[]")))
    d.layout.members.append(_Entry('"extra"', [], raw=value))
    return _repad(d.layout), f"a member whose value is {value}"


@_fault("ENTRY-FIELDS/missing-field")
def _missing(draw: st.DrawFn, d: _Drawn) -> tuple[bytes, str]:
    entry = _append_tensor(d, "U8", [0], b"")
    gone = entry.fields.pop(draw(st.integers(0, 2)))
    return _repad(d.layout), f"an entry without {gone[0]}"


@_fault("DTYPE-NAME/unknown-name")
def _unknown_dtype(draw: st.DrawFn, d: _Drawn) -> tuple[bytes, str]:
    name = draw(_pick(("F128", "f32", "float32", "U4", "", "C128", "F8")))
    entry = _append_tensor(d, "U8", [4], b"\x01\x02\x03\x04")
    _set_field(entry, "dtype", json.dumps(name))
    return _repad(d.layout), f"the dtype {name!r}"


@_fault("DTYPE-NAME/map-form")
def _dtype_map(draw: st.DrawFn, d: _Drawn) -> tuple[bytes, str]:
    del draw
    entry = _append_tensor(d, "U8", [4], b"\x01\x02\x03\x04")
    _set_field(entry, "dtype", '{"U8":null}')
    return _repad(d.layout), 'the dtype written {"U8": null}'


@_fault("DTYPE-NAME/not-a-string")
def _dtype_number(draw: st.DrawFn, d: _Drawn) -> tuple[bytes, str]:
    value = draw(_pick(("8", "null", '["U8"]', "true")))
    entry = _append_tensor(d, "U8", [4], b"\x01\x02\x03\x04")
    _set_field(entry, "dtype", value)
    return _repad(d.layout), f"the dtype written {value}"


@_fault("SHAPE-ARRAY/not-an-array")
def _shape_scalar(draw: st.DrawFn, d: _Drawn) -> tuple[bytes, str]:
    value = draw(_pick(("4", '"4"', '["4"]', "[[4]]", "{}", "[true]", "null")))
    entry = _append_tensor(d, "U8", [4], b"\x01\x02\x03\x04")
    _set_field(entry, "shape", value)
    return _repad(d.layout), f"the shape written {value}"


@_fault("OFFSETS-PAIR/wrong-arity")
def _arity(draw: st.DrawFn, d: _Drawn) -> tuple[bytes, str]:
    entry = _append_tensor(d, "U8", [0], b"")
    begin = len(d.layout.buffer)
    value = draw(
        st.sampled_from(
            [f"[{begin}]", f"[{begin},{begin},{begin}]", "[]", f'{{"0":{begin}}}']
        )
    )
    _set_field(entry, "data_offsets", value)
    return _repad(d.layout), f"data_offsets written {value}"


@_fault("META-OBJECT/not-an-object")
def _meta_scalar(draw: st.DrawFn, d: _Drawn) -> tuple[bytes, str]:
    value = draw(_pick(('"x"', "[]", '["a"]', "1", "true")))
    d.layout.members = [
        m for m in d.layout.members if m.key != json.dumps(METADATA_KEY)
    ]
    d.layout.members.insert(0, _Entry(json.dumps(METADATA_KEY), [], raw=value))
    return _repad(d.layout), f"__metadata__ is {value}"


@_fault("META-STRING/non-string-value")
def _meta_value(draw: st.DrawFn, d: _Drawn) -> tuple[bytes, str]:
    value = draw(_pick(("1", "1.5", "null", "true", "[]", '{"a":"b"}', '["x"]')))
    d.layout.members = [
        m for m in d.layout.members if m.key != json.dumps(METADATA_KEY)
    ]
    d.layout.members.insert(
        0, _Entry(json.dumps(METADATA_KEY), [], raw=f'{{"k":{value}}}')
    )
    return _repad(d.layout), f"a metadata value {value}"


@_fault("SIZE-OVERFLOW/wraps-to-zero")
def _wraps(draw: st.DrawFn, d: _Drawn) -> tuple[bytes, str]:
    dtype, shape = draw(
        st.sampled_from(
            [
                ("U8", [2**63, 2]),
                ("U8", [2**32, 2**32]),
                ("F32", [2**62]),
                ("I64", [2**61, 1]),
            ]
        )
    )
    entry = _append_tensor(d, "U8", [0], b"")
    _set_field(entry, "dtype", json.dumps(dtype))
    _set_field(entry, "shape", json.dumps(shape))
    return _repad(d.layout), f"{dtype} {shape}: 2^64 bytes, 0 modulo 2^64"


@_fault("SIZE-OVERFLOW/huge-product")
def _huge_product(draw: st.DrawFn, d: _Drawn) -> tuple[bytes, str]:
    shape = draw(_pick(((2**32, 2**32, 3), (2**64 - 1, 2**64 - 1), (2**40, 2**40))))
    entry = _append_tensor(d, "U8", [1], b"\x05")
    _set_field(entry, "shape", json.dumps(list(shape)))
    return _repad(d.layout), f"U8 {list(shape)} holding one byte"


@_fault("SIZE-BITS/partial-byte")
def _partial(draw: st.DrawFn, d: _Drawn) -> tuple[bytes, str]:
    dtype, count = draw(
        st.sampled_from(
            [
                ("F4", 1),
                ("F4", 3),
                ("F4", 5),
                ("F6_E2M3", 1),
                ("F6_E3M2", 2),
                ("F6_E2M3", 3),
            ]
        )
    )
    rounded = draw(st.booleans())
    size = -(-count * BITS[dtype] // 8) if rounded else count * BITS[dtype] // 8
    entry = _append_tensor(d, "U8", [size], bytes(range(1, size + 1)))
    _set_field(entry, "dtype", json.dumps(dtype))
    _set_field(entry, "shape", json.dumps([count]))
    return _repad(
        d.layout
    ), f"{dtype} [{count}] = {count * BITS[dtype]} bits in {size} bytes"


@_fault("SIZE-MATCH/shape-disagrees")
def _mismatch(draw: st.DrawFn, d: _Drawn) -> tuple[bytes, str]:
    dtype, shape, size = draw(
        st.sampled_from(
            [
                ("U8", [5], 4),
                ("U8", [3], 4),
                ("F32", [2], 4),
                ("F16", [], 4),
                ("U8", [2, 2], 3),
            ]
        )
    )
    entry = _append_tensor(d, "U8", [size], bytes(range(size)))
    _set_field(entry, "dtype", json.dumps(dtype))
    _set_field(entry, "shape", json.dumps(shape))
    return _repad(d.layout), f"{dtype} {shape} stored in {size} bytes"


@_fault("OFFSETS-ORDER/begin-after-end")
def _reversed(draw: st.DrawFn, d: _Drawn) -> tuple[bytes, str]:
    del draw
    entry = _append_tensor(d, "U8", [0], b"")
    begin = len(d.layout.buffer)
    _set_field(entry, "data_offsets", f"[{begin + 1},{begin}]")
    return _repad(d.layout), f"data_offsets [{begin + 1},{begin}]"


@_fault("LAYOUT-BOUNDS/short-buffer")
def _short_buffer(draw: st.DrawFn, d: _Drawn) -> tuple[bytes, str]:
    size = draw(st.integers(1, 6))
    _append_tensor(d, "U8", [size + 2], bytes(range(size + 2)))
    d.layout.buffer = d.layout.buffer[:-size]
    return _repad(d.layout), f"the last tensor ends {size} bytes past the file"


@_fault("LAYOUT-HOLE/gap")
def _gap(draw: st.DrawFn, d: _Drawn) -> tuple[bytes, str]:
    gap = draw(st.integers(1, 5))
    at_start = draw(st.booleans())
    if at_start:
        shift = gap
        for member in d.layout.members:
            if member.raw is None:
                begin, end = json.loads(
                    member.fields[_field(member, "data_offsets")][1]
                )
                _set_field(
                    member, "data_offsets", json.dumps([begin + shift, end + shift])
                )
        d.layout.buffer = bytes(gap) + d.layout.buffer
        _append_tensor(d, "U8", [1], b"\x09")
        return _repad(d.layout), f"{gap} unused bytes before the first tensor"
    d.layout.buffer += bytes(gap)
    _append_tensor(d, "U8", [1], b"\x09")
    return _repad(d.layout), f"{gap} unused bytes between tensors"


@_fault("LAYOUT-OVERLAP/shared-bytes")
def _overlap(draw: st.DrawFn, d: _Drawn) -> tuple[bytes, str]:
    empty_inside = draw(st.booleans())
    start = len(d.layout.buffer)
    _append_tensor(d, "U8", [2], b"\x01\x02")
    if empty_inside:
        _append_tensor(d, "U8", [0], b"", begin=start + 1)
        return _repad(d.layout), "an empty tensor inside another"
    _append_tensor(d, "U8", [2], b"\x02\x03", begin=start + 1)
    d.layout.buffer += b"\x03"
    return _repad(d.layout), "two tensors share a byte"


@_fault("LAYOUT-TRAILING/extra-bytes")
def _trailing(draw: st.DrawFn, d: _Drawn) -> tuple[bytes, str]:
    extra = draw(_pick((b"\x00", b"junk", b"PK\x03\x04", bytes(9))))
    d.layout.buffer += extra
    return _repad(d.layout), f"{len(extra)} bytes after the last tensor"


CORRUPTION_KINDS: Final[tuple[str, ...]] = tuple(_FAULTS)


@st.composite
def _corruption(draw: st.DrawFn, kind: str) -> Corruption:
    drawn = draw(_drawn(max_tensors=3, plain=draw(st.booleans())))
    data, description = _FAULTS[kind](draw, drawn)
    return Corruption(data, kind.split("/", 1)[0], kind, description)


def corruptions(*, kinds: Iterable[str] | None = None) -> st.SearchStrategy[Corruption]:
    """Files with exactly one fault, of the given kinds (default: all).

    ``Corruption.rule`` is the MUST rule the fault breaks: the one the strict
    reference reports (for ``OFFSETS-ORDER`` it reports the size and bounds
    faults that follow from a reversed range as well, after it).
    """
    chosen = CORRUPTION_KINDS if kinds is None else tuple(kinds)
    unknown = [k for k in chosen if k not in _FAULTS]
    if unknown:
        raise ValueError(f"unknown corruption kinds {unknown}; see CORRUPTION_KINDS")
    return st.one_of(*(_corruption(kind) for kind in chosen))


# --- tolerated variants -------------------------------------------------------------


def _leading_ws(draw: st.DrawFn, d: _Drawn) -> None:
    d.layout.before = draw(_pick((" ", "\n", "\t", "\r\n", "   ")))


def _odd_padding(draw: st.DrawFn, d: _Drawn) -> None:
    d.layout.padding_char = draw(_pick(("\t", "\n", "\r")))
    d.layout.padding = max(d.layout.padding, 1)


def _unknown_field(draw: st.DrawFn, d: _Drawn) -> None:
    value = draw(_pick(('"x"', "1", "null", '{"a":[1,2]}', "[]")))
    entry = _append_tensor(d, "U8", [1], b"\x2a")
    entry.fields.insert(draw(st.integers(0, 3)), ('"extra"', value))


def _metadata_null(draw: st.DrawFn, d: _Drawn) -> None:
    d.layout.members = [
        m for m in d.layout.members if m.key != json.dumps(METADATA_KEY)
    ]
    position = draw(st.integers(0, len(d.layout.members)))
    d.layout.members.insert(position, _Entry(json.dumps(METADATA_KEY), [], raw="null"))
    d.metadata = None


_TOLERATED: Final[dict[str, tuple[str, Callable[[st.DrawFn, _Drawn], None]]]] = {
    "HEADER-LEADING-WS/whitespace-before-object": ("HEADER-LEADING-WS", _leading_ws),
    "HEADER-PADDING/tab-or-newline-padding": ("HEADER-PADDING", _odd_padding),
    "ENTRY-UNKNOWN/extra-entry-field": ("ENTRY-UNKNOWN", _unknown_field),
    "META-NULL/null-metadata": ("META-NULL", _metadata_null),
}
TOLERATED_KINDS: Final[tuple[str, ...]] = tuple(_TOLERATED)


@st.composite
def _tolerated(draw: st.DrawFn, kind: str) -> ValidFile:
    drawn = draw(_drawn(max_tensors=3))
    rule, apply = _TOLERATED[kind]
    apply(draw, drawn)
    layout = drawn.layout
    if layout.padding_char == " ":
        layout.padding = -(8 + len(layout.header())) % 8
    return ValidFile(layout.assemble(), drawn.tensors, drawn.metadata, kind, rule)


def tolerated_variants(
    *, kinds: Iterable[str] | None = None
) -> st.SearchStrategy[ValidFile]:
    """Files breaking only MAY rules; ``tensors``/``metadata`` are what they hold."""
    chosen = TOLERATED_KINDS if kinds is None else tuple(kinds)
    return st.one_of(*(_tolerated(kind) for kind in chosen))
