"""The reading API: sources, zero-copy views, the tensor table, errors."""

from __future__ import annotations

import gc
import mmap
import os
import pickle
from typing import TYPE_CHECKING

import pytest
from stfiles import U8_PAIR, entry, file_from, file_of

import stspec
from stspec.errors import json_path

if TYPE_CHECKING:
    from collections.abc import Callable
    from pathlib import Path


@pytest.fixture
def pair_path(tmp_path: Path) -> Path:
    path = tmp_path / "pair.safetensors"
    path.write_bytes(U8_PAIR)
    return path


@pytest.mark.parametrize(
    "make_source",
    [
        pytest.param(lambda path: path, id="Path"),
        pytest.param(str, id="str"),
        pytest.param(lambda path: path.read_bytes(), id="bytes"),
        pytest.param(lambda path: bytearray(path.read_bytes()), id="bytearray"),
        pytest.param(lambda path: memoryview(path.read_bytes()), id="memoryview"),
    ],
)
def test_read_accepts_paths_and_bytes_alike(
    pair_path: Path,
    make_source: Callable[[Path], str | Path | bytes | bytearray | memoryview],
) -> None:
    with stspec.read(make_source(pair_path)) as handle:
        assert list(handle.tensors) == ["a", "b"]
        assert bytes(handle.tensor_bytes("a")) == b"xy"
        assert bytes(handle.tensor_bytes("b")) == b"z"
        assert handle.metadata is None


def test_layout_attributes_describe_the_file(pair_path: Path) -> None:
    with stspec.read(pair_path) as handle:
        header_length = int.from_bytes(U8_PAIR[:8], "little")
        assert handle.header_length == header_length
        assert handle.data_start == 8 + header_length
        assert handle.file_length == len(U8_PAIR)
        assert repr(handle) == (
            f"<SafetensorsFile 2 tensors, header {header_length} bytes, "
            f"file {len(U8_PAIR)} bytes>"
        )


def test_tensor_bytes_are_a_view_of_the_mapping(pair_path: Path) -> None:
    handle = stspec.read(pair_path)
    view = handle.tensor_bytes("a")
    assert isinstance(view.obj, mmap.mmap)
    assert view.readonly
    handle.close()
    # The exported view keeps the mapping alive after close().
    assert bytes(view) == b"xy"
    view.release()


def test_close_unmaps_when_no_view_is_left(pair_path: Path) -> None:
    handle = stspec.read(pair_path)
    mapping = handle.tensor_bytes("a").obj
    assert isinstance(mapping, mmap.mmap)
    handle.close()
    assert mapping.closed


def test_an_empty_file_on_disk_is_too_short(tmp_path: Path) -> None:
    path = tmp_path / "empty.safetensors"
    path.touch()
    with pytest.raises(stspec.SafetensorsError, match=r"\[FILE-PREFIX\]"):
        stspec.read(path)
    assert [error.rule for error in stspec.validate(path)] == ["FILE-PREFIX"]


def test_rejecting_a_path_releases_the_mapping(tmp_path: Path) -> None:
    path = tmp_path / "hole.safetensors"
    path.write_bytes(file_from({"a": entry("U8", [1], 1, 2)}, b"xy"))
    with pytest.raises(stspec.SafetensorsError):
        stspec.read(path)
    assert [error.rule for error in stspec.validate(path)] == ["LAYOUT-HOLE"]


def test_a_missing_path_is_an_os_error(tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError):
        stspec.read(tmp_path / "absent.safetensors")


def test_a_non_source_is_a_type_error_naming_the_type() -> None:
    with pytest.raises(TypeError, match="not float"):
        stspec.read(3.0)  # type: ignore[arg-type]
    # bool is an int, but True is no file descriptor anyone means
    with pytest.raises(TypeError, match="not bool"):
        stspec.read(True)


@pytest.mark.parametrize("mapped", [True, False])
def test_a_file_descriptor_is_read_and_left_open(
    tmp_path: Path, *, mapped: bool
) -> None:
    path = tmp_path / "fd.safetensors"
    stspec.write(path, {"w": ("U8", [3], b"abc")})
    fd = os.open(path, os.O_RDONLY)
    try:
        with stspec.read(fd, mapped=mapped) as opened:
            assert bytes(opened.tensor_bytes("w")) == b"abc"
        assert stspec.validate(fd, mapped=mapped) == []
        # still open, and its position untouched
        assert os.lseek(fd, 0, os.SEEK_CUR) == 0
        assert os.fstat(fd).st_size == path.stat().st_size
    finally:
        os.close(fd)


def test_tensor_table_is_a_read_only_mapping_in_file_order() -> None:
    data = file_from(
        {
            "__metadata__": {"format": "pt"},
            "z": entry("F16", [2, 1], 0, 4),
            "a": entry("BOOL", [], 4, 5),
            "e": entry("F4", [0, 7], 5, 5),
        },
        b"\0\0\0\0\1",
    )
    with stspec.read(data) as handle:
        table = handle.tensors
        assert list(table) == ["z", "a", "e"]
        assert len(table) == 3
        assert "a" in table
        assert "q" not in table
        assert table["z"] == stspec.TensorInfo("z", "F16", (2, 1), 0, 4)
        assert table["a"].nbytes == 1
        assert table["e"].shape == (0, 7)
        assert handle.metadata == {"format": "pt"}
        assert repr(table).startswith("TensorTable([TensorInfo(name='z'")
        with pytest.raises(KeyError):
            table["q"]


def test_json_order_need_not_follow_offsets() -> None:
    data = file_from({"b": entry("U8", [1], 2, 3), "a": entry("U8", [2], 0, 2)}, b"xyz")
    with stspec.read(data) as handle:
        assert list(handle.tensors) == ["b", "a"]
        assert bytes(handle.tensor_bytes("b")) == b"z"


def test_fields_in_any_order_are_accepted() -> None:
    data = file_of('{"a":{"shape":[1],"data_offsets":[0,1],"dtype":"U8"}}', b"x")
    with stspec.read(data) as handle:
        assert handle.tensors["a"] == stspec.TensorInfo("a", "U8", (1,), 0, 1)


def test_a_minus_sign_in_a_name_is_no_number() -> None:
    # The fast path declines on "-0" anywhere; the strict path accepts.
    data = file_from({"layer-0,-0": entry("U8", [1], 0, 1)}, b"x")
    with stspec.read(data) as handle:
        assert list(handle.tensors) == ["layer-0,-0"]


def test_paired_surrogate_escapes_are_valid() -> None:
    data = file_of(
        '{"\\ud83d\\ude00":{"dtype":"U8","shape":[1],"data_offsets":[0,1]}}', b"x"
    )
    with stspec.read(data) as handle:
        assert list(handle.tensors) == ["\U0001f600"]


def test_zero_dimension_beside_huge_ones_is_an_empty_tensor() -> None:
    big = 2**64 - 1
    data = file_from({"a": entry("U8", [big, big, 0], 0, 0)})
    with stspec.read(data) as handle:
        assert handle.tensors["a"].shape == (big, big, 0)
        assert bytes(handle.tensor_bytes("a")) == b""


def test_metadata_that_looks_like_a_tensor_is_metadata() -> None:
    data = file_of(
        '{"__metadata__":{"dtype":"U8","shape":"[1]","data_offsets":"[0,1]"}}'
    )
    with stspec.read(data) as handle:
        assert len(handle.tensors) == 0
        assert handle.metadata == {
            "dtype": "U8",
            "shape": "[1]",
            "data_offsets": "[0,1]",
        }


def test_error_carries_rule_offset_message_and_path() -> None:
    error = stspec.SafetensorsError(
        "SIZE-MATCH", 12, "too short", ("w", "data_offsets", 1)
    )
    assert (error.rule, error.offset, error.msg) == ("SIZE-MATCH", 12, "too short")
    assert isinstance(error, ValueError)
    assert (
        str(error)
        == 'too short (at byte 12, header $["w"]["data_offsets"][1]) [SIZE-MATCH]'
    )
    assert error.as_dict() == {
        "rule": "SIZE-MATCH",
        "offset": 12,
        "path": '$["w"]["data_offsets"][1]',
        "message": "too short",
    }


def test_error_without_offset_or_path() -> None:
    error = stspec.SafetensorsError("WRITE-RESERVED", None, "reserved name")
    assert str(error) == "reserved name (before writing) [WRITE-RESERVED]"
    assert error.as_dict()["path"] is None


def test_error_pickles_with_its_fields() -> None:
    error = stspec.SafetensorsError("LAYOUT-HOLE", 99, "gap", ("b",))
    copy = pickle.loads(pickle.dumps(error))  # noqa: S301 - our own object
    assert (copy.rule, copy.offset, copy.msg, copy.path) == (
        "LAYOUT-HOLE",
        99,
        "gap",
        ("b",),
    )


def test_errors_are_equal_by_rule_offset_and_message() -> None:
    error = stspec.SafetensorsError("LAYOUT-HOLE", 99, "gap", ("b",))
    same = stspec.SafetensorsError("LAYOUT-HOLE", 99, "gap", ("b",))
    assert error == same
    assert hash(error) == hash(same)
    assert error == pickle.loads(pickle.dumps(error))  # noqa: S301 - our own object
    assert len({error, same}) == 1
    for other in (
        stspec.SafetensorsError("LAYOUT-OVERLAP", 99, "gap", ("b",)),
        stspec.SafetensorsError("LAYOUT-HOLE", 98, "gap", ("b",)),
        stspec.SafetensorsError("LAYOUT-HOLE", None, "gap", ("b",)),
        stspec.SafetensorsError("LAYOUT-HOLE", 99, "hole", ("b",)),
    ):
        assert error != other
    assert error != ValueError("LAYOUT-HOLE", 99, "gap", ("b",))
    assert error != ("LAYOUT-HOLE", 99, "gap")


def test_the_same_file_gives_equal_errors_twice() -> None:
    data = file_from({"a": entry("F32", [2], 0, 4)}, bytes(4))
    first, second = stspec.validate(data), stspec.validate(data)
    assert first == second
    assert first[0] is not second[0]
    with pytest.raises(stspec.SafetensorsError) as caught:
        stspec.read(data)
    assert caught.value == first[0]


def test_error_refuses_an_unknown_rule_id() -> None:
    with pytest.raises(KeyError, match="NOT-A-RULE"):
        stspec.SafetensorsError("NOT-A-RULE", 0, "x")


def test_json_path_escapes_lone_surrogates() -> None:
    assert json_path(("\ud800", 0)) == '$["\\ud800"][0]'


def test_verdicts_follow_rule_levels() -> None:
    assert stspec.verdict_of(set()) == "valid"
    assert stspec.verdict_of({"HEADER-PADDING", "META-NULL"}) == "tolerated"
    assert stspec.verdict_of({"HEADER-PADDING", "LAYOUT-HOLE"}) == "invalid"


def test_public_names_are_exactly_all() -> None:
    assert sorted(dir(stspec)) == sorted([*stspec.__all__, "__version__"])


def test_reading_leaves_a_paused_collector_paused() -> None:
    gc.disable()
    try:
        stspec.read(U8_PAIR).close()
        assert stspec.validate(file_of(b"{}x")) != []
        assert not gc.isenabled()
    finally:
        gc.enable()
    stspec.read(U8_PAIR).close()
    assert gc.isenabled()
