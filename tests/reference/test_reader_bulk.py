"""Compact entries taken in bulk: only what the strict path takes, a run or none."""

from __future__ import annotations

import json
import struct

import pytest
from test_reader_paths_agree import check_agreement

import stspec
from stspec.reader import bulk as _bulk
from stspec.reader import members as _header
from stspec.reader.table import TensorTable

U64_MAX = 2**64 - 1
Taken = tuple[int, int, int]


@pytest.fixture(autouse=True)
def bulk_from_the_first_byte(monkeypatch: pytest.MonkeyPatch) -> None:
    """Take even the shortest headers in bulk: some runs here are that short."""
    monkeypatch.setattr(_header, "BULK_MIN_LENGTH", 0)


def member(name: str, dtype: str, shape: str, begin: int | str, end: int | str) -> str:
    """One compact member with its comma, fields written as given."""
    return (
        f'"{name}":{{"dtype":"{dtype}","shape":[{shape}],'
        f'"data_offsets":[{begin},{end}]}},'
    )


def run(count: int, first: int = 0) -> list[str]:
    """Compact sound members t{first}.. of 6 bytes each, in buffer order."""
    return [
        member(f"t{number}", "F16", "3", 6 * number, 6 * number + 6)
        for number in range(first, first + count)
    ]


def file_with(
    members: list[str], *, data: int | None = None, last: bool = True
) -> bytes:
    """A file of these members (and a last one without a comma)."""
    body = "".join(members)
    size = 6 * len(members) if data is None else data
    if last:
        body += f'"end":{{"dtype":"U8","shape":[0],"data_offsets":[{size},{size}]}}'
    else:
        body = body.removesuffix(",")
    raw = ("{" + body + "}").encode()
    return struct.pack("<Q", len(raw)) + raw + bytes(size)


def test_a_sound_run_is_taken_whole() -> None:
    text = "".join(run(50)) + '"x":1}'
    table = TensorTable()
    after, taken, retry = _bulk.take(text, 0, table, set())
    assert (after, taken, retry) == (text.index('"x"'), 50, text.index('"x"'))
    assert dict(table) == {
        f"t{n}": stspec.TensorInfo(f"t{n}", "F16", (3,), 6 * n, 6 * n + 6)
        for n in range(50)
    }


def test_runs_longer_than_a_chunk_are_taken_chunk_by_chunk() -> None:
    members = run(_bulk.CHUNK // 40)
    text = "".join(members)
    after, taken, retry = _bulk.take(text, 0, TensorTable(), set())
    # The chunk ends inside a member: the run stops before it, and may go on.
    assert 0 < taken < len(members)
    assert after == retry == len("".join(members[:taken]))
    data = file_with(members)
    check_agreement(data)
    with stspec.read(data) as opened:
        assert len(opened.tensors) == len(members) + 1


def test_a_member_longer_than_a_chunk_is_left_to_the_scan() -> None:
    text = member("n" * _bulk.CHUNK, "U8", "1", 0, 1) + '"x":1}'
    assert _bulk.take(text, 0, TensorTable(), set()) == (0, 0, _bulk.CHUNK)
    check_agreement(file_with([member("n" * _bulk.CHUNK, "U8", "1", 0, 1)], data=1))


def test_a_run_stops_at_the_first_member_that_is_not_compact() -> None:
    odd = '"odd" :1,'
    text = "".join([*run(10), odd, *run(5, 11)])
    table = TensorTable()
    after, taken, retry = _bulk.take(text, 0, table, set())
    assert (after, taken, retry) == (text.index('"odd"'), 10, len(text))
    assert len(table) == 10
    check_agreement(file_with([*run(10), odd, *run(5, 11)]))
    # A member that the loose split runs through is no gap: the run has a
    # member it cannot prove, so none is taken.
    spaced = '"odd": {"dtype":"F16","shape":[3],"data_offsets":[60,66]},'
    text = "".join([*run(10), spaced, *run(5, 11)])
    assert _bulk.take(text, 0, TensorTable(), set()) == (0, 0, len(text))
    check_agreement(file_with([*run(10), spaced, *run(5, 11)]))


def test_whitespace_after_the_run_is_skipped() -> None:
    text = "".join(run(3)) + ' \n"x" : 1}'
    assert _bulk.take(text, 0, TensorTable(), set())[:2] == (text.index('"x"'), 3)


@pytest.mark.parametrize(
    "text",
    [
        pytest.param("".join(run(3)) + "}", id="comma-then-brace"),
        pytest.param("".join(run(3)) + "  }", id="comma-space-brace"),
    ],
)
def test_a_trailing_comma_is_left_to_the_scan(text: str) -> None:
    assert _bulk.take(text, 0, TensorTable(), set()) == (0, 0, len(text))
    raw = ("{" + text).encode()
    check_agreement(struct.pack("<Q", len(raw)) + raw + bytes(18))


# Each defect makes the whole run go the member-by-member way, which judges it.
DEFECTS = [
    pytest.param(member("a\\u0041", "F16", "3", 6, 12), id="escaped-name"),
    pytest.param(member("a\tb", "F16", "3", 6, 12), id="control-in-name"),
    pytest.param(member("t4", "F16", "3", 6, 12), id="repeated-name"),
    pytest.param(member("__metadata__", "F16", "3", 6, 12), id="metadata-name"),
    pytest.param(member("b", "F17", "3", 6, 12), id="unknown-dtype"),
    pytest.param(member("b", "f16", "3", 6, 12), id="lowercase-dtype"),
    pytest.param(member("b", "F16", "03", 6, 12), id="leading-zero-dim"),
    pytest.param(member("b", "F16", "3,", 6, 12), id="empty-dim"),
    pytest.param(member("b", "F16", str(U64_MAX + 1), 6, 12), id="dim-over-u64"),
    pytest.param(member("b", "F16", "1," * 256 + "3", 6, 12), id="256-dims"),
    pytest.param(member("b", "U8", f"{2**32},{2**32}", 6, 12), id="elements-over-u64"),
    pytest.param(member("b", "F4", "3", 6, 12), id="bits-not-bytes"),
    pytest.param(member("b", "F16", "4", 6, 12), id="size-mismatch"),
    pytest.param(member("b", "F16", "3", "06", 12), id="leading-zero-begin"),
    pytest.param(member("b", "F16", "3", "+6", 12), id="signed-begin"),
    pytest.param(member("b", "F16", "3", "", 6), id="empty-begin"),
    pytest.param(member("b", "F16", "3", "6" * 21, 12), id="long-begin"),
    pytest.param(member("b", "F16", "3", 6, "012"), id="leading-zero-end"),
    pytest.param(member("b", "F16", "3", 6, "12,1"), id="three-offsets"),
    pytest.param(member("b", "F16", "3", 6, "1_2"), id="underscore-end"),
    pytest.param(member("b", "U8", "0", U64_MAX + 1, U64_MAX + 1), id="begin-over-u64"),
    pytest.param(
        member("b", "U8", str(2**63), U64_MAX - 5, U64_MAX - 5 + 2**63),
        id="end-over-u64",
    ),
]


@pytest.mark.parametrize("defect", DEFECTS)
@pytest.mark.parametrize("at", [0, 1, 7])
def test_a_defect_anywhere_in_a_run_leaves_the_run_to_the_scan(
    defect: str, at: int
) -> None:
    members = run(8)
    members[at] = defect
    text = "".join(members) + '"x":1}'
    table = TensorTable()
    assert _bulk.take(text, 0, table, set()) == (0, 0, len(text))
    assert len(table) == 0
    check_agreement(file_with(members))


def test_names_already_seen_are_left_to_the_scan() -> None:
    text = "".join(run(4)) + '"x":1}'
    table = TensorTable()
    table.add("t2", "U8", (), 0, 0)
    assert _bulk.take(text, 0, table, set())[1] == 0
    assert _bulk.take(text, 0, TensorTable(), {"t3"})[1] == 0


def test_many_distinct_shapes_are_left_to_the_scan() -> None:
    members = [
        member(f"t{n}", "U8", f"1,{n + 1}", sum(range(n + 1)), sum(range(n + 2)))
        for n in range(300)
    ]
    assert _bulk.take("".join(members), 0, TensorTable(), set())[1] == 0
    check_agreement(file_with(members, data=sum(range(301))))


def test_entries_out_of_buffer_order_read_every_begin() -> None:
    members = [
        member("b", "U8", "2,2", 4, 8),
        member("a", "U8", "4", 0, 4),
        member("c", "U8", "", 8, 9),
    ]
    table = TensorTable()
    assert _bulk.take("".join(members) + '"x":1}', 0, table, set())[1] == 3
    assert [(info.name, info.begin, info.end) for info in table.values()] == [
        ("b", 4, 8),
        ("a", 0, 4),
        ("c", 8, 9),
    ]
    assert table["b"].shape == (2, 2)
    check_agreement(file_with(members, data=9))


@pytest.mark.parametrize(
    "bad",
    [
        pytest.param(member("b", "U8", "4", "04", 8), id="leading-zero"),
        pytest.param(member("b", "U8", "4", "x", 8), id="not-a-number"),
        pytest.param(member("b", "U8", "4", "4", 9), id="wrong-end"),
        pytest.param(
            member("b", "U8", str(2**63), U64_MAX - 2, U64_MAX - 2 + 2**63),
            id="end-over-u64",
        ),
    ],
)
def test_out_of_order_offsets_are_proved_too(bad: str) -> None:
    members = [member("a", "U8", "4", 8, 12), bad, member("c", "U8", "4", 0, 4)]
    assert _bulk.take("".join(members) + '"x":1}', 0, TensorTable(), set())[1] == 0
    check_agreement(file_with(members, data=12))


def test_a_tensor_past_the_buffer_is_located_as_on_the_strict_path() -> None:
    # Taken in bulk, its position is found again for LAYOUT-BOUNDS.
    members = run(20)
    data = file_with(members, data=6 * 20)[: -6 * 3]
    check_agreement(data)
    assert [error.rule for error in stspec.validate(data)][:1] == ["LAYOUT-BOUNDS"]


def test_metadata_between_runs_and_after_them() -> None:
    metadata = '"__metadata__":{"format":"pt","note":"[1]"},'
    members = [*run(5), metadata, *run(5, 5)]
    check_agreement(file_with(members))
    raw = ("{" + "".join(run(3)) + metadata.removesuffix(",") + "}").encode()
    check_agreement(struct.pack("<Q", len(raw)) + raw + bytes(18))


def test_pretty_printed_headers_agree_too() -> None:
    members = {
        f"t{n}": {"dtype": "F16", "shape": [3], "data_offsets": [6 * n, 6 * n + 6]}
        for n in range(600)
    }
    raw = json.dumps(members, indent=1).encode()
    check_agreement(struct.pack("<Q", len(raw)) + raw + bytes(3600))


def test_without_a_last_member_the_runs_comma_is_a_fault() -> None:
    check_agreement(file_with(run(4), last=False))


def test_one_by_one_distinct_shapes_past_the_kept_ones_are_read_as_written() -> None:
    # Not compact (a space after each colon): entries go one by one, and
    # the shapes converted once are bounded.
    members: dict[str, object] = {}
    cursor = 0
    for n in range(1100):
        members[f"t{n}"] = {
            "dtype": "U8",
            "shape": [1, n + 1],
            "data_offsets": [cursor, cursor + n + 1],
        }
        cursor += n + 1
    raw = json.dumps(members).encode()
    data = struct.pack("<Q", len(raw)) + raw + bytes(cursor)
    check_agreement(data)
    with stspec.read(data) as opened:
        assert opened.tensors["t1099"].shape == (1, 1100)


def test_after_a_first_fault_read_takes_entries_one_by_one() -> None:
    # Leading whitespace is the first violation; read() then only parses on.
    data = file_with(run(5))
    length = int.from_bytes(data[:8], "little")
    check_agreement(struct.pack("<Q", length + 1) + b" " + data[8:])


def test_a_short_header_goes_member_by_member(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.undo()  # the reader's own threshold
    calls: list[int] = []
    real = _bulk.take

    def take(text: str, pos: int, table: TensorTable, others: set[str]) -> Taken:
        calls.append(pos)
        return real(text, pos, table, others)

    monkeypatch.setattr(_bulk, "take", take)
    short, long = file_with(run(2)), file_with(run(20))
    header_length = struct.unpack_from("<Q", short)[0]
    assert header_length < _header.BULK_MIN_LENGTH
    stspec.read(short).close()
    assert calls == []
    with stspec.read(long) as opened:
        assert len(opened.tensors) == 21
    assert calls
