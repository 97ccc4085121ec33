"""read() answers from a header's first bytes when they settle the first violation.

Whatever the number of first bytes judged alone, the answer is validate()'s
first error; a hostile header costs what its first bytes cost plus one
decoding pass, never a copy of its text.
"""

from __future__ import annotations

import tracemalloc
from typing import TYPE_CHECKING

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st
from stfiles import file_of

import stspec
from stspec.reader.first import utf8_fault
from stspec.reader.pipeline import check

if TYPE_CHECKING:
    from pathlib import Path

ENTRY = '{"dtype":"U8","shape":[1],"data_offsets":[0,1]}'
# Members of every kind a first-bytes answer must tell apart: faults that
# settle the parse, faults that do not, a nesting too deep, sound entries.
MEMBERS = [
    '"__metadata__":{"a":"\\ud800"}',
    '"__metadata__":{"a":"x","a":"y"}',
    '"__metadata__":["\\ud800"]',
    '"deep":' + "[" * 130 + "]" * 130,
    '"ok":{"dtype":"U8","shape":[1],"data_offsets":[0,1],"x":' + "[" * 130 + "]}",
    '"\\udc00":' + ENTRY,
    '"b":' + ENTRY,
    '"c":{"dtype":"X","shape":[1],"data_offsets":[0,1]}',
    '"d":{"dtype":"U8","shape":[1],"data_offsets":[0,99]}',
    '"e":[{"x":1,"x":2}]',
    '"f":"\\ud800"',
    '"g":{"dtype":"U8","shape":[1],"data_offsets":[0,1],"x":{"y":1,"y":2}}',
    '"h":{"dtype":"U8","shape":[1],"data_offsets":[0,1],"x":"\\udfff"}',
    '"é":' + ENTRY,
    # Reversed pairs: begin past the buffer, end inside it (OFFSETS-ORDER
    # alone), and both past it (OFFSETS-ORDER and LAYOUT-BOUNDS).
    '"r":{"dtype":"U8","shape":[1],"data_offsets":[9,0]}',
    '"s":{"dtype":"U8","shape":[1],"data_offsets":[99,98]}',
]
# Faults planted anywhere: bytes that are not UTF-8, syntax, a cut string.
JUNK = [b"\xff", b"\xe0\x80", b"\xf0\x9f\x98", b",", b"}", b"]", b"tru", b'"', b"\t"]


@st.composite
def hostile_files(draw: st.DrawFn) -> bytes:
    members = draw(st.lists(st.sampled_from(MEMBERS), max_size=6))
    lead = draw(st.sampled_from(["", "", "", " ", "\n", "x"]))
    header = (lead + "{" + ",".join(members) + "}").encode()
    header += b" " * draw(st.integers(0, 3))
    for _ in range(draw(st.integers(0, 2))):
        position = draw(st.integers(0, len(header)))
        header = header[:position] + draw(st.sampled_from(JUNK)) + header[position:]
    return file_of(header, b"x" * draw(st.integers(0, 2)))


def first_error(
    data: bytes, head: int, *, shortcuts: bool = True
) -> tuple[str, int | None] | None:
    errors, _ = check(
        memoryview(data), limit=1, first_only=True, head=head, shortcuts=shortcuts
    )
    return (errors[0].rule, errors[0].offset) if errors else None


def assert_every_head_agrees(data: bytes) -> None:
    listed = stspec.validate(data)
    expected = (listed[0].rule, listed[0].offset) if listed else None
    header_length = int.from_bytes(data[:8], "little")
    for head in range(1, max(header_length, 1), max(header_length // 20, 1)):
        assert first_error(data, head=head) == expected, head
        assert first_error(data, head=head, shortcuts=False) == expected, head


@settings(max_examples=200, deadline=None)
@given(hostile_files())
@example(file_of('{"__metadata__":{"a":"\\ud800"}' + "\xff"))
@example(file_of(' {"a":[' + "[" * 200))
def test_any_number_of_first_bytes_gives_validates_first_error(data: bytes) -> None:
    assert_every_head_agrees(data)


@pytest.mark.parametrize(
    ("header", "rule"),
    [
        pytest.param(
            '{"__metadata__":{"a":"\\ud800"}}', "JSON-SURROGATE", id="surrogate"
        ),
        pytest.param('{"a":' + "[" * 200 + "]" * 200 + "}", "JSON-DEPTH", id="bomb"),
        pytest.param('  {"a":1', "HEADER-LEADING-WS", id="leading-whitespace"),
        pytest.param('  "a"', "HEADER-OBJECT", id="not-an-object"),
        pytest.param("\xe9\xff{}", "HEADER-UTF8", id="not-utf8-at-once"),
    ],
)
def test_a_fault_in_the_first_bytes_is_the_answer(header: str, rule: str) -> None:
    raw = header.encode("latin-1") if rule == "HEADER-UTF8" else header.encode()
    data = file_of(raw + b" " * 1000)
    assert first_error(data, head=40) == (rule, stspec.validate(data)[0].offset)


@pytest.mark.parametrize(
    "header",
    [
        pytest.param(" " * 100 + "{}", id="only-whitespace-first"),
        pytest.param('{"a":' + ENTRY + "}" + " " * 100, id="object-ends-first"),
        pytest.param('{"a":"' + "x" * 100 + '"}', id="cut-in-a-string"),
        pytest.param(
            '{"c":{"dtype":"X","shape":[1]' + " " * 50 + "}}", id="structural"
        ),
        pytest.param(
            '{"c":{"dtype":"X","shape":[1],"x":' + "[" * 200, id="structural-then-deep"
        ),
    ],
)
def test_first_bytes_that_settle_nothing_leave_the_answer_to_the_whole(
    header: str,
) -> None:
    data = file_of(header.encode() + b"\xff", b"x")
    # The byte that is not UTF-8 comes last, and comes first all the same.
    assert first_error(data, head=40) == ("HEADER-UTF8", 8 + len(header))
    assert_every_head_agrees(data)


def test_a_late_byte_that_is_not_utf8_outranks_an_early_fault() -> None:
    header = b'{"__metadata__":{"a":"\\ud800"}}' + b" " * 3000 + b"\xc3("
    data = file_of(header)
    expected = ("HEADER-UTF8", 8 + len(header) - 2)
    assert first_error(data, head=64) == expected
    assert stspec.validate(data)[0].offset == expected[1]


@pytest.mark.parametrize("source", ["surrogates", "bomb"])
def test_a_large_hostile_header_is_never_copied_whole(source: str) -> None:
    # 4 MB: read() looks at its first 32 KB alone, then decodes the rest a
    # chunk (256 KiB) at a time; the whole pipeline holds a 4 MB text.
    size = 4_000_000
    if source == "surrogates":
        meta = ",".join(f'"{i}":"\\ud800"' for i in range(size // 18))
        header = '{"__metadata__":{' + meta + "}}"
    else:
        header = '{"t":' + "[" * (size // 2) + "]" * (size // 2) + "}"
    data = file_of(header)
    tracemalloc.start()
    try:
        with pytest.raises(stspec.SafetensorsError) as caught:
            stspec.read(data)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    # The answer of the whole pipeline (validate() agrees, but takes seconds).
    assert (caught.value.rule, caught.value.offset) == first_error(data, head=0)
    assert peak < size // 3


@pytest.mark.parametrize("mapped", [True, False])
def test_a_large_hostile_file_is_answered_mapped_or_not(
    tmp_path: Path, mapped: bool
) -> None:
    header = '{"t":' + "[" * 300_000 + "]" * 300_000 + "}"
    path = tmp_path / "bomb.safetensors"
    path.write_bytes(file_of(header.encode() + b"   \x80"))
    with pytest.raises(stspec.SafetensorsError) as caught:
        stspec.read(path, mapped=mapped)
    assert (caught.value.rule, caught.value.offset) == ("HEADER-UTF8", 8 + 600_009)


def test_a_large_valid_header_is_read_in_full() -> None:
    members = ",".join(
        f'"t{i}":{{"dtype":"U8","shape":[1],"data_offsets":[{i},{i + 1}]}}'
        for i in range(12_000)
    )
    data = file_of("{" + members + "}", bytes(12_000))
    assert len(data) > 1 << 19
    with stspec.read(data) as handle:
        assert len(handle.tensors) == 12_000


# The chunked decoder finds the fault the whole-text decoder finds. -----------

TEXT = st.lists(
    st.one_of(
        st.characters().map(lambda char: char.encode("utf-8", "surrogatepass")),
        st.binary(max_size=3),
    ),
    max_size=30,
).map(b"".join)


@settings(max_examples=500, deadline=None)
@given(st.text(max_size=3), TEXT, st.integers(4, 9))
def test_decoding_by_chunks_finds_the_first_fault(
    decoded: str, rest: bytes, chunk: int
) -> None:
    # What the first bytes held was UTF-8, up to a character boundary.
    start = len(decoded.encode())
    raw = decoded.encode() + rest
    try:
        raw[start:].decode()
    except UnicodeDecodeError as exc:
        expected: tuple[int, str] | None = (start + exc.start, exc.reason)
    else:
        expected = None
    assert utf8_fault(memoryview(raw), start, chunk) == expected
