"""Single-fault corruptions and tolerated (MAY-rule) variants of valid files.

A corruption changes a drawn valid file in exactly one way that breaks
exactly one MUST rule and carries that rule's id (what the strict reference
reports); a tolerated variant breaks only a MAY rule.  Both draw their base
file from the dtypes they are given, and a fault that brings its own dtype
(``SIZE-BITS`` needs F4/F6) prefers one of those.
"""

from __future__ import annotations

import json
import struct
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, replace
from typing import Any, Final, TypeVar

from hypothesis import strategies as st

from stspec.dtypes import BITS
from stspec_conformance._arguments import check_choice, check_dtypes, check_flag
from stspec_conformance._files import (
    METADATA_KEY,
    Drawn,
    Entry,
    Layout,
    ValidFile,
    clip,
    drawn_parts,
    member,
    pick,
)

Option = TypeVar("Option", bound=tuple[Any, ...])
_META: Final = json.dumps(METADATA_KEY)

__all__ = [
    "CORRUPTION_KINDS",
    "TOLERATED_KINDS",
    "Corruption",
    "corruptions",
    "tolerated_variants",
]


# --- single-fault corruptions ---------------------------------------------------


@dataclass(frozen=True, slots=True)
class Corruption:
    """A file with one fault, the MUST rule it breaks, and what was done."""

    data: bytes
    rule: str
    kind: str
    description: str
    # the dtype names the header uses: a reader that does not declare one of
    # them may reject the file for that reason instead of the fault
    dtypes: frozenset[str] = frozenset()

    def __repr__(self) -> str:
        """Short enough for hypothesis' failure reports (files can be 200 kB)."""
        return (
            f"Corruption(kind={self.kind!r}, description={self.description!r}, "
            f"data={clip(self.data)})"
        )

    def _repr_pretty_(self, printer: Any, cycle: bool) -> None:  # noqa: ANN401
        """Hypothesis' pretty printer would print every field (files can be 200 kB)."""
        del cycle
        printer.text(repr(self))


def _unique(drawn: Drawn, stem: str) -> str:
    taken = set(drawn.tensors)
    index = 0
    while f"{stem}{index}" in taken:
        index += 1
    return f"{stem}{index}"


def _append_tensor(
    drawn: Drawn,
    dtype: str,
    shape: Sequence[int],
    data: bytes,
    *,
    begin: int | None = None,
) -> Entry:
    """Add a tensor at the end of the buffer (or at ``begin``) and the header."""
    name = _unique(drawn, "w")
    start = len(drawn.layout.buffer) if begin is None else begin
    entry = member(name, dtype, shape, start, start + len(data))
    if begin is None:
        drawn.layout.buffer += data
    drawn.layout.members.append(entry)
    drawn.tensors[name] = (dtype, tuple(shape), data)
    return entry


def _field(entry: Entry, name: str) -> int:
    return next(i for i, (k, _) in enumerate(entry.fields) if k == f'"{name}"')


def _set_field(entry: Entry, name: str, value: str) -> None:
    entry.fields[_field(entry, name)] = (f'"{name}"', value)


def _repad(layout: Layout, header: bytes | None = None) -> bytes:
    head = layout.header() if header is None else header
    layout.padding = -(8 + len(head)) % 8
    return layout.assemble(head)


def _prefer(d: Drawn, options: Sequence[Option]) -> list[Option]:
    """All options, those whose dtype (first item) the reader declares first.

    Undeclared dtypes stay in the draw: a reader that cannot read a dtype
    must still refuse an invalid file using it (it cannot load it right).
    """
    if d.allowed is None:
        return list(options)
    declared = [o for o in options if o[0] in d.allowed]
    return declared + [o for o in options if o[0] not in d.allowed]


_Fault = Callable[[st.DrawFn, Drawn], tuple[bytes, str]]
_FAULTS: dict[str, _Fault] = {}


def _fault(kind: str) -> Callable[[_Fault], _Fault]:
    def register(function: _Fault) -> _Fault:
        _FAULTS[kind] = function
        return function

    return register


@_fault("FILE-PREFIX/short-file")
def _short(draw: st.DrawFn, d: Drawn) -> tuple[bytes, str]:
    size = draw(st.integers(0, 7))
    return d.layout.assemble()[:size], f"the file is {size} bytes long"


@_fault("HEADER-BOUNDS/n-past-end")
def _past_end(draw: st.DrawFn, d: Drawn) -> tuple[bytes, str]:
    data = bytearray(d.layout.assemble())
    n = len(data) - 8 + draw(st.sampled_from([1, 2, 1000, 99_999_999 - len(data)]))
    data[:8] = struct.pack("<Q", n)
    return bytes(data), f"N = {n} reaches past the end of the file"


@_fault("HEADER-UTF8/invalid-bytes")
def _bad_utf8(draw: st.DrawFn, d: Drawn) -> tuple[bytes, str]:
    bad = draw(pick((b"\xff", b"\xc0\xaf", b"\xed\xa0\x80", b"\xe2\x82", b"\x80")))
    d.layout.members = [
        m for m in d.layout.members if m.key != json.dumps(METADATA_KEY)
    ]
    d.layout.members.insert(
        0, Entry(_META, [], raw="{" + d.filler_meta + '"k":"@@BAD@@"}')
    )
    header = d.layout.header().replace(b"@@BAD@@", b"x" + bad + b"y")
    return _repad(d.layout, header), f"a metadata value holds the bytes {bad!r}"


@_fault("HEADER-OBJECT/not-an-object")
def _not_object(draw: st.DrawFn, d: Drawn) -> tuple[bytes, str]:
    del d  # the header is replaced wholesale
    text = draw(pick(("[]", "[{}]", '"{}"', "1", "null", "true")))
    layout = Layout([], b"")
    return _repad(layout, text.encode()), f"the header is {text}"


@_fault("HEADER-TRAILING/junk-after-object")
def _junk_after(draw: st.DrawFn, d: Drawn) -> tuple[bytes, str]:
    junk = draw(pick(("x", "}", ",{}", "{}", "\x00", "0")))
    d.layout.after = junk
    return _repad(d.layout), f"{junk!r} follows the closing brace"


def _needs_member(d: Drawn) -> Entry:
    if not d.layout.members:
        _append_tensor(d, "U8", [0], b"")
    return d.layout.members[-1]


@_fault("JSON-SYNTAX/trailing-comma")
def _trailing_comma(draw: st.DrawFn, d: Drawn) -> tuple[bytes, str]:
    del draw
    _needs_member(d)
    header = d.layout.header()
    header = header[: header.rindex(b"}")] + b",}"
    return _repad(d.layout, header), "a comma before the closing brace"


@_fault("JSON-SYNTAX/nan-literal")
def _nan(draw: st.DrawFn, d: Drawn) -> tuple[bytes, str]:
    literal = draw(pick(("NaN", "Infinity", "-Infinity")))
    entry = _append_tensor(d, "U8", [0, 1], b"")
    _set_field(entry, "shape", f"[0,{literal}]")
    return _repad(d.layout), f"{literal} as a shape dimension"


@_fault("JSON-SYNTAX/single-quotes")
def _single_quotes(draw: st.DrawFn, d: Drawn) -> tuple[bytes, str]:
    del draw
    entry = _append_tensor(d, "U8", [0], b"")
    entry.key = "'" + entry.key.strip('"') + "'"
    return _repad(d.layout), "a member name in single quotes"


@_fault("JSON-SYNTAX/comment")
def _comment(draw: st.DrawFn, d: Drawn) -> tuple[bytes, str]:
    comment = draw(pick(("/* c */", "// c\n")))
    header = d.layout.header().replace(b"{", b"{" + comment.encode(), 1)
    return _repad(d.layout, header), f"a comment {comment!r}"


@_fault("JSON-SYNTAX/leading-zero")
def _leading_zero(draw: st.DrawFn, d: Drawn) -> tuple[bytes, str]:
    entry = _append_tensor(d, "U8", [1], b"\x07")
    begin = int(json.loads(entry.fields[_field(entry, "data_offsets")][1])[0])
    zeros = draw(pick(("0", "00")))
    _set_field(entry, "data_offsets", f"[{zeros}{begin},{begin + 1}]")
    return _repad(d.layout), "an offset with a leading zero"


@_fault("JSON-SYNTAX/raw-control-character")
def _control(draw: st.DrawFn, d: Drawn) -> tuple[bytes, str]:
    char = draw(pick(("\x00", "\x01", "\n", "\x1f")))
    entry = _append_tensor(d, "U8", [0], b"")
    entry.key = '"w' + char + 'x"'
    return _repad(d.layout), f"a raw {char!r} inside a name"


@_fault("JSON-DEPTH/deep-nesting")
def _deep(draw: st.DrawFn, d: Drawn) -> tuple[bytes, str]:
    depth = draw(pick((127, 200, 1000, 100_000)))
    d.layout.members.append(Entry('"deep"', [], raw="[" * depth + "]" * depth))
    return _repad(d.layout), f"arrays nested {depth} deep"


@_fault("JSON-SURROGATE/lone-surrogate")
def _surrogate(draw: st.DrawFn, d: Drawn) -> tuple[bytes, str]:
    escape = draw(pick(("\\ud800", "\\udfff", "\\udc00x", "\\ud83d")))
    entry = _append_tensor(d, "U8", [0], b"")
    entry.key = '"w' + escape + '"'
    return _repad(d.layout), f"the escape {escape} in a name"


@_fault("JSON-SURROGATE/in-unknown-member")
def _surrogate_in_unknown(draw: st.DrawFn, d: Drawn) -> tuple[bytes, str]:
    value = draw(pick(('"\\ud800"', '{"\\udfff":1}', '["x\\udbff"]')))
    entry = _append_tensor(d, "U8", [1], b"\x2a")
    entry.fields.insert(draw(st.integers(0, 3)), ('"extra"', value))
    return _repad(d.layout), f"an unknown entry member {value} holds a lone surrogate"


@_fault("KEY-UNIQUE/tensor-name")
def _dup_tensor(draw: st.DrawFn, d: Drawn) -> tuple[bytes, str]:
    # a tensor's member, never __metadata__'s (that is KEY-UNIQUE/metadata-member)
    entry = (
        _append_tensor(d, "U8", [0], b"")
        if not d.tensors
        else draw(st.sampled_from([m for m in d.layout.members if m.raw is None]))
    )
    copy = replace(entry, fields=list(entry.fields))
    d.layout.members.insert(draw(st.integers(0, len(d.layout.members))), copy)
    return _repad(d.layout), f"the tensor {entry.key} appears twice"


@_fault("KEY-UNIQUE/escaped-tensor-name")
def _dup_escaped(draw: st.DrawFn, d: Drawn) -> tuple[bytes, str]:
    del draw
    entry = _append_tensor(d, "U8", [0], b"")
    name = json.loads(entry.key)
    copy = replace(entry, fields=list(entry.fields))
    copy.key = '"' + "".join(f"\\u{ord(c):04x}" for c in name) + '"'
    d.layout.members.append(copy)
    return _repad(d.layout), f"{entry.key} and {copy.key} name one tensor"


@_fault("KEY-UNIQUE/metadata-key")
def _dup_meta(draw: st.DrawFn, d: Drawn) -> tuple[bytes, str]:
    value = draw(pick(('"1","k":"1"', '"1","k":"2"')))
    d.layout.members = [
        m for m in d.layout.members if m.key != json.dumps(METADATA_KEY)
    ]
    d.layout.members.insert(
        0, Entry(_META, [], raw="{" + d.filler_meta + '"k":' + value + "}")
    )
    return _repad(d.layout), "a metadata key appears twice"


@_fault("KEY-UNIQUE/entry-field")
def _dup_field(draw: st.DrawFn, d: Drawn) -> tuple[bytes, str]:
    entry = _append_tensor(d, "U8", [0], b"")
    index = draw(st.integers(0, 2))
    entry.fields.append(entry.fields[index])
    return _repad(d.layout), f"the field {entry.fields[index][0]} appears twice"


@_fault("KEY-UNIQUE/in-unknown-member")
def _dup_in_unknown(draw: st.DrawFn, d: Drawn) -> tuple[bytes, str]:
    value = draw(
        pick(('{"a":1,"a":1}', '{"a":1,"b":{"c":2,"c":3}}', '[{"x":0,"x":0}]'))
    )
    entry = _append_tensor(d, "U8", [1], b"\x2a")
    entry.fields.insert(draw(st.integers(0, 3)), ('"extra"', value))
    return _repad(d.layout), f"an unknown entry member {value} repeats a name"


@_fault("NUM-INTEGER/fraction-or-exponent")
def _float(draw: st.DrawFn, d: Drawn) -> tuple[bytes, str]:
    entry = _append_tensor(d, "U8", [2], b"\x01\x02")
    begin = int(json.loads(entry.fields[_field(entry, "data_offsets")][1])[0])
    form = draw(pick(("{}.0", "{}e0", "{}E+0", "{}.00")))
    _set_field(entry, "data_offsets", f"[{begin},{form.format(begin + 2)}]")
    return _repad(d.layout), f"the end offset written as {form.format(begin + 2)}"


@_fault("NUM-INTEGER/minus-zero")
def _minus_zero(draw: st.DrawFn, d: Drawn) -> tuple[bytes, str]:
    del draw
    entry = _append_tensor(d, "U8", [0], b"")
    _set_field(entry, "shape", "[-0]")
    return _repad(d.layout), "a shape dimension written -0"


@_fault("NUM-RANGE/above-u64")
def _huge_number(draw: st.DrawFn, d: Drawn) -> tuple[bytes, str]:
    value = draw(pick((2**64, 2**64 + 1, 10**30)))
    entry = _append_tensor(d, "U8", [0, 1], b"")
    _set_field(entry, "shape", f"[0,{value}]")
    return _repad(d.layout), f"the dimension {value} of an empty tensor"


@_fault("ENTRY-OBJECT/positional-array")
def _positional(draw: st.DrawFn, d: Drawn) -> tuple[bytes, str]:
    del draw
    entry = _append_tensor(d, "U8", [2], b"\x01\x02")
    values = dict(entry.fields)
    parts = [values[key] for key in ('"dtype"', '"shape"', '"data_offsets"')]
    entry.raw = "[" + ",".join(parts) + "]"
    return _repad(d.layout), "a tensor entry written as a positional array"


@_fault("ENTRY-OBJECT/scalar-member")
def _scalar_member(draw: st.DrawFn, d: Drawn) -> tuple[bytes, str]:
    value = draw(pick(('"x"', "1", "null", "[]")))
    d.layout.members.append(Entry('"extra"', [], raw=value))
    return _repad(d.layout), f"a member whose value is {value}"


@_fault("ENTRY-FIELDS/missing-field")
def _missing(draw: st.DrawFn, d: Drawn) -> tuple[bytes, str]:
    entry = _append_tensor(d, "U8", [0], b"")
    gone = entry.fields.pop(draw(st.integers(0, 2)))
    return _repad(d.layout), f"an entry without {gone[0]}"


@_fault("DTYPE-NAME/unknown-name")
def _unknown_dtype(draw: st.DrawFn, d: Drawn) -> tuple[bytes, str]:
    name = draw(pick(("F128", "f32", "float32", "U4", "", "C128", "F8")))
    entry = _append_tensor(d, "U8", [4], b"\x01\x02\x03\x04")
    _set_field(entry, "dtype", json.dumps(name))
    return _repad(d.layout), f"the dtype {name!r}"


@_fault("DTYPE-NAME/map-form")
def _dtype_map(draw: st.DrawFn, d: Drawn) -> tuple[bytes, str]:
    del draw
    entry = _append_tensor(d, "U8", [4], b"\x01\x02\x03\x04")
    _set_field(entry, "dtype", '{"U8":null}')
    return _repad(d.layout), 'the dtype written {"U8": null}'


@_fault("DTYPE-NAME/not-a-string")
def _dtype_number(draw: st.DrawFn, d: Drawn) -> tuple[bytes, str]:
    value = draw(pick(("8", "null", '["U8"]', "true")))
    entry = _append_tensor(d, "U8", [4], b"\x01\x02\x03\x04")
    _set_field(entry, "dtype", value)
    return _repad(d.layout), f"the dtype written {value}"


@_fault("SHAPE-ARRAY/not-an-array")
def _shape_scalar(draw: st.DrawFn, d: Drawn) -> tuple[bytes, str]:
    value = draw(pick(("4", '"4"', '["4"]', "[[4]]", "{}", "[true]", "null")))
    entry = _append_tensor(d, "U8", [4], b"\x01\x02\x03\x04")
    _set_field(entry, "shape", value)
    return _repad(d.layout), f"the shape written {value}"


@_fault("OFFSETS-PAIR/wrong-arity")
def _arity(draw: st.DrawFn, d: Drawn) -> tuple[bytes, str]:
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
def _meta_scalar(draw: st.DrawFn, d: Drawn) -> tuple[bytes, str]:
    value = draw(pick(('"x"', "[]", '["a"]', "1", "true")))
    d.layout.members = [
        m for m in d.layout.members if m.key != json.dumps(METADATA_KEY)
    ]
    d.layout.members.insert(0, Entry(json.dumps(METADATA_KEY), [], raw=value))
    return _repad(d.layout), f"__metadata__ is {value}"


@_fault("META-STRING/non-string-value")
def _meta_value(draw: st.DrawFn, d: Drawn) -> tuple[bytes, str]:
    value = draw(pick(("1", "1.5", "null", "true", "[]", '{"a":"b"}', '["x"]')))
    d.layout.members = [
        m for m in d.layout.members if m.key != json.dumps(METADATA_KEY)
    ]
    d.layout.members.insert(0, Entry(_META, [], raw=f'{{{d.filler_meta}"k":{value}}}'))
    return _repad(d.layout), f"a metadata value {value}"


@_fault("SIZE-OVERFLOW/wraps-to-zero")
def _wraps(draw: st.DrawFn, d: Drawn) -> tuple[bytes, str]:
    dtype, shape = draw(
        st.sampled_from(
            _prefer(
                d,
                [
                    ("U8", [2**63, 2]),
                    ("U8", [2**32, 2**32]),
                    ("F32", [2**62]),
                    ("I64", [2**61, 1]),
                ],
            )
        )
    )
    d.extra_dtypes.add(dtype)
    entry = _append_tensor(d, "U8", [0], b"")
    _set_field(entry, "dtype", json.dumps(dtype))
    _set_field(entry, "shape", json.dumps(shape))
    return _repad(d.layout), f"{dtype} {shape}: 2^64 bytes, 0 modulo 2^64"


@_fault("SIZE-OVERFLOW/huge-product")
def _huge_product(draw: st.DrawFn, d: Drawn) -> tuple[bytes, str]:
    shape = draw(pick(((2**32, 2**32, 3), (2**64 - 1, 2**64 - 1), (2**40, 2**40))))
    entry = _append_tensor(d, "U8", [1], b"\x05")
    _set_field(entry, "shape", json.dumps(list(shape)))
    return _repad(d.layout), f"U8 {list(shape)} holding one byte"


@_fault("SIZE-BITS/partial-byte")
def _partial(draw: st.DrawFn, d: Drawn) -> tuple[bytes, str]:
    dtype, count = draw(
        st.sampled_from(
            _prefer(
                d,
                [
                    ("F4", 1),
                    ("F4", 3),
                    ("F4", 5),
                    ("F6_E2M3", 1),
                    ("F6_E3M2", 2),
                    ("F6_E2M3", 3),
                ],
            )
        )
    )
    d.extra_dtypes.add(dtype)
    rounded = draw(st.booleans())
    size = -(-count * BITS[dtype] // 8) if rounded else count * BITS[dtype] // 8
    entry = _append_tensor(d, "U8", [size], bytes(range(1, size + 1)))
    _set_field(entry, "dtype", json.dumps(dtype))
    _set_field(entry, "shape", json.dumps([count]))
    return _repad(
        d.layout
    ), f"{dtype} [{count}] = {count * BITS[dtype]} bits in {size} bytes"


@_fault("SIZE-MATCH/shape-disagrees")
def _mismatch(draw: st.DrawFn, d: Drawn) -> tuple[bytes, str]:
    dtype, shape, size = draw(
        st.sampled_from(
            _prefer(
                d,
                [
                    ("U8", [5], 4),
                    ("U8", [3], 4),
                    ("F32", [2], 4),
                    ("F16", [], 4),
                    ("U8", [2, 2], 3),
                    ("C64", [1], 4),
                    ("F64", [1], 16),
                    ("BF16", [3], 4),
                ],
            )
        )
    )
    d.extra_dtypes.add(dtype)
    entry = _append_tensor(d, "U8", [size], bytes(range(size)))
    _set_field(entry, "dtype", json.dumps(dtype))
    _set_field(entry, "shape", json.dumps(shape))
    return _repad(d.layout), f"{dtype} {shape} stored in {size} bytes"


@_fault("OFFSETS-ORDER/begin-after-end")
def _reversed(draw: st.DrawFn, d: Drawn) -> tuple[bytes, str]:
    # An empty tensor, so that a span clamped at 0 matches its size: at the
    # cursor ([c, c-1], [1, 0] after a first byte) it also begins where the
    # tiling expects, and only the order of the pair is wrong.  Past the
    # cursor ([c+1, c]) its begin lies past the buffer and its end does not:
    # LAYOUT-BOUNDS reads the end alone, so the order is the one fault.
    at_cursor = not draw(st.booleans())
    if at_cursor and not d.layout.buffer:
        _append_tensor(d, "U8", [1], b"\x05")
    entry = _append_tensor(d, "U8", [0], b"")
    cursor = len(d.layout.buffer)
    begin, end = (cursor, cursor - 1) if at_cursor else (cursor + 1, cursor)
    _set_field(entry, "data_offsets", f"[{begin},{end}]")
    where = "at the cursor" if at_cursor else "past the cursor"
    return _repad(d.layout), f"data_offsets [{begin},{end}] ({where})"


@_fault("LAYOUT-BOUNDS/short-buffer")
def _short_buffer(draw: st.DrawFn, d: Drawn) -> tuple[bytes, str]:
    size = draw(st.integers(1, 6))
    _append_tensor(d, "U8", [size + 2], bytes(range(size + 2)))
    d.layout.buffer = d.layout.buffer[:-size]
    return _repad(d.layout), f"the last tensor ends {size} bytes past the file"


@_fault("LAYOUT-HOLE/gap")
def _gap(draw: st.DrawFn, d: Drawn) -> tuple[bytes, str]:
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
def _overlap(draw: st.DrawFn, d: Drawn) -> tuple[bytes, str]:
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
def _trailing(draw: st.DrawFn, d: Drawn) -> tuple[bytes, str]:
    extra = draw(pick((b"\x00", b"junk", b"PK\x03\x04", bytes(9))))
    d.layout.buffer += extra
    return _repad(d.layout), f"{len(extra)} bytes after the last tensor"


CORRUPTION_KINDS: Final[tuple[str, ...]] = tuple(_FAULTS)


# A late fault follows more than 1,000 tensors and 128 metadata keys, and
# its bytes sit past the first 64 KiB of the header: limits a reader's checks
# may stop at.
LATE_TENSORS: Final = (1_100, 1_500)
LATE_KEYS: Final = (130, 160)
_LATE_VALUE: Final = "v" * 500


def _bulk(draw: st.DrawFn, d: Drawn) -> None:
    """Put many tensors and metadata keys before everything a fault adds."""
    count = draw(st.integers(*LATE_TENSORS))
    names = [f"bulk.{i:05d}" for i in range(count)]
    for entry in d.layout.members:
        if entry.raw is None:
            begin, end = json.loads(entry.fields[_field(entry, "data_offsets")][1])
            _set_field(entry, "data_offsets", json.dumps([begin + count, end + count]))
    filler = [member(name, "U8", [1], i, i + 1) for i, name in enumerate(names)]
    d.layout.members[:0] = filler
    d.layout.buffer = bytes(i % 251 + 1 for i in range(count)) + d.layout.buffer
    d.tensors.update(
        {name: ("U8", (1,), bytes([i % 251 + 1])) for i, name in enumerate(names)}
    )
    keys = {f"bulk.{i:03d}": _LATE_VALUE for i in range(draw(st.integers(*LATE_KEYS)))}
    d.filler_meta = "".join(
        f"{json.dumps(k)}:{json.dumps(v)}," for k, v in keys.items()
    )
    meta = next((m for m in d.layout.members if m.key == _META), None)
    if meta is None:
        d.layout.members.insert(0, Entry(_META, [], raw="{" + d.filler_meta[:-1] + "}"))
        d.metadata = keys
    else:
        rest = (meta.raw or "{}")[1:]
        meta.raw = "{" + (d.filler_meta if rest != "}" else d.filler_meta[:-1]) + rest
        d.metadata = {**keys, **(d.metadata or {})}


@st.composite
def _corruption(
    draw: st.DrawFn,
    kind: str,
    dtypes: frozenset[str] | None,
    empty_metadata: bool,
    late: bool,
) -> Corruption:
    drawn = draw(
        drawn_parts(
            dtypes=dtypes,
            max_tensors=3,
            plain=draw(st.booleans()),
            empty_metadata=empty_metadata,
        )
    )
    if late:
        _bulk(draw, drawn)
    data, description = _FAULTS[kind](draw, drawn)
    if late:
        description += " (late: after the bulk of a large header)"
    named = {t[0] for t in drawn.tensors.values()} | drawn.extra_dtypes
    return Corruption(data, kind.split("/", 1)[0], kind, description, frozenset(named))


def corruptions(
    *,
    kinds: Iterable[str] | None = None,
    dtypes: Iterable[str] | None = None,
    empty_metadata: bool = True,
    late: bool = False,
) -> st.SearchStrategy[Corruption]:
    """Files with exactly one fault, of the given kinds (default: all).

    ``late=True`` puts the fault after 1,100-1,500 tensors and 130-160
    metadata keys of about 500 bytes each: past the first 1,000 entries, the
    first 128 keys and the first 64 KiB of the header (a header of about
    150 kB).

    ``Corruption.rule`` is the MUST rule the fault breaks: the one the strict
    reference reports (for ``OFFSETS-ORDER`` at the cursor it also reports
    the overlap of the bytes between the pair's offsets with the tensor
    before, after it).  The file
    around the fault uses ``dtypes`` (default: all 22); a fault that needs a
    dtype of its own (``SIZE-BITS``: F4/F6) uses one of ``dtypes`` when it
    can, and ``Corruption.dtypes`` says which dtypes the file names.
    """
    chosen = check_choice("kinds", kinds, CORRUPTION_KINDS, "corruption kinds")
    only = check_dtypes("dtypes", dtypes)
    check_flag("empty_metadata", empty_metadata)
    check_flag("late", late)
    return st.one_of(
        *(
            _corruption(kind, only, empty_metadata, late)
            for kind in chosen or CORRUPTION_KINDS
        )
    )


# --- tolerated variants -------------------------------------------------------------


def _leading_ws(draw: st.DrawFn, d: Drawn) -> None:
    d.layout.before = draw(pick((" ", "\n", "\t", "\r\n", "   ")))


def _odd_padding(draw: st.DrawFn, d: Drawn) -> None:
    d.layout.padding_char = draw(pick(("\t", "\n", "\r")))
    d.layout.padding = max(d.layout.padding, 1)


# Unknown members named like a field in another case, with another value:
# a reader matching names case-insensitively (Go's encoding/json) takes them.
_CASE_VARIANTS: Final = (
    ('"DTYPE"', '"F64"'),
    ('"Dtype"', '"I8"'),
    ('"SHAPE"', "[2,2]"),
    ('"Data_Offsets"', "[0,0]"),
)


def _unknown_field(draw: st.DrawFn, d: Drawn) -> None:
    value = draw(pick(('"x"', "1", "null", '{"a":[1,2]}', "[]")))
    entry = _append_tensor(d, "U8", [1], b"\x2a")
    entry.fields.insert(draw(st.integers(0, 3)), ('"extra"', value))
    # and, after the real fields, a member spelt like one of them
    entry.fields.append(draw(pick(_CASE_VARIANTS)))


def _metadata_null(draw: st.DrawFn, d: Drawn) -> None:
    d.layout.members = [
        m for m in d.layout.members if m.key != json.dumps(METADATA_KEY)
    ]
    position = draw(st.integers(0, len(d.layout.members)))
    d.layout.members.insert(position, Entry(json.dumps(METADATA_KEY), [], raw="null"))
    d.metadata = None


_TOLERATED: Final[dict[str, tuple[str, Callable[[st.DrawFn, Drawn], None]]]] = {
    "HEADER-LEADING-WS/whitespace-before-object": ("HEADER-LEADING-WS", _leading_ws),
    "HEADER-PADDING/tab-or-newline-padding": ("HEADER-PADDING", _odd_padding),
    "ENTRY-UNKNOWN/extra-entry-field": ("ENTRY-UNKNOWN", _unknown_field),
    "META-NULL/null-metadata": ("META-NULL", _metadata_null),
}
TOLERATED_KINDS: Final[tuple[str, ...]] = tuple(_TOLERATED)


@st.composite
def _tolerated(
    draw: st.DrawFn,
    kind: str,
    dtypes: frozenset[str] | None,
    empty_metadata: bool,
) -> ValidFile:
    drawn = draw(
        drawn_parts(dtypes=dtypes, max_tensors=3, empty_metadata=empty_metadata)
    )
    rule, apply = _TOLERATED[kind]
    apply(draw, drawn)
    layout = drawn.layout
    if layout.padding_char == " ":
        layout.padding = -(8 + len(layout.header())) % 8
    return ValidFile(layout.assemble(), drawn.tensors, drawn.metadata, kind, rule)


def tolerated_variants(
    *,
    kinds: Iterable[str] | None = None,
    dtypes: Iterable[str] | None = None,
    empty_metadata: bool = True,
) -> st.SearchStrategy[ValidFile]:
    """Files breaking only MAY rules; ``tensors``/``metadata`` are what they hold.

    ``dtypes`` and ``empty_metadata`` as for :func:`valid_files`.
    """
    chosen = check_choice("kinds", kinds, TOLERATED_KINDS, "tolerated kinds")
    only = check_dtypes("dtypes", dtypes)
    check_flag("empty_metadata", empty_metadata)
    return st.one_of(
        *(_tolerated(kind, only, empty_metadata) for kind in chosen or TOLERATED_KINDS)
    )
