"""A small compact header judged whole: only what the plain path accepts, cheaply."""

from __future__ import annotations

import struct
from typing import TYPE_CHECKING

import pytest
from calls import python_calls
from hypothesis import given, settings
from test_reader_paths_agree import check_agreement, mutated_files, valid_files

import stspec
from stspec.reader.pipeline import check
from stspec.reader.recognise import WHOLE_LONGEST, sound_header

if TYPE_CHECKING:
    from pathlib import Path

ONE_TENSOR = (
    '{"__metadata__":{"format":"pt"},"model.layers.0.self_attn.q_proj.weight":'
    '{"dtype":"BF16","shape":[2,2],"data_offsets":[0,8]}}'
)


def file_of(header: str, data: int) -> bytes:
    raw = header.encode()
    return struct.pack("<Q", len(raw)) + raw + bytes(data)


def taken_whole_only_if_valid(data: bytes) -> bool:
    """Whether sound_header vouches for ``data``; if so, the plain path agrees."""
    found = sound_header(data, len(data))
    errors, valid = check(memoryview(data), limit=None, shortcuts=False)
    if found is None:
        return False
    assert errors == []
    assert valid is not None
    header_length, metadata, tensors = found
    assert header_length == valid.header_length
    assert metadata == valid.metadata
    assert list(tensors.items()) == list(valid.tensors.items())
    return True


@settings(max_examples=300, deadline=None)
@given(valid_files())
def test_a_valid_file_taken_whole_is_read_as_the_plain_path_reads_it(
    data: bytes,
) -> None:
    taken_whole_only_if_valid(data)
    with stspec.read(data) as opened:
        valid = check(memoryview(data), limit=None, shortcuts=False)[1]
        assert valid is not None
        assert opened.metadata == valid.metadata
        assert list(opened.tensors.items()) == list(valid.tensors.items())


@settings(max_examples=500, deadline=None)
@given(mutated_files())
def test_a_mutated_file_is_taken_whole_only_when_valid(data: bytes) -> None:
    taken_whole_only_if_valid(data)
    check_agreement(data)


def test_the_form_writers_emit_is_taken_whole() -> None:
    assert taken_whole_only_if_valid(file_of(ONE_TENSOR, 8))
    assert taken_whole_only_if_valid(file_of(ONE_TENSOR + "   ", 8))
    assert taken_whole_only_if_valid(file_of("{}", 0))
    assert taken_whole_only_if_valid(file_of('{"__metadata__":{}}', 0))
    empty = '{"a":{"dtype":"U8","shape":[0],"data_offsets":[0,0]}}'
    assert taken_whole_only_if_valid(file_of(empty, 0))


@pytest.mark.parametrize(
    ("header", "data"),
    [
        # broken: each is judged by the scan, which names the rule
        pytest.param('{"__metadata__":{},}', 0, id="comma-then-end"),
        pytest.param(
            '{"__metadata__":{}"a":{"dtype":"U8","shape":[1],"data_offsets":[0,1]}}',
            1,
            id="no-comma-after-metadata",
        ),
        pytest.param('{"__metadata__":{"a":"x","a":"y"}}', 0, id="repeated-key"),
        pytest.param(
            '{"a":{"dtype":"U8","shape":[1],"data_offsets":[0,1]},'
            '"a":{"dtype":"U8","shape":[1],"data_offsets":[1,2]}}',
            2,
            id="repeated-name",
        ),
        pytest.param(
            '{"__metadata__":{"dtype":"U8","shape":[1],"data_offsets":[0,1]}}',
            1,
            id="metadata-shaped-as-an-entry",
        ),
        pytest.param(
            '{"a":{"dtype":"X9","shape":[1],"data_offsets":[0,1]}}', 1, id="dtype"
        ),
        pytest.param(
            '{"a":{"dtype":"U8","shape":[2],"data_offsets":[0,1]}}', 1, id="size"
        ),
        pytest.param(
            '{"a":{"dtype":"F4","shape":[1],"data_offsets":[0,0]}}', 0, id="bits"
        ),
        pytest.param(
            '{"a":{"dtype":"U8","shape":[1],"data_offsets":[1,2]}}', 2, id="hole"
        ),
        pytest.param(
            '{"a":{"dtype":"U8","shape":[1],"data_offsets":[0,1]}}', 2, id="trailing"
        ),
        pytest.param(
            '{"a":{"dtype":"U8","shape":[1],"data_offsets":[0,1]}}\t', 1, id="tab"
        ),
        pytest.param(
            ' {"a":{"dtype":"U8","shape":[1],"data_offsets":[0,1]}}', 1, id="leading"
        ),
        pytest.param(
            '{"a":{"dtype":"U8","shape":[18446744073709551616],"data_offsets":[0,1]}}',
            1,
            id="dimension-over-u64",
        ),
        # valid, in a form this does not take: the scan reads it
        pytest.param(
            '{"a": {"dtype": "U8", "shape": [1], "data_offsets": [0, 1]}}',
            1,
            id="spaces",
        ),
        pytest.param(
            '{"a":{"dtype":"U8","shape":[1],"data_offsets":[0,1]},'
            '"__metadata__":{"k":"v"}}',
            1,
            id="metadata-last",
        ),
        pytest.param(
            '{"b":{"dtype":"U8","shape":[1],"data_offsets":[1,2]},'
            '"a":{"dtype":"U8","shape":[1],"data_offsets":[0,1]}}',
            2,
            id="buffer-out-of-header-order",
        ),
        pytest.param(
            '{"\\u00e9":{"dtype":"U8","shape":[1],"data_offsets":[0,1]}}',
            1,
            id="escaped-name",
        ),
        pytest.param('{"__metadata__":{"k":"a\\"b"}}', 0, id="escaped-value"),
    ],
)
def test_anything_else_goes_to_the_scan(header: str, data: int) -> None:
    raw = file_of(header, data)
    assert not taken_whole_only_if_valid(raw)
    check_agreement(raw)


def test_a_header_longer_than_the_limit_goes_to_the_scan() -> None:
    names = (f"t{number:04}" for number in range(WHOLE_LONGEST))
    members = ",".join(
        f'"{name}":{{"dtype":"U8","shape":[1],"data_offsets":[{n},{n + 1}]}}'
        for n, name in enumerate(names)
    )
    header = "{" + members + "}"
    assert len(header) > WHOLE_LONGEST
    data = file_of(header, WHOLE_LONGEST)
    assert sound_header(data, len(data)) is None
    check_agreement(data)


def test_a_file_shorter_than_its_header_goes_to_the_scan() -> None:
    data = file_of(ONE_TENSOR, 8)
    assert sound_header(data[:-10], len(data)) is None
    assert sound_header(data, len(data) - 1) is None
    assert sound_header(data[:5], 5) is None


# HF's safe_open + keys + metadata is 5 Python calls; reading a 1-tensor
# file the member scan's way was 82 (each worth a few percent of HF's time).
def test_reading_a_one_tensor_file_costs_a_few_python_calls(tmp_path: Path) -> None:
    path = tmp_path / "one.safetensors"
    path.write_bytes(file_of(ONE_TENSOR, 8))

    def read_file() -> None:
        with stspec.read(path, mapped=False):
            pass

    def read_mapped() -> None:
        with stspec.read(path):
            pass

    # (read_file itself included; a Path: os.fspath is 2 of them)
    assert python_calls(read_file) <= 24
    assert python_calls(read_mapped) <= 18
    assert python_calls(lambda: stspec.validate(path)) <= 16
