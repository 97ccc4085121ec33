"""The shortcuts (regular expressions, the C decoder) never change a verdict,
and read agrees with validate on every input."""

from __future__ import annotations

import json
import math
import struct
from typing import TYPE_CHECKING

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from stfiles import entry, file_from, file_of

import stspec
from stspec.reader.pipeline import check

if TYPE_CHECKING:
    from pathlib import Path

DTYPES = [dtype.name for dtype in stspec.DTYPES]
MUST = {rule.id: rule.level == "MUST" for rule in stspec.RULES}


@st.composite
def valid_files(draw: st.DrawFn) -> bytes:
    names = draw(st.lists(st.text(max_size=6), max_size=5, unique=True))
    members: dict[str, object] = {}
    if draw(st.booleans()):
        members["__metadata__"] = draw(
            st.dictionaries(st.text(max_size=4), st.text(max_size=4), max_size=3)
        )
    names = [name for name in names if name != "__metadata__"]
    cursor = 0
    for name in names:
        dtype = draw(st.sampled_from(DTYPES))
        bits = next(d.bits for d in stspec.DTYPES if d.name == dtype)
        shape = draw(st.lists(st.integers(0, 4), max_size=3))
        count = 1
        for dim in shape:
            count *= dim
        if count * bits % 8:
            shape = [*shape, 8]
            count *= 8
        size = count * bits // 8
        members[name] = {
            "dtype": dtype,
            "shape": shape,
            "data_offsets": [cursor, cursor + size],
        }
        cursor += size
    items = list(members.items())
    order = draw(st.permutations(range(len(items))))
    header = json.dumps(
        dict(items[i] for i in order),
        separators=(",", ":"),
        ensure_ascii=draw(st.booleans()),
    )
    raw = header.encode() + b" " * draw(st.integers(0, 7))
    return struct.pack("<Q", len(raw)) + raw + bytes(cursor)


@st.composite
def reordered_files(draw: st.DrawFn) -> bytes:
    """A valid file in json.dumps(sort_keys=True)'s order, or field names escaped."""
    data = draw(valid_files())
    length = struct.unpack("<Q", data[:8])[0]
    members = json.loads(data[8 : 8 + length])
    text = json.dumps(members, separators=(",", ":"), sort_keys=draw(st.booleans()))
    for field, spelt in (
        ("dtype", "\\u0064type"),
        ("shape", "sh\\u0061pe"),
        ("data_offsets", "data\\u005Foffsets"),
    ):
        if draw(st.booleans()):
            text = text.replace(f'"{field}"', f'"{spelt}"')
    raw = text.encode() + b" " * draw(st.integers(0, 7))
    return struct.pack("<Q", len(raw)) + raw + data[8 + length :]


@st.composite
def mutated_files(
    draw: st.DrawFn, files: st.SearchStrategy[bytes] | None = None
) -> bytes:
    data = bytearray(draw(valid_files() if files is None else files))
    for _ in range(draw(st.integers(1, 3))):
        kind = draw(st.sampled_from(["flip", "insert", "delete", "token"]))
        position = draw(st.integers(0, len(data)))
        if kind == "flip" and position < len(data):
            data[position] = draw(st.integers(0, 255))
        elif kind == "insert":
            data[position:position] = draw(st.binary(min_size=1, max_size=3))
        elif kind == "delete":
            del data[position : position + draw(st.integers(1, 3))]
        else:
            token = draw(
                st.sampled_from(
                    [
                        b"-0",
                        b"-1",
                        b"1.5",
                        b"1e2",
                        b"\\ud800",
                        b'"a"',
                        b",",
                        b"null",
                        b"18446744073709551616",
                        b"[",
                        b"{",
                        b"NaN",
                        b" ",
                        b"\t",
                    ]
                )
            )
            data[position:position] = token
    return bytes(data)


def check_agreement(data: bytes) -> None:
    errors, valid = check(memoryview(data), limit=None, shortcuts=False)
    assert (valid is None) == bool(errors)
    fast_errors, fast = check(memoryview(data), limit=None)
    assert [(e.rule, e.offset, e.path) for e in fast_errors] == [
        (e.rule, e.offset, e.path) for e in errors
    ]
    if fast is not None:
        assert valid is not None
        assert fast.metadata == valid.metadata
        assert dict(fast.tensors) == dict(valid.tensors)
    listed = stspec.validate(data)
    assert [(e.rule, e.offset) for e in listed] == [
        (e.rule, e.offset) for e in errors if e.rule in {x.rule for x in listed}
    ][: len(listed)]
    if errors:
        read_raises_first(data, list(errors))
    else:
        stspec.read(data).close()


def agree_within(data: bytes, limit: int | None) -> list[stspec.SafetensorsError]:
    """Both paths keep the same violations, messages included, within ``limit``.

    Returns the plain path's, for the first-violation check.
    """
    plain, _ = check(memoryview(data), limit=limit, shortcuts=False)
    fast, _ = check(memoryview(data), limit=limit)
    assert [(e.rule, e.offset, e.path, e.msg) for e in fast] == [
        (e.rule, e.offset, e.path, e.msg) for e in plain
    ]
    assert fast.omitted == plain.omitted
    return list(plain)


def read_raises_first(data: bytes, errors: list[stspec.SafetensorsError]) -> None:
    """READ-PRECEDENCE: read() raises the first MUST violation, else the first."""
    first = next((e for e in errors if MUST[e.rule]), errors[0])
    with pytest.raises(stspec.SafetensorsError) as caught:
        stspec.read(data)
    assert (caught.value.rule, caught.value.offset) == (first.rule, first.offset)


@settings(max_examples=200, deadline=None)
@given(valid_files())
def test_generated_valid_files_pass_both_paths(data: bytes) -> None:
    assert stspec.validate(data) == []
    check_agreement(data)


@settings(max_examples=500, deadline=None)
@given(mutated_files())
def test_mutated_files_get_one_verdict(data: bytes) -> None:
    check_agreement(data)


@settings(max_examples=200, deadline=None)
@given(reordered_files())
def test_fields_in_other_orders_or_escaped_pass_both_paths(data: bytes) -> None:
    assert stspec.validate(data) == []
    check_agreement(data)


@settings(max_examples=300, deadline=None)
@given(mutated_files(reordered_files()))
def test_mutated_reordered_files_get_one_verdict(data: bytes) -> None:
    check_agreement(data)


# A value that is not an object is judged after it is skipped: ENTRY-OBJECT
# (or META-OBJECT) at its start and a surrogate in its name come before any
# fault inside it, so read() must not stop at that fault.
@pytest.mark.parametrize(
    "header",
    [
        pytest.param('{"\\ud800":"\\ud800"', id="surrogate-name-then-stop"),
        pytest.param('{"\\ud800":"\\ud800"}', id="surrogate-name-string-entry"),
        pytest.param('{"\\ud800":[{"x":1,"x":2}]}', id="surrogate-name-repeat"),
        pytest.param('{"a":[1,"\\ud800"]}', id="surrogate-in-array-entry"),
        pytest.param('{"a":[{"x":1,"x":2}]}', id="repeat-in-array-entry"),
        pytest.param('{"__metadata__":["\\ud800"]}', id="surrogate-in-metadata"),
        pytest.param('{"__metadata__":[{"x":1,"x":2}]}', id="repeat-in-metadata"),
    ],
)
def test_read_raises_the_fault_before_a_non_object_value(header: str) -> None:
    raw = header.encode()
    data = struct.pack("<Q", len(raw)) + raw
    # The first violation lies at or before the value, not inside it.
    first = stspec.validate(data)[0].offset
    assert first is not None
    assert first <= 8 + header.index(":") + 1
    check_agreement(data)


def test_many_shapes_repeated_and_distinct_are_each_read_as_written() -> None:
    # The shortcut converts a shape once and keeps a bounded number of them;
    # past that bound, and for every repeat, each tensor keeps its own shape.
    # Repeats of equal size and different dimensions, among distinct ones.
    alike = [(2, 3), (3, 2), (1, 6), (6, 1), (6,), (1, 2, 3), (0, 6), (6, 0)]
    members: dict[str, object] = {}
    shapes: dict[str, tuple[int, ...]] = {}
    cursor = 0
    for number in range(3000):
        shape = alike[number // 2 % len(alike)] if number % 2 else (1, number + 1)
        size = math.prod(shape)
        name = f"t{number}"
        members[name] = entry("U8", list(shape), cursor, cursor + size)
        shapes[name] = shape
        cursor += size
    data = file_from(members, b"\0" * cursor)
    check_agreement(data)
    with stspec.read(data) as handle:
        assert {name: info.shape for name, info in handle.tensors.items()} == shapes
        last = handle.tensors["t2999"]
        assert (last.begin, last.end) == (cursor - math.prod(last.shape), cursor)


# The plain path (plain.py) is its own pipeline: each way out of it, and each
# value the shortcuts only count once a rule keeps no more, is compared here.
@pytest.mark.parametrize(
    "data",
    [
        pytest.param(b"\x01", id="too-short"),
        pytest.param(file_of(b'{"a\xff":1}'), id="not-utf8"),
        pytest.param(file_of("{"), id="stops"),
        pytest.param(
            file_of('{"__metadata__":{},"__metadata__":{"a":"b"}}'), id="meta2"
        ),
        pytest.param(file_of('{"__metadata__":{"a":1,"a":"b"}}'), id="meta-repeat"),
        pytest.param(
            file_of(
                '{"a":{"dtype":"U8","shape":"x","data_offsets":"y"},'
                '"b":{"dtype":"U8","shape":"x","data_offsets":"y"},'
                '"c":{"dtype":"U8","shape":[-1],"data_offsets":[0,1.5]},'
                '"d":{"dtype":"U8","shape":[1,{}],"data_offsets":[0,1,2]}}'
            ),
            id="counted-not-arrays",
        ),
        pytest.param(
            file_from({"a": entry("F32", [2], 10, 0)}, bytes(10)),
            id="reversed-span-not-size",
        ),
        pytest.param(
            file_from(
                {"a": entry("F32", [1], 0, 4), "b": entry("F32", [1], 12, 4)}, bytes(8)
            ),
            id="reversed-begin-past-buffer",
        ),
        pytest.param(
            file_of(
                '{"b":{"data_offsets":[12,4],"dtype":"F32","shape":[1]},'
                '"c":{"data_offsets":[20,18],"dtype":"F32","shape":[2]}}',
                bytes(8),
            ),
            id="reversed-sorted-keys",
        ),
    ],
)
@pytest.mark.parametrize("limit", [1, None])
def test_both_paths_agree_with_few_violations_kept(
    data: bytes, limit: int | None
) -> None:
    assert agree_within(data, limit)


@st.composite
def reversed_pair_files(draw: st.DrawFn) -> tuple[bytes, str, int, int]:
    """A file of U8 and F32 tensors, one of which has a pair with begin > end.

    The other tensors tile the buffer in order; the reversed pair's offsets
    and the buffer's length are drawn around each other, so that begin, end,
    both or neither lie past the buffer.  The header is compact, spaced,
    in sort_keys order or with an escaped field name, for the shortcuts'
    several ways.  Returns the file, the reversed tensor's name, its end and
    the buffer's length.
    """
    sizes = draw(st.lists(st.integers(0, 3), min_size=1, max_size=4))
    reversed_at = draw(st.integers(0, len(sizes) - 1))
    members: dict[str, object] = {}
    cursor = 0
    for i, count in enumerate(sizes):
        dtype = draw(st.sampled_from(["U8", "F32"]))
        size = count * (4 if dtype == "F32" else 1)
        members[f"t{i}"] = {
            "dtype": dtype,
            "shape": [count],
            "data_offsets": [cursor, cursor + size],
        }
        cursor += size
    length = max(cursor + draw(st.integers(-4, 4)), 0)
    end = draw(st.integers(0, length + 6))
    begin = draw(st.integers(end + 1, end + 14))
    name = f"t{reversed_at}"
    members[name]["data_offsets"] = [begin, end]  # type: ignore[index]
    form = draw(st.sampled_from(["compact", "spaced", "sorted", "escaped"]))
    if form == "spaced":
        text = json.dumps(members)
    else:
        text = json.dumps(members, separators=(",", ":"), sort_keys=form == "sorted")
    if form == "escaped":
        text = text.replace('"dtype"', '"\\u0064type"', 1)
    raw = text.encode() + b" " * draw(st.integers(0, 7))
    return struct.pack("<Q", len(raw)) + raw + bytes(length), name, end, length


@settings(max_examples=300, deadline=None)
@given(reversed_pair_files())
def test_a_reversed_pair_is_judged_as_the_spec_states_on_every_path(
    drawn: tuple[bytes, str, int, int],
) -> None:
    data, name, end, length = drawn
    check_agreement(data)
    # SPEC 12.1: SIZE-MATCH applies only when begin <= end; SPEC 8.1:
    # LAYOUT-BOUNDS compares the end alone with the buffer's length.
    expected = {"OFFSETS-ORDER"} | ({"LAYOUT-BOUNDS"} if end > length else set())
    for shortcuts in (True, False):
        errors, _ = check(memoryview(data), limit=None, shortcuts=shortcuts)
        at_pair = {
            e.rule
            for e in errors
            if e.path[:2] == (name, "data_offsets")
            and e.rule in {"OFFSETS-ORDER", "SIZE-MATCH", "LAYOUT-BOUNDS"}
        }
        assert at_pair == expected, (shortcuts, errors)


def _sorted(name: str, dtype: str, shape: str, begin: int, end: int) -> str:
    return (
        f'"{name}":{{"data_offsets":[{begin},{end}],"dtype":"{dtype}",'
        f'"shape":[{shape}]}}'
    )


# Entries the canonical pattern misses but the fast path still takes when
# sound (fields in sort_keys order, escaped field names), beside faults.
@pytest.mark.parametrize(
    "header",
    [
        "{"
        + _sorted("a", "F32", "1", 0, 4)
        + ","
        + _sorted("b", "F32", "2", 4, 8)
        + "}",
        "{"
        + _sorted("a", "F32", "1", 0, 4)
        + ","
        + _sorted("a", "F32", "1", 4, 8)
        + "}",
        "{" + _sorted("a", "X", "1", 0, 4) + "," + _sorted("b", "F32", "1", 4, 8) + "}",
        "{"
        + _sorted("a", "F32", "1", 4, 0)
        + ","
        + _sorted("b", "F32", "1", 4, 8)
        + "}",
        "{"
        + _sorted("a", "F32", "1" * 21, 0, 4)
        + ","
        + _sorted("b", "F32", "1", 4, 8)
        + "}",
        "{"
        + _sorted("a\\u0041", "F32", "1", 0, 4)
        + ","
        + _sorted("b", "F32", "1", 4, 8)
        + "}",
        "{"
        + _sorted("__metadata__", "F32", "1", 0, 4)
        + ","
        + _sorted("b", "F32", "1", 4, 8)
        + "}",
        (
            '{"a":{"\\u0064type":"F32","sh\\u0061pe":[1],"data_offsets":[0,4]},'
            '"b":{"dtype":"F32","shape":[1],"data_offsets":[4,8]}}'
        ),
        (
            '{"a":{"\\u0064type":"F32","sh\\u0061pe":[1],"data_offsets":[0,4]},'
            '"b":{"\\u0064type":"F32","\\u0064type":"F32","shape":[1],"data_offsets":[4,8]}}'
        ),
        (
            '{"a":{"shape":[1],"dtype":"F32","data_offsets":[0,4]},'
            '"b":{"data_offsets":[4,9],"shape":[1],"dtype":"F32"}}'
        ),
        (
            '{"a":{"data\\u005foffsets":[0,4],"dtype":"F32","shape":[1]},'
            '"b":{"data_offsets":[4,8],"dtype":"F32","shape":[1],"x":1},'
            '"c":{"data_offsets":[8,12],"dtype":"F32","shape":[-0]}}'
        ),
        (
            '{"a":{"shape":{},"dtype":"U8","data_offsets":[0,1]},'
            '"b":{"shape":[1],"dtype":"U8","data_offsets":{}}}'
        ),
        (
            '{"a":{"shape":[true],"dtype":"U8","data_offsets":[0,1]},'
            '"b":{"shape":[1.0],"dtype":"U8","data_offsets":[1,2],"dtype":"U8"}}'
        ),
        (
            '{"a":{"shape":[1],"data_offsets":[0,4],"dtype":"F32"},'
            '"b":{"data_offsets":[4, 8] ,"shape":[ 1 ],"dtype":"F32"},'
            '"c":{"dtype":"F32","data_offsets":[8,12],"shape":[1]}}'
        ),
        (
            '{"a":{"shape":[1],"data_offsets":[0,4],"dtype":["F32"]},'
            '"b":{"shape":"1","data_offsets":[4,8],"dtype":"F32"},'
            '"c":{"shape":[1],"data_offsets":[8,12,16],"dtype":"F32"},'
            '"d":{"shape":[1],"shape":[1],"dtype":"F32"},'
            '"e":{"shape":[1],"data_offsets":"x","dtype":"F32"}}'
        ),
        (
            '{"a":{"shape":[1],"data_offsets":[0,4],"dtype":"F32"},'
            '"a":{"shape":[1],"data_offsets":[4,8],"dtype":"F32"},'
            '"b":{"shape":[2],"data_offsets":[4,8],"dtype":"F32"}}'
        ),
    ],
)
@pytest.mark.parametrize("size", [8, 12, 16])
def test_reordered_entries_agree(header: str, size: int) -> None:
    check_agreement(file_of(header, bytes(size)))


def _run(members: list[str], after: str = "") -> bytes:
    """One entry followed by ``members`` (unknown ones, or a field among them)."""
    entry = '"t":{"dtype":"U8","shape":[1],"data_offsets":[0,1],'
    return file_of("{" + entry + ",".join(members) + "}" + after + "}", b"x")


_PLAIN = [f'"k{i}":{i % 3}' for i in range(150)]
_SAME = [f'"k{i}":0' for i in range(150)]
_NON_ASCII = [f'"\u00e9{i}":0' for i in range(150)]
_NON_ASCII_CONTROL = [f'"\u00e9{i}\x01":0' for i in range(150)]


# Runs of unknown members an entry holds, as the shortcuts take them in bulk
# (more than validate() keeps of ENTRY-UNKNOWN) or leave them to the parser.
@pytest.mark.parametrize(
    "data",
    [
        pytest.param(_run(_PLAIN), id="numbers"),
        pytest.param(_run([*_PLAIN, '"k9":true']), id="repeated-last"),
        pytest.param(_run([*_PLAIN[:80], '"k3":null', *_PLAIN[80:]]), id="repeated"),
        pytest.param(_run([*_PLAIN, '"dtype":"U8"']), id="field-last"),
        pytest.param(_run([*_PLAIN[:9], '"shape":[1]', *_PLAIN[9:]]), id="field"),
        pytest.param(_run([*_PLAIN, '"k\tx":1']), id="tab-in-a-name"),
        pytest.param(_run([*_PLAIN, '"k\x01":1']), id="control-in-a-name"),
        pytest.param(_run([*_PLAIN, '"k\x01" : 1 ']), id="spaced-control"),
        pytest.param(_run([f'"k{i}"\t:\n{i} ' for i in range(150)]), id="spaced"),
        pytest.param(_run([*_PLAIN, '"s":"x"', '"u":-1.5e3']), id="string-value"),
        pytest.param(_run([*_PLAIN, '"z":01']), id="bad-last-number"),
        pytest.param(_run([*_PLAIN[:5], '"z":tru', *_PLAIN[5:]]), id="bad-literal"),
        pytest.param(_run([*_PLAIN, '"z":[1]']), id="array-last"),
        pytest.param(_run([*_PLAIN, '"\\u006b0":1']), id="escaped-repeat"),
        pytest.param(_run(_PLAIN, ',"u":{"dtype":"X"}'), id="must-fault-later"),
        pytest.param(_run(_PLAIN, ',"u":{},"u":{}'), id="repeat-later"),
        pytest.param(_run([*_PLAIN, '"k0":0,']), id="trailing-comma"),
        pytest.param(_run([*_PLAIN, '"z":0,']), id="trailing-comma-new-name"),
        pytest.param(
            file_of(
                ' {"a":{"dtype":"U8","shape":[1],"data_offsets":[0,1]},"a":1}', b"x"
            ),
            id="leading-whitespace-then-must",
        ),
        pytest.param(_run([]), id="comma-after-the-fields"),
        pytest.param(_run(['"x":[[1]]', '"dtype":"U8"']), id="nested-then-field"),
        pytest.param(
            file_of(
                '{"t":{"dtype":"U8","shape":[18446744073709551616,1],'
                '"data_offsets":[0,18446744073709551616],"x":[[]]}}',
                b"x",
            ),
            id="numbers-too-big",
        ),
        pytest.param(
            file_of(
                '{"t":{"dtype":"X","shape":[2],"data_offsets":[1,0],"x":[[]]},'
                '"u":{"dtype":"U8","shape":[99999999999999999999],'
                '"data_offsets":[0,1],"y":1}}',
                b"x",
            ),
            id="faulty-fields-then-unknown",
        ),
    ],
)
@pytest.mark.parametrize("limit", [1, 100, None])
def test_runs_of_unknown_members_agree(data: bytes, limit: int | None) -> None:
    # READ-PRECEDENCE, from the one first-violation pass.
    read_raises_first(data, agree_within(data, limit))


_U8 = '{"dtype":"U8","shape":[1],"data_offsets":[0,1]}'


# Names repeat now and then; fields and odd characters too.
_RUN_NAMES = st.one_of(
    st.text("abcdefgh", min_size=1, max_size=5),
    st.sampled_from(["dtype", "shape", "data_offsets", "a\tb", "a\x01", "\\u0061"]),
)
_RUN_VALUES = st.sampled_from(
    ["0", "0", "0", "1", "-1.5e3", "true", "null", '"v"', "[0]"]
)
_RUN_GAPS = st.sampled_from(["", "", "", " ", "\n"])
_FIELDS = '"dtype":"U8","shape":[1],"data_offsets":[0,1]'


@settings(max_examples=300, deadline=None)
@given(
    # Plain members first, so that the shortcut splits what follows them.
    st.lists(st.text("abcdefgh", min_size=1, max_size=5), min_size=6, unique=True),
    st.lists(st.tuples(_RUN_NAMES, _RUN_VALUES, _RUN_GAPS), max_size=30),
    st.sampled_from(["first", "last", "none"]),
    st.sampled_from([16, 64, 1 << 16]),
    st.sampled_from([1, 3, 8192]),
)
def test_generated_runs_of_unknown_members_agree(
    head: list[str],
    members: list[tuple[str, str, str]],
    fields: str,
    chunk: int,
    at_once: int,
) -> None:
    from stspec.reader import members as module  # noqa: PLC0415 - patched below

    run = [f'"{name}":0' for name in head]
    run += [f'{gap}"{name}"{gap}:{value}' for name, value, gap in members]
    parts = {"first": [_FIELDS, *run], "last": [*run, _FIELDS], "none": run}[fields]
    data = file_of('{"t":{' + ",".join(parts) + "}}", b"x")
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(module, "_SPLIT_CHUNK", chunk)
        patch.setattr(module, "_ADDED_AT_ONCE", at_once)
        check_agreement(data)
        # One kept per rule: the runs after the first unknown member are split.
        agree_within(data, 1)


_ORDERED = [f"k{i}" for i in range(200)]
# Out of order: a run per name.
_SHUFFLED = sorted(_ORDERED, key=lambda name: name[::-1])


# An entry that ends with a long stretch of plain members (here: any) is
# checked for a repeat all at once: names in order are sorted, others go
# into a set, from the first (_FEW_RUNS 1) or after a few runs (8), or never
# (10**9).
@pytest.mark.parametrize(
    "names",
    [
        pytest.param(_ORDERED, id="ordered"),
        pytest.param(_SHUFFLED, id="shuffled"),
        pytest.param([*_ORDERED, "k7"], id="last-repeats"),
        pytest.param([*_SHUFFLED[:150], "k7", *_SHUFFLED[150:]], id="repeat-inside"),
        pytest.param(["k7", *_ORDERED[8:], "k7"], id="first-and-last"),
        pytest.param(["a", "b", "c", *_ORDERED, "b"], id="repeats-a-name-before"),
        pytest.param(["a", "b", "c", *_ORDERED, "shape"], id="field-last"),
        # whitespace is allowed between the tokens, a raw tab never in a name
        pytest.param([*_ORDERED[:50], "a\tb", *_ORDERED[50:]], id="tab-in-name"),
    ],
)
@pytest.mark.parametrize("few_runs", [1, 8, 10**9])
@pytest.mark.parametrize("chunk", [64, 1 << 16])
def test_a_closing_stretch_of_members_agrees(
    monkeypatch: pytest.MonkeyPatch, names: list[str], few_runs: int, chunk: int
) -> None:
    from stspec.reader import members  # noqa: PLC0415 - the module patched

    monkeypatch.setattr(members, "_CLOSING_MIN", 0)
    monkeypatch.setattr(members, "_FEW_RUNS", few_runs)
    monkeypatch.setattr(members, "_SPLIT_CHUNK", chunk)
    data = _run([f'"{name}":0' for name in names])
    for limit in (1, 100):
        agree_within(data, limit)
    read_raises_first(data, agree_within(data, None))


def _shuffled_entry(before: list[str], after: list[str], tail: str = "") -> bytes:
    """One entry: ``before``, unknown members in no order, ``after``; then ``tail``.

    The buffer holds one byte.
    """
    unknown = [f'"{name}":0' for name in _SHUFFLED]
    members = ",".join([*before, *unknown, *after])
    return file_of('{"t":{' + members + "}" + tail + "}", b"x")


_DTYPE, _SHAPE, _OFFSETS = '"dtype":"U8"', '"shape":[1]', '"data_offsets":[0,1]'


# ENTRY-UNKNOWN is a MAY rule: read() names it only when no MUST violation
# follows (READ-PRECEDENCE), so the first unknown member settles nothing:
# a repeat among the members after it, or a field judged after it, is the
# violation read() names.  Each case through the closing stretch and the
# chunks (see test_a_closing_stretch_of_members_agrees).
@pytest.mark.parametrize(
    "data",
    [
        pytest.param(_shuffled_entry([_DTYPE, _SHAPE, _OFFSETS], []), id="tolerated"),
        pytest.param(
            _shuffled_entry([_DTYPE, _SHAPE, _OFFSETS], ['"k7":1']),
            id="repeat-long-after-the-first-unknown",
        ),
        pytest.param(
            _shuffled_entry([_DTYPE, _DTYPE, _SHAPE, _OFFSETS], []),
            id="field-repeated-before-them",
        ),
        pytest.param(
            _shuffled_entry([_DTYPE, _SHAPE, _OFFSETS], [_SHAPE]),
            id="field-repeated-after-them",
        ),
        pytest.param(_shuffled_entry([_DTYPE, _SHAPE], []), id="field-missing"),
        pytest.param(
            _shuffled_entry([_DTYPE, _SHAPE, _OFFSETS], ['"z":01']),
            id="syntax-error-after-them",
        ),
        pytest.param(
            _shuffled_entry([_DTYPE, _SHAPE, _OFFSETS], ['"z":0,']),
            id="trailing-comma-after-them",
        ),
        pytest.param(
            _shuffled_entry([_DTYPE, _SHAPE], ['"data_offsets":[1,0]']),
            id="reversed-offsets-after-them",
        ),
        pytest.param(
            _shuffled_entry([_DTYPE, _SHAPE], ['"data_offsets":[0,9]']),
            id="past-the-buffer-after-them",
        ),
        pytest.param(
            _shuffled_entry([_SHAPE, _OFFSETS], ['"dtype":"X"']),
            id="bad-dtype-after-them",
        ),
        pytest.param(
            _shuffled_entry([_DTYPE, _SHAPE, _OFFSETS], [], ',"u":{"dtype":"X"}'),
            id="must-fault-in-a-later-entry",
        ),
        pytest.param(
            _shuffled_entry(
                [_DTYPE, _SHAPE, _OFFSETS],
                [],
                ',"u":{"dtype":"U8","shape":[1],"data_offsets":[0,1]}',
            ),
            id="overlap-with-a-later-entry",
        ),
    ],
)
@pytest.mark.parametrize("few_runs", [1, 8])
@pytest.mark.parametrize("chunk", [64, 1 << 16])
def test_a_fault_around_unknown_members_in_no_order_agrees(
    monkeypatch: pytest.MonkeyPatch, data: bytes, few_runs: int, chunk: int
) -> None:
    from stspec.reader import members  # noqa: PLC0415 - the module patched

    monkeypatch.setattr(members, "_CLOSING_MIN", 0)
    monkeypatch.setattr(members, "_FEW_RUNS", few_runs)
    monkeypatch.setattr(members, "_SPLIT_CHUNK", chunk)
    for limit in (1, 100):
        agree_within(data, limit)
    read_raises_first(data, agree_within(data, None))


def test_a_repeat_among_many_unknown_members_in_no_order_is_what_read_names() -> None:
    # At full size (a closing stretch of 64 KiB and more, checked at once).
    names = [f"k{i * 7919 % 20_000}" for i in range(20_000)]
    unknown = ",".join(f'"{name}":0' for name in [*names, "k7"])
    header = '{"t":{' + f"{_DTYPE},{_SHAPE},{_OFFSETS}," + unknown + "}}"
    data = file_of(header, b"x")
    with pytest.raises(stspec.SafetensorsError) as caught:
        stspec.read(data)
    assert caught.value.rule == "KEY-UNIQUE"
    assert caught.value.offset == 8 + len(header) - len('"k7":0}}')
    read_raises_first(data, agree_within(data, None))


def _meta(members: str) -> bytes:
    return file_of('{"__metadata__":{' + members + '},"w":' + _U8 + "}", b"x")


# Metadata values with escapes go to the C string scanner, not the pattern.
@pytest.mark.parametrize(
    "data",
    [
        pytest.param(_meta('"a":"{\\"b\\": [1, \\"c\\"]}"'), id="escaped-json"),
        pytest.param(_meta('"a":"x\\"y","b":"z\\"w"'), id="two"),
        pytest.param(_meta('"a":"x\\qy"'), id="bad-escape"),
        pytest.param(_meta('"a":"x\\"\x01y"'), id="control"),
        pytest.param(_meta('"a":"x\\"\\ud800"'), id="lone-surrogate"),
        pytest.param(_meta('"a":"x\\"y" "b":"z"'), id="no-comma"),
        pytest.param(_meta('"a":"x\\"y",'), id="trailing-comma"),
        pytest.param(_meta('"a":"x\\"y","a":"z\\"w"'), id="repeated"),
        pytest.param(_meta('"a":"x\\"y","\\u0061":1'), id="repeated-escaped"),
        pytest.param(_meta('"a" : "x\\"y" , "b" : "\\u00e9"'), id="spaced"),
        pytest.param(_meta('"a":"x\\"y'), id="unterminated"),
    ],
)
@pytest.mark.parametrize("limit", [1, None])
def test_escaped_metadata_values_agree(data: bytes, limit: int | None) -> None:
    check_agreement(data)
    agree_within(data, limit)


@pytest.mark.parametrize(
    "data",
    [
        pytest.param(_run(_PLAIN), id="numbers"),
        pytest.param(_run([*_PLAIN[:90], '"k3":null', *_PLAIN[90:]]), id="repeated"),
        pytest.param(_run([*_PLAIN[:70], '"shape":[1]', *_PLAIN[70:]]), id="field"),
        pytest.param(_run([*_PLAIN[:60], '"s":"x,"', *_PLAIN[60:]]), id="string"),
        # One value throughout: split at the piece between the names.
        pytest.param(_run(_SAME), id="same-value"),
        pytest.param(_run([*_SAME[:90], '"k3":0', *_SAME[90:]]), id="same-repeated"),
        pytest.param(
            _run([*_SAME[:90], '"k92":0', *_SAME[90:]]), id="same-repeated-ahead"
        ),
        pytest.param(_run([*_SAME[:70], '"dtype":0', *_SAME[70:]]), id="same-field"),
        pytest.param(_run([*_SAME[:60], '"s":"x"', *_SAME[60:]]), id="same-string"),
        pytest.param(_run([*_SAME[:60], '"k":1', *_SAME[60:]]), id="same-but-one"),
        pytest.param(_run([*_SAME[:60], '"k\x01":0', *_SAME[60:]]), id="same-control"),
        pytest.param(_run([f'"k{i}" : 0 ' for i in range(150)]), id="same-spaced"),
        pytest.param(_run([f'"k{i}":\t0' for i in range(150)]), id="same-tabbed"),
        pytest.param(_run([*_SAME[:4], '"k3":0', *_SAME[4:]]), id="same-in-a-group"),
        pytest.param(_run(_NON_ASCII), id="same-non-ascii"),
        pytest.param(_run(_NON_ASCII_CONTROL), id="same-non-ascii-control"),
        pytest.param(_run([*_SAME, '"k":1']), id="same-but-last"),
        pytest.param(_run([' "k0":0', *_SAME[1:]]), id="same-after-a-space"),
    ],
)
@pytest.mark.parametrize("limit", [1, None])
@pytest.mark.parametrize("chunk", [64, 1 << 16])
def test_runs_split_in_small_chunks_agree(
    monkeypatch: pytest.MonkeyPatch, data: bytes, limit: int | None, chunk: int
) -> None:
    from stspec.reader import members  # noqa: PLC0415 - the module whose chunks are patched

    monkeypatch.setattr(members, "_SPLIT_CHUNK", chunk)
    # A repeat then falls between two groups of names or inside one.
    monkeypatch.setattr(members, "_ADDED_AT_ONCE", 3)
    agree_within(data, limit)
    check_agreement(data)


def test_a_header_is_read_where_madvise_is_missing(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    # the pages of a large header are given back only where the platform
    # can; elsewhere the file is read all the same
    import mmap  # noqa: PLC0415 - the module whose constant is removed

    monkeypatch.delattr(mmap, "MADV_DONTNEED", raising=False)
    value = "x" * (1 << 20)
    header = json.dumps(
        {
            "__metadata__": {"k": value},
            "t": {"dtype": "U8", "shape": [1], "data_offsets": [0, 1]},
        }
    )
    path = tmp_path / "big.safetensors"
    path.write_bytes(file_of(header, b"x"))
    with stspec.read(path) as file:
        assert file.metadata == {"k": value}
