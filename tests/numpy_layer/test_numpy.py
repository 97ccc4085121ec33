"""stspec.numpy: zero-copy views, sub-byte unpacking, and from_numpy."""

from __future__ import annotations

import struct
from typing import TYPE_CHECKING, Any

import pytest

import stspec
from stspec import SafetensorsError, Tensor, serialize

np = pytest.importorskip("numpy")
ml_dtypes = pytest.importorskip("ml_dtypes")
stnp = pytest.importorskip("stspec.numpy")

if TYPE_CHECKING:
    from pathlib import Path

# Values every dtype can hold exactly (the FNUZ types have no -0, E8M0 only
# holds powers of two).
VALUES: dict[str, list[Any]] = {
    "BOOL": [True, False, True],
    "U8": [0, 1, 255],
    "I8": [-128, 0, 127],
    "I16": [-32768, 1, 32767],
    "U16": [0, 2, 65535],
    "I32": [-(2**31), 3, 2**31 - 1],
    "U32": [0, 4, 2**32 - 1],
    "I64": [-(2**63), 5, 2**63 - 1],
    "U64": [0, 6, 2**64 - 1],
    "F16": [0.5, -2.0, 65504.0],
    "F32": [0.5, -2.0, 3.25],
    "F64": [0.5, -2.0, 1e300],
    "C64": [1 + 2j, -0.5j, 3],
    "BF16": [0.5, -2.0, 256.0],
    "F8_E5M2": [0.5, -2.0, 57344.0],
    "F8_E4M3": [0.5, -2.0, 448.0],
    "F8_E8M0": [0.5, 2.0, 2.0**-127],
    "F8_E4M3FNUZ": [0.5, -2.0, 240.0],
    "F8_E5M2FNUZ": [0.5, -2.0, 57344.0],
}
NUMPY_TYPES: dict[str, Any] = {
    "BOOL": np.bool_,
    "U8": np.uint8,
    "I8": np.int8,
    "I16": np.int16,
    "U16": np.uint16,
    "I32": np.int32,
    "U32": np.uint32,
    "I64": np.int64,
    "U64": np.uint64,
    "F16": np.float16,
    "F32": np.float32,
    "F64": np.float64,
    "C64": np.complex64,
    "BF16": ml_dtypes.bfloat16,
    "F8_E5M2": ml_dtypes.float8_e5m2,
    "F8_E4M3": ml_dtypes.float8_e4m3fn,
    "F8_E8M0": ml_dtypes.float8_e8m0fnu,
    "F8_E4M3FNUZ": ml_dtypes.float8_e4m3fnuz,
    "F8_E5M2FNUZ": ml_dtypes.float8_e5m2fnuz,
}


def one(dtype: str, shape: tuple[int, ...], data: bytes) -> bytes:
    return serialize({"t": Tensor(dtype, shape, data)})


# to_numpy: zero-copy views ---------------------------------------------------


@pytest.mark.parametrize("dtype", sorted(VALUES))
def test_round_trips_the_values_of_every_viewable_dtype(dtype: str) -> None:
    array = np.array(VALUES[dtype], dtype=NUMPY_TYPES[dtype])
    tensor = stnp.from_numpy(array)
    assert tensor.dtype == dtype
    with stspec.read(serialize({"t": tensor})) as file:
        view = stnp.to_numpy(file, "t")
        assert view.dtype == array.dtype
        assert view.tolist() == array.tolist()


@pytest.mark.parametrize(
    ("dtype", "data", "value"),
    [
        pytest.param("F32", struct.pack("<f", 1.5), 1.5, id="F32"),
        pytest.param("I16", b"\xfe\xff", -2, id="I16-little-endian"),
        pytest.param("C64", struct.pack("<2f", 1, -1), 1 - 1j, id="C64-real-first"),
        pytest.param("BF16", b"\xc0\x3f", 1.5, id="BF16"),
        pytest.param("F8_E4M3", b"\x38", 1.0, id="F8_E4M3"),
        pytest.param("F8_E5M2", b"\x3c", 1.0, id="F8_E5M2"),
        pytest.param("F8_E8M0", b"\x7f", 1.0, id="F8_E8M0"),
        pytest.param("F8_E4M3FNUZ", b"\x40", 1.0, id="F8_E4M3FNUZ"),
        pytest.param("F8_E5M2FNUZ", b"\x40", 1.0, id="F8_E5M2FNUZ"),
    ],
)
def test_decodes_hand_written_bytes(dtype: str, data: bytes, value: object) -> None:
    with stspec.read(one(dtype, (), data)) as file:
        assert stnp.to_numpy(file, "t").item() == value


def test_views_a_bytes_source_without_copying() -> None:
    source = bytearray(one("F32", (2, 2), struct.pack("<4f", 1, 2, 3, 4)))
    with stspec.read(source) as file:
        view = stnp.to_numpy(file, "t")
        assert view.shape == (2, 2)
        source[-4:] = struct.pack("<f", 9)  # the view sees the source change
        assert view[1, 1] == 9


def test_views_a_mapped_file_read_only_without_copying(tmp_path: Path) -> None:
    path = tmp_path / "m.safetensors"
    path.write_bytes(one("I32", (3,), struct.pack("<3i", 7, 8, 9)))
    with stspec.read(path) as file:
        view = stnp.to_numpy(file, "t")
        raw = np.frombuffer(file.tensor_bytes("t"), dtype=np.uint8)
        assert np.shares_memory(view, raw)
        assert not view.flags.writeable
        assert view.tolist() == [7, 8, 9]


def test_views_an_empty_tensor_with_its_shape() -> None:
    with stspec.read(one("F64", (0, 5), b"")) as file:
        assert stnp.to_numpy(file, "t").shape == (0, 5)


def test_refuses_to_view_a_packed_tensor_and_names_unpack_subbyte() -> None:
    with (
        stspec.read(one("F4", (2,), b"\x21")) as file,
        pytest.raises(TypeError, match=r"unpack_subbyte\(file, 't'\)"),
    ):
        stnp.to_numpy(file, "t")


def test_raises_key_error_for_an_absent_tensor() -> None:
    with stspec.read(one("U8", (1,), b"\x01")) as file, pytest.raises(KeyError):
        stnp.to_numpy(file, "missing")


# unpack_subbyte: the spec's little-endian bit stream -------------------------


def test_unpacks_f4_low_nibble_first() -> None:
    # Bytes 0x21 0xf3 hold the codes 1, 2, 3, 15: 0.5, 1, 1.5, -6.
    with stspec.read(one("F4", (2, 2), b"\x21\xf3")) as file:
        array = stnp.unpack_subbyte(file, "t")
    assert array.dtype == ml_dtypes.float4_e2m1fn
    assert array.view(np.uint8).tolist() == [[1, 2], [3, 15]]
    assert array.astype(np.float32).tolist() == [[0.5, 1.0], [1.5, -6.0]]


@pytest.mark.parametrize(
    ("dtype", "data", "codes", "values"),
    [
        # codes a b c d -> bytes: a | b<<6, b>>2 | c<<4, c>>4 | d<<2 (mod 256)
        pytest.param(
            "F6_E2M3",
            b"\x08\xf3\x83",
            [8, 12, 0x3F, 0x20],
            [1.0, 1.5, -7.5, -0.0],
            id="E2M3",
        ),
        pytest.param(
            "F6_E3M2",
            b"\xcc\x07\xfe",
            [12, 0x1F, 0x20, 0x3F],
            [1.0, 28.0, -0.0, -28.0],
            id="E3M2",
        ),
    ],
)
def test_unpacks_f6_codes_across_byte_boundaries(
    dtype: str, data: bytes, codes: list[int], values: list[float]
) -> None:
    with stspec.read(one(dtype, (4,), data)) as file:
        array = stnp.unpack_subbyte(file, "t")
    assert array.view(np.uint8).tolist() == codes
    assert array.astype(np.float32).tolist() == values


def test_unpacks_into_a_new_writable_array() -> None:
    source = one("F4", (2,), b"\x21")
    with stspec.read(source) as file:
        array = stnp.unpack_subbyte(file, "t")
    array[0] = 6.0  # a copy: writable, and the file is untouched
    assert source.endswith(b"\x21")


def test_unpacks_an_empty_packed_tensor() -> None:
    with stspec.read(one("F6_E3M2", (3, 0), b"")) as file:
        assert stnp.unpack_subbyte(file, "t").shape == (3, 0)


def test_refuses_to_unpack_a_whole_byte_tensor_and_names_to_numpy() -> None:
    with (
        stspec.read(one("U8", (1,), b"\x01")) as file,
        pytest.raises(TypeError, match=r"to_numpy\(file, 't'\)"),
    ):
        stnp.unpack_subbyte(file, "t")


# from_numpy: logical C-order little-endian bytes -----------------------------


def test_does_not_copy_a_contiguous_little_endian_array() -> None:
    array = np.arange(6, dtype="<i4").reshape(2, 3)
    tensor = stnp.from_numpy(array)
    assert tensor == ("I32", (2, 3), tensor.data)
    assert np.shares_memory(np.frombuffer(tensor.data, dtype=np.uint8), array)


@pytest.mark.parametrize(
    "array",
    [
        pytest.param(np.arange(10, dtype=np.int64)[::2], id="strided"),
        pytest.param(np.arange(10, dtype=np.int64)[::-1][5:], id="reversed"),
        pytest.param(np.arange(5, dtype=np.int64).reshape(5, 1).T[0], id="transposed"),
        pytest.param(
            np.asfortranarray(np.arange(6, dtype=np.int64).reshape(2, 3)),
            id="fortran-order",
        ),
        pytest.param(np.arange(5, dtype=">i8"), id="big-endian"),
    ],
)
def test_writes_the_logical_values_of_any_layout(array: Any) -> None:
    tensor = stnp.from_numpy(array)
    expected = np.ascontiguousarray(array, dtype="<i8").tobytes()
    assert bytes(tensor.data) == expected
    with stspec.read(serialize({"t": tensor})) as file:
        assert stnp.to_numpy(file, "t").tolist() == array.tolist()


def test_byteswaps_big_endian_floats() -> None:
    tensor = stnp.from_numpy(np.array([1.5, -2.0], dtype=">f8"))
    assert bytes(tensor.data) == struct.pack("<2d", 1.5, -2.0)


def test_keeps_a_zero_dimensional_array_a_scalar() -> None:
    tensor = stnp.from_numpy(np.float16(1.0))
    assert (tensor.dtype, tensor.shape, bytes(tensor.data)) == ("F16", (), b"\x00\x3c")


def test_accepts_nested_lists_like_numpy_does() -> None:
    tensor = stnp.from_numpy([[1.0, 2.0]])
    assert (tensor.dtype, tensor.shape) == ("F64", (1, 2))


@pytest.mark.parametrize(
    "array",
    [
        pytest.param(np.zeros(2, dtype=np.complex128), id="complex128"),
        pytest.param(np.array(["a"]), id="str"),
        pytest.param(np.array([None]), id="object"),
    ],
)
def test_refuses_a_dtype_without_a_safetensors_name(array: Any) -> None:
    with pytest.raises(TypeError, match="has no safetensors dtype"):
        stnp.from_numpy(array)


def test_packs_f4_arrays_low_nibble_first() -> None:
    array = np.array([0.5, 1.0, 1.5, -6.0], dtype=ml_dtypes.float4_e2m1fn)
    tensor = stnp.from_numpy(array)
    assert (tensor.dtype, tensor.shape, bytes(tensor.data)) == ("F4", (4,), b"\x21\xf3")


@pytest.mark.parametrize(
    ("kind", "dtype"),
    [
        pytest.param(ml_dtypes.float6_e2m3fn, "F6_E2M3", id="E2M3"),
        pytest.param(ml_dtypes.float6_e3m2fn, "F6_E3M2", id="E3M2"),
    ],
)
def test_packs_f6_arrays_and_unpacks_them_back(kind: Any, dtype: str) -> None:
    array = np.array([[1.0, -1.5], [0.0, 3.0]], dtype=kind)
    tensor = stnp.from_numpy(array)
    assert (tensor.dtype, len(tensor.data)) == (dtype, 3)
    with stspec.read(serialize({"t": tensor})) as file:
        back = stnp.unpack_subbyte(file, "t")
    assert back.dtype == array.dtype
    assert back.tolist() == array.tolist()


def test_leaves_an_odd_f4_count_for_the_writer_to_refuse() -> None:
    tensor = stnp.from_numpy(np.zeros(3, dtype=ml_dtypes.float4_e2m1fn))
    with pytest.raises(SafetensorsError) as caught:
        serialize({"t": tensor})
    assert caught.value.rule == "SIZE-BITS"


# load: copies of everything --------------------------------------------------


def test_loads_every_tensor_as_an_independent_copy_in_file_order(
    tmp_path: Path,
) -> None:
    path = tmp_path / "all.safetensors"
    stspec.write(
        path,
        {
            "w": stnp.from_numpy(np.arange(4, dtype=np.float32)),
            "f4": stnp.from_numpy(np.array([0.5, 1.0], dtype=ml_dtypes.float4_e2m1fn)),
            "b": stnp.from_numpy(np.array([1.0], dtype=ml_dtypes.bfloat16)),
        },
    )
    loaded = stnp.load(path)
    assert list(loaded) == ["w", "b", "f4"]  # descending dtype order
    assert loaded["w"].tolist() == [0, 1, 2, 3]
    assert loaded["w"].flags.writeable
    assert loaded["f4"].astype(np.float32).tolist() == [0.5, 1.0]
    assert loaded["b"].dtype == ml_dtypes.bfloat16
    path.unlink()  # the arrays do not depend on the file
    assert loaded["w"].sum() == 6


def test_loads_from_bytes() -> None:
    assert stnp.load(one("U8", (2,), b"\x01\x02"))["t"].tolist() == [1, 2]


def test_load_raises_the_first_violation() -> None:
    with pytest.raises(SafetensorsError) as caught:
        stnp.load(b"\x00" * 4)
    assert caught.value.rule == "FILE-PREFIX"
