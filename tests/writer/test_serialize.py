"""serialize(): the canonical bytes, every refusal, and round trips."""

from __future__ import annotations

import array
import struct

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import stspec
from stspec import DTYPES, MAX_HEADER_SIZE, SafetensorsError, Tensor, serialize

F32_ONE_TWO = struct.pack("<2f", 1.0, 2.0)


def framed(header: bytes) -> bytes:
    """The 8-byte prefix and the header, which the test spells out padded."""
    assert len(header) % 8 == 0
    return struct.pack("<Q", len(header)) + header


# Canonical bytes, pinned ---------------------------------------------------


def test_writes_an_empty_dict_as_braces_and_six_spaces() -> None:
    assert serialize({}) == b"\x08\x00\x00\x00\x00\x00\x00\x00{}      "


def test_writes_empty_metadata_without_tensors_as_a_valid_header() -> None:
    # HF 0.8.0 writes '{},"__metadata__":{}}   ' here, which is not JSON.
    expected = framed(b'{"__metadata__":{}}     ')
    assert serialize({}, metadata={}) == expected
    assert stspec.validate(expected) == []


def test_writes_one_tensor_compactly_with_fields_in_order() -> None:
    expected = (
        framed(b'{"a":{"dtype":"F32","shape":[2],"data_offsets":[0,8]}}' + b"  ")
        + F32_ONE_TWO
    )
    assert serialize({"a": Tensor("F32", (2,), F32_ONE_TWO)}) == expected


def test_writes_metadata_first_with_sorted_keys() -> None:
    data = serialize(
        {"w": Tensor("U8", [1], b"\x07")}, metadata={"b": "2", "a": "1", "B": "3"}
    )
    expected = framed(
        b'{"__metadata__":{"B":"3","a":"1","b":"2"},'
        b'"w":{"dtype":"U8","shape":[1],"data_offsets":[0,1]}}' + b" " * 2
    )
    assert data == expected + b"\x07"


def test_orders_tensors_by_descending_dtype_then_by_name() -> None:
    tensors = {
        "d": Tensor("BOOL", [1], b"\x01"),
        "a": Tensor("U8", [1], b"\x02"),
        "z16": Tensor("F16", [1], b"\x03\x04"),
        "b": Tensor("F32", [1], b"\x05" * 4),
        "B": Tensor("F32", [1], b"\x06" * 4),
        "\u00e9": Tensor("F32", [1], b"\x07" * 4),
        "c64": Tensor("C64", [1], b"\x08" * 8),
        "c": Tensor("F64", [1], b"\x09" * 8),
        "i64": Tensor("I64", [1], b"\x0a" * 8),
    }
    with stspec.read(serialize(tensors)) as file:
        order = [(info.name, info.begin) for info in file.tensors.values()]
    assert order == [
        ("i64", 0),
        ("c", 8),
        ("c64", 16),
        ("B", 24),
        ("b", 28),
        ("\u00e9", 32),
        ("z16", 36),
        ("a", 38),
        ("d", 39),
    ]


def test_escapes_names_exactly_as_serde_json_does() -> None:
    name = 'q"b\\s/\x7f\x00\x1f\b\t\n\f\r\u00e9\u2028\U0001f600'
    data = serialize({name: Tensor("U8", [0], b"")})
    header = (
        '{"q\\"b\\\\s/\x7f\\u0000\\u001f\\b\\t\\n\\f\\r\u00e9\u2028\U0001f600":'
        '{"dtype":"U8","shape":[0],"data_offsets":[0,0]}}'
    ).encode()
    assert data == framed(header + b" " * (-len(header) % 8))


def test_writes_a_scalar_with_an_empty_shape() -> None:
    data = serialize({"s": Tensor("F64", (), struct.pack("<d", 0.5))})
    assert b'"shape":[]' in data


def test_pads_the_header_so_that_data_starts_at_a_multiple_of_8() -> None:
    for length in range(1, 20):
        data = serialize({"n" * length: Tensor("U8", [1], b"\xff")})
        (header_length,) = struct.unpack_from("<Q", data)
        assert header_length % 8 == 0
        header = data[8 : 8 + header_length]
        json_text = header.rstrip(b" ")
        assert json_text.endswith(b"}")
        assert len(header) - len(json_text) < 8  # the least padding that aligns
        assert data[8 + header_length :] == b"\xff"


# Accepted inputs -----------------------------------------------------------


class Index:
    """An integer-like object, as numpy's integers are."""

    def __init__(self, value: int) -> None:
        self.value = value

    def __index__(self) -> int:
        return self.value


def test_accepts_plain_tuples_lists_and_integer_like_dimensions() -> None:
    expected = serialize({"a": Tensor("F32", (2,), F32_ONE_TWO)})
    assert serialize({"a": ("F32", [2], F32_ONE_TWO)}) == expected
    assert serialize({"a": ("F32", [Index(2)], F32_ONE_TWO)}) == expected  # type: ignore[list-item]


@pytest.mark.parametrize(
    "data",
    [
        pytest.param(bytearray(F32_ONE_TWO), id="bytearray"),
        pytest.param(memoryview(F32_ONE_TWO), id="memoryview"),
        pytest.param(array.array("f", [1.0, 2.0]), id="array-of-float"),
        pytest.param(memoryview(F32_ONE_TWO).cast("B", (2, 4)), id="2-d-view"),
    ],
)
def test_accepts_any_contiguous_buffer(data: object) -> None:
    expected = serialize({"a": Tensor("F32", (2,), F32_ONE_TWO)})
    assert serialize({"a": ("F32", (2,), data)}) == expected  # type: ignore[dict-item]


def test_writes_a_strided_buffer_in_logical_order() -> None:
    strided = memoryview(b"aXbXcXdX")[::2]
    assert serialize({"a": Tensor("U8", [4], strided)}).endswith(b"abcd")


def test_writes_a_tensor_whose_bit_count_is_zero_despite_huge_dimensions() -> None:
    huge = 2**64 - 1
    data = serialize({"e": Tensor("F32", [huge, huge, 0], b"")})
    assert f'"shape":[{huge},{huge},0]'.encode() in data
    assert stspec.validate(data) == []


def test_writes_packed_sub_byte_tensors_with_whole_bytes() -> None:
    data = serialize(
        {
            "f4": Tensor("F4", [2, 3], b"\x21\x43\x65"),
            "f6": Tensor("F6_E2M3", [4], b"abc"),
        }
    )
    with stspec.read(data) as file:
        assert bytes(file.tensor_bytes("f4")) == b"\x21\x43\x65"
        assert bytes(file.tensor_bytes("f6")) == b"abc"


# Refusals ------------------------------------------------------------------

U64_MAX = 2**64 - 1
LONE = "\ud800"


@pytest.mark.parametrize(
    ("tensors", "metadata", "rule", "path"),
    [
        pytest.param(
            {"__metadata__": ("U8", [0], b"")},
            None,
            "WRITE-RESERVED",
            ("__metadata__",),
            id="reserved-name",
        ),
        pytest.param(
            {f"a{LONE}": ("U8", [0], b"")},
            None,
            "JSON-SURROGATE",
            (f"a{LONE}",),
            id="surrogate-in-name",
        ),
        pytest.param(
            {},
            {LONE: "v"},
            "JSON-SURROGATE",
            ("__metadata__", LONE),
            id="surrogate-in-metadata-key",
        ),
        pytest.param(
            {},
            {"k": f"\u00e9{LONE}"},
            "JSON-SURROGATE",
            ("__metadata__", "k"),
            id="surrogate-in-metadata-value",
        ),
        pytest.param(
            {"a": ("f32", [0], b"")},
            None,
            "DTYPE-NAME",
            ("a", "dtype"),
            id="lowercase-dtype",
        ),
        pytest.param(
            {"a": ("C128", [0], b"")},
            None,
            "DTYPE-NAME",
            ("a", "dtype"),
            id="unknown-dtype",
        ),
        pytest.param(
            {"a": (32, [0], b"")},
            None,
            "DTYPE-NAME",
            ("a", "dtype"),
            id="dtype-not-a-string",
        ),
        pytest.param(
            {"a": ("U8", "2", b"ab")},
            None,
            "SHAPE-ARRAY",
            ("a", "shape"),
            id="shape-a-string",
        ),
        pytest.param(
            {"a": ("U8", None, b"")},
            None,
            "SHAPE-ARRAY",
            ("a", "shape"),
            id="shape-none",
        ),
        pytest.param(
            {"a": ("U8", [1, "2"], b"ab")},
            None,
            "SHAPE-ARRAY",
            ("a", "shape", 1),
            id="dimension-a-string",
        ),
        pytest.param(
            {"a": ("U8", [True], b"a")},
            None,
            "SHAPE-ARRAY",
            ("a", "shape", 0),
            id="dimension-a-bool",
        ),
        pytest.param(
            {"a": ("U8", [2.0], b"ab")},
            None,
            "NUM-INTEGER",
            ("a", "shape", 0),
            id="dimension-a-float",
        ),
        pytest.param(
            {"a": ("U8", [-1], b"")},
            None,
            "NUM-INTEGER",
            ("a", "shape", 0),
            id="dimension-negative",
        ),
        pytest.param(
            {"a": ("U8", [1, U64_MAX + 1], b"")},
            None,
            "NUM-RANGE",
            ("a", "shape", 1),
            id="dimension-above-u64",
        ),
        pytest.param(
            {"a": ("F32", [2**62, 4], b"")},
            None,
            "SIZE-OVERFLOW",
            ("a", "shape"),
            id="bits-above-u64",
        ),
        pytest.param(
            {"a": ("U8", [U64_MAX], b"")},
            None,
            "SIZE-OVERFLOW",
            ("a", "shape"),
            id="bytes-at-u64-are-too-many-bits",
        ),
        pytest.param(
            {"a": ("F4", [3], b"ab")},
            None,
            "SIZE-BITS",
            ("a", "shape"),
            id="f4-odd-count",
        ),
        pytest.param(
            {"a": ("F6_E3M2", [2], b"ab")},
            None,
            "SIZE-BITS",
            ("a", "shape"),
            id="f6-two-elements",
        ),
        pytest.param(
            {"a": ("F32", [2], F32_ONE_TWO[:7])},
            None,
            "SIZE-MATCH",
            ("a",),
            id="data-short",
        ),
        pytest.param(
            {"a": ("F32", [], F32_ONE_TWO)},
            None,
            "SIZE-MATCH",
            ("a",),
            id="data-long",
        ),
        pytest.param(
            {}, {"k": 1}, "META-STRING", ("__metadata__", "k"), id="value-int"
        ),
        pytest.param(
            {}, {"k": None}, "META-STRING", ("__metadata__", "k"), id="value-none"
        ),
        pytest.param({}, {1: "v"}, "META-STRING", ("__metadata__",), id="key-int"),
    ],
)
def test_refuses_a_request_that_would_break_a_rule(
    tensors: dict[str, Tensor],
    metadata: dict[str, str] | None,
    rule: str,
    path: tuple[object, ...],
) -> None:
    with pytest.raises(SafetensorsError) as caught:
        serialize(tensors, metadata)
    assert (caught.value.rule, caught.value.offset, caught.value.path) == (
        rule,
        None,
        path,
    )


def test_names_the_reserved_rule_in_its_message() -> None:
    with pytest.raises(SafetensorsError) as caught:
        serialize({"__metadata__": Tensor("U8", [0], b"")})
    assert str(caught.value) == (
        "tensor name '__metadata__' is reserved for the metadata; rename the tensor "
        '(before writing, header $["__metadata__"]) [WRITE-RESERVED]'
    )


def test_gives_both_sizes_in_the_size_match_message() -> None:
    with pytest.raises(SafetensorsError) as caught:
        serialize({"w": Tensor("F32", [2, 2], b"\x00" * 15)})
    assert str(caught.value) == (
        "data of 15 bytes does not match shape [2, 2] of F32, which needs 16 "
        '(before writing, header $["w"]) [SIZE-MATCH]'
    )


def test_accepts_a_header_of_exactly_the_limit_and_refuses_one_more_byte() -> None:
    overhead = len('{"__metadata__":{"k":""}}')
    at_limit = serialize({}, {"k": "x" * (MAX_HEADER_SIZE - overhead)})
    assert struct.unpack_from("<Q", at_limit) == (MAX_HEADER_SIZE,)
    del at_limit
    with pytest.raises(SafetensorsError) as caught:
        serialize({}, {"k": "x" * (MAX_HEADER_SIZE - overhead + 1)})
    assert (caught.value.rule, caught.value.offset) == ("HEADER-LIMIT", None)


# API misuse is a TypeError -------------------------------------------------


@pytest.mark.parametrize(
    ("tensors", "metadata", "words"),
    [
        pytest.param(
            [("a", ("U8", [0], b""))],
            None,
            "tensors must be a mapping",
            id="tensors-a-list",
        ),
        pytest.param(
            {1: ("U8", [0], b"")}, None, "tensor names must be str", id="name-an-int"
        ),
        pytest.param(
            {"a": "U8"}, None, "tensors['a'] must be a Tensor", id="value-str"
        ),
        pytest.param(
            {"a": ("U8", [0])},
            None,
            "tensors['a'] must be a Tensor",
            id="value-2-tuple",
        ),
        pytest.param(
            {"a": ["U8", [0], b""]},
            None,
            "tensors['a'] must be a Tensor",
            id="value-a-list",
        ),
        pytest.param(
            {"a": ("U8", [1], "x")}, None, "tensors['a'].data must be", id="data-a-str"
        ),
        pytest.param(
            {"a": ("U8", [0], None)}, None, "tensors['a'].data must be", id="data-none"
        ),
        pytest.param(
            {}, [("k", "v")], "metadata must be None or a mapping", id="metadata-a-list"
        ),
    ],
)
def test_reports_api_misuse_as_a_type_error_naming_the_argument(
    tensors: object, metadata: object, words: str
) -> None:
    with pytest.raises(TypeError, match=words.replace("[", r"\[").replace("]", r"\]")):
        serialize(tensors, metadata)  # type: ignore[arg-type]


# Round trips and determinism -----------------------------------------------


def test_round_trips_through_the_strict_reader() -> None:
    tensors = {
        "embed.weight": Tensor("F32", (2, 2), struct.pack("<4f", 1, 2, 3, 4)),
        "mask": Tensor("BOOL", (3,), b"\x01\x00\x01"),
        "scale": Tensor("BF16", (), b"\x80\x3f"),
        "empty": Tensor("I64", (0, 7), b""),
        "packed": Tensor("F4", (4,), b"\x21\x43"),
    }
    data = serialize(tensors, {"format": "pt"})
    assert stspec.validate(data) == []
    with stspec.read(data) as file:
        assert file.metadata == {"format": "pt"}
        assert file.header_length % 8 == 0
        for name, tensor in tensors.items():
            info = file.tensors[name]
            assert (info.dtype, info.shape) == (tensor.dtype, tensor.shape)
            assert bytes(file.tensor_bytes(name)) == tensor.data


def test_writes_the_same_bytes_whatever_the_order_of_many_metadata_keys() -> None:
    items = [(f"key{index}", f"value{index}") for index in range(200)]
    outputs = set()
    for turn in range(0, 200, 37):
        rotated = items[turn:] + items[:turn]
        outputs.add(serialize({}, dict(rotated)))
        outputs.add(serialize({}, dict(reversed(rotated))))
    assert len(outputs) == 1
    with stspec.read(outputs.pop()) as file:
        assert file.metadata is not None
        assert list(file.metadata) == sorted(file.metadata)


names = st.text(max_size=8).filter(lambda name: name != "__metadata__")
dims = st.lists(st.integers(0, 3), max_size=3)


@st.composite
def tensor_requests(draw: st.DrawFn) -> Tensor:
    dtype = draw(st.sampled_from([dtype.name for dtype in DTYPES]))
    shape = draw(dims)
    elements = 1
    for dim in shape:
        elements *= dim
    bits = elements * stspec.dtypes.BITS[dtype]
    if bits % 8:
        shape = [*shape, 0]  # an empty tensor is always whole bytes
        bits = 0
    return Tensor(
        dtype, tuple(shape), draw(st.binary(min_size=bits // 8, max_size=bits // 8))
    )


@settings(max_examples=200, deadline=None)
@given(
    st.dictionaries(names, tensor_requests(), max_size=6),
    st.none() | st.dictionaries(st.text(max_size=5), st.text(max_size=5), max_size=3),
)
def test_everything_written_reads_back_equal_and_valid(
    tensors: dict[str, Tensor], metadata: dict[str, str] | None
) -> None:
    data = serialize(tensors, metadata)
    assert stspec.validate(data) == []
    with stspec.read(data) as file:
        assert file.metadata == metadata
        assert set(file.tensors) == set(tensors)
        for name, tensor in tensors.items():
            assert file.tensors[name].shape == tensor.shape
            assert bytes(file.tensor_bytes(name)) == tensor.data
