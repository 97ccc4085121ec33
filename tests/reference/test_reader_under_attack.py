"""Hostile headers: bounded answers, no quadratic path, no crash, no blind spot."""

from __future__ import annotations

import json
import subprocess
import sys
import time
import tracemalloc
from array import array
from typing import TYPE_CHECKING

import pytest
from calls import python_calls, python_work
from stfiles import entry, file_from, file_of

import stspec
from stspec.reader.pipeline import check
from stspec.reader.values import nests_shallowly
from stspec.rules import MAX_DEPTH, RULES_BY_ID

if TYPE_CHECKING:
    from collections.abc import Callable
    from pathlib import Path

ENTRY = '{"dtype":"U8","shape":[1],"data_offsets":[0,1]}'
OPEN = '{"dtype":"U8","shape":[1],"data_offsets":[0,1],'


def _both(data: bytes) -> list[tuple[str, int | None]]:
    """The errors with and without the shortcuts, which must agree."""
    fast, _ = check(memoryview(data), limit=None)
    slow, _ = check(memoryview(data), limit=None, shortcuts=False)
    found = [(error.rule, error.offset) for error in fast]
    assert found == [(error.rule, error.offset) for error in slow]
    return found


# Escaped duplicates: the names are compared after unescaping ---------------

# (header, the spelling whose position KEY-UNIQUE must name)
ESCAPED_DUPLICATES = [
    pytest.param(
        '{"\\ud800":{},"\\ud800":' + ENTRY + "}",
        '"\\ud800":{"',
        id="lone-surrogate-name-twice",
    ),
    pytest.param(
        '{"a":' + ENTRY + ',"\\u0061":' + ENTRY + "}", '"\\u0061"', id="tensor"
    ),
    pytest.param(
        '{"__metadata__":{"k":"1","\\u006b":"2"},"a":' + ENTRY + "}",
        '"\\u006b"',
        id="metadata-key",
    ),
    pytest.param(
        '{"__metadata__":{"\\u006b":"1","k":"2"},"a":' + ENTRY + "}",
        '"k"',
        id="metadata-key-escaped-first",
    ),
    pytest.param(
        '{"a":{"dtype":"U8","\\u0064type":"U8","shape":[1],"data_offsets":[0,1]}}',
        '"\\u0064type"',
        id="entry-field",
    ),
    pytest.param(
        '{"a":{"\\u0064type":"U8","dtype":"U8","shape":[1],"data_offsets":[0,1]}}',
        '"dtype"',
        id="entry-field-escaped-first",
    ),
    pytest.param(
        '{"a":' + OPEN + '"k":1,"\\u006b":2}}', '"\\u006b"', id="unknown-member"
    ),
    pytest.param(
        '{"a":' + OPEN + '"x":[{"k":1,"\\u006b":2}]}}', '"\\u006b"', id="nested-object"
    ),
    pytest.param(
        '{"__metadata__":{"\\ud83d\\ude00":"1","\U0001f600":"2"},"a":' + ENTRY + "}",
        '"\U0001f600"',
        id="metadata-surrogate-pair-and-raw",
    ),
]


@pytest.mark.parametrize(("header", "second"), ESCAPED_DUPLICATES)
def test_names_equal_after_unescaping_are_duplicates(header: str, second: str) -> None:
    data = file_of(header, b"x")
    offset = 8 + header.encode().index(second.encode())
    assert ("KEY-UNIQUE", offset) in _both(data)
    with pytest.raises(stspec.SafetensorsError) as caught:
        stspec.read(data)
    assert caught.value.rule in {"KEY-UNIQUE", "ENTRY-UNKNOWN", "JSON-SURROGATE"}


def test_an_escaped_name_of_a_valid_entry_is_read_like_a_plain_one() -> None:
    data = file_of(
        '{"\\u00e9\\n":' + ENTRY + ',"w-0":{"dtype":"U8","shape":[0],'
        '"data_offsets":[1,1]}}',
        b"x",
    )
    assert _both(data) == []
    with stspec.read(data) as opened:
        assert list(opened.tensors) == ["\u00e9\n", "w-0"]


# Bounded answers -------------------------------------------------------------


def test_validate_lists_a_few_per_rule_and_counts_the_rest() -> None:
    members: dict[str, object] = {
        f"t{i}": entry("X", [1], i, i + 1) for i in range(250)
    }
    found = stspec.validate(file_from(members, bytes(250)))
    assert [error.rule for error in found] == ["DTYPE-NAME"] * 100
    assert found.omitted == {"DTYPE-NAME": 150}
    assert found.total == 250
    offsets = [error.offset or 0 for error in found]
    assert offsets == sorted(offsets)
    everything = stspec.validate(file_from(members, bytes(250)), limit=None)
    assert len(everything) == 250
    assert everything.omitted == {}
    assert [e.offset for e in everything[:100]] == offsets


def test_validate_refuses_a_limit_below_one() -> None:
    with pytest.raises(ValueError, match="at least 1"):
        stspec.validate(b"", limit=0)


def test_a_long_name_in_many_violations_is_shown_cut() -> None:
    # 10,000 bad dimensions under a 20,000-character name: once 200 MB of
    # `check --all` output, since every line repeated the name.
    name = "n" * 20_000
    shape = ",".join('"x"' for _ in range(10_000))
    data = file_of(
        f'{{"{name}":{{"dtype":"U8","shape":[{shape}],"data_offsets":[0,1]}}}}', b"x"
    )
    found = stspec.validate(data)
    assert len(found) == 100
    assert found.omitted == {"SHAPE-ARRAY": 9_900}
    shown = "\n".join(str(error) for error in found)
    assert len(shown) < 100 * 600
    assert "(20000 characters)" in shown
    assert found[0].path == (name, "shape", 0)  # the API keeps the whole name


def test_a_long_name_with_many_unknown_members_costs_little_memory() -> None:
    # Once 977 MB: every ENTRY-UNKNOWN message held the 100,000-char name.
    name = "n" * 100_000
    extra = ",".join(f'"k{i}":0' for i in range(10_000))
    data = file_of(f'{{"{name}":{OPEN}{extra}}}}}', b"x")
    tracemalloc.start()
    try:
        found = stspec.validate(data)
        with pytest.raises(stspec.SafetensorsError):
            stspec.read(data)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert found.total == 10_000
    assert peak < 20 * len(data)  # the quadratic reader: 5,000 times
    # Listing all of them costs about a kilobyte each, not the name each.
    assert len(stspec.validate(data, limit=None)) == 10_000


# Once quadratic: each family at a size the old reader needed ~40 s for -----


def _cpu(call: object) -> float:
    start = time.process_time()
    call()  # type: ignore[operator]
    return time.process_time() - start


QUADRATIC = [
    pytest.param(
        file_from({"t": entry("U8", [2**64 + 10**18] * 16_000, 0, 0)}),
        "NUM-RANGE",
        16_000,
        id="huge-dimensions",
    ),
    pytest.param(
        file_of(
            json.dumps(
                dict(
                    [("\u00e9", entry("U8", [1], 0, 1))]
                    + [(f"t{i}", entry("X", [1], 1, 1)) for i in range(16_000)]
                ),
                ensure_ascii=False,
            ),
            b"x",
        ),
        "DTYPE-NAME",
        16_000,
        id="non-ascii-and-many-faults",
    ),
]


@pytest.mark.parametrize(("data", "rule", "count"), QUADRATIC)
def test_once_quadratic_headers_are_judged_in_linear_time(
    data: bytes, rule: str, count: int
) -> None:
    found: list[stspec.Violations] = []
    seconds = _cpu(lambda: found.append(stspec.validate(data)))
    # A generous CPU-time bound: the quadratic reader took 8-40 s here.
    assert seconds < 4
    assert found[0].total == count
    assert {error.rule for error in found[0]} == {rule}


def test_offsets_in_a_non_ascii_header_are_bytes_and_increase() -> None:
    members = {"\u00e9" * 3: entry("U8", [1], 0, 1)} | {
        f"\u00e9{i}": entry("X", [1], 1, 1) for i in range(5)
    }
    header = json.dumps(members, separators=(",", ":"), ensure_ascii=False)
    data = file_of(header, b"x")
    expected = [
        data.index(b'"X"', data.index(f'"\u00e9{i}"'.encode())) for i in range(5)
    ]
    assert [error.offset for error in stspec.validate(data)] == expected


# Nesting: judged before any recursive decoder sees the text -----------------


@pytest.mark.parametrize(
    ("text", "shallow"),
    [
        ("[" * MAX_DEPTH + "]" * MAX_DEPTH, True),
        ("[" * (MAX_DEPTH + 1) + "]" * (MAX_DEPTH + 1), False),
        # brackets inside strings do not count (nor escaped quotes end them)
        ('["' + "[" * 100 + '",' + "[" * 100 + "]" * 100 + "]", True),
        ('["\\"' + "[" * 100 + '",' + "[" * 100 + "]" * 100 + "]", True),
        # a long run of them may: the answer may err towards "deep" only
        ('["' + "[" * 200 + '"]', False),
        ('["\\\\"' + "[" * 200 + "]" * 200 + "]", False),
        ("[[]," * 70 + "[" * 60 + "]" * 60 + "]" * 70, False),
        ("[[]," * 60 + "[" * 60 + "]" * 60 + "]" * 60, True),
        ("[]" * 1000, True),
        ("]" * 200 + "[" * (MAX_DEPTH + 1), False),
    ],
)
def test_the_nesting_bound_never_underestimates(text: str, shallow: bool) -> None:
    assert nests_shallowly(memoryview(text.encode())) is shallow


BOMB = """
import sys, stspec
sys.setrecursionlimit(100_000)
n = 1_000_000
for prefix in (b'{"a":', b'{"a":{"dtype":"U8","shape":[1],"data_offsets":[0,1],"x":'):
    data = prefix + b"[" * n + b"]" * n + b"}" * prefix.count(b"{")
    data = len(data).to_bytes(8, "little") + data + b"x"
    print([e.rule for e in stspec.validate(data)])
    try:
        stspec.read(data)
    except stspec.SafetensorsError as e:
        print(e.rule)
"""


def test_a_nesting_bomb_under_a_raised_recursion_limit_is_a_clean_verdict() -> None:
    done = subprocess.run(
        [sys.executable, "-c", BOMB], capture_output=True, text=True, check=False
    )
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.split("\n")[:4] == [
        "['JSON-DEPTH']",
        "JSON-DEPTH",
        "['JSON-DEPTH']",
        "JSON-DEPTH",
    ]


def test_unknown_values_deep_but_allowed_are_checked_by_both_paths() -> None:
    deep = "[" * (MAX_DEPTH - 2) + "]" * (MAX_DEPTH - 2)
    data = file_of('{"a":' + OPEN + '"x":' + deep + ',"y":[' + deep[1:-1] + "]}}", b"x")
    assert _both(data) == [
        ("ENTRY-UNKNOWN", data.index(b'"x":') + 4),
        ("ENTRY-UNKNOWN", data.index(b'"y":') + 4),
    ]


# Caps: every rule counts past its limit ---------------------------------------


def _many(member: str, count: int) -> str:
    return "{" + ",".join(member.replace("{i}", str(i)) for i in range(count)) + "}"


CAPPED = [
    pytest.param(
        _many('"t{i}":{"dtype":"U8","shape":[999],"data_offsets":[1,1000]}', 150),
        "LAYOUT-BOUNDS",
        150,
        id="past-the-buffer",
    ),
    pytest.param(
        '{"__metadata__":' + _many('"k{i}":1', 150) + "}",
        "META-STRING",
        150,
        id="metadata-numbers",
    ),
    pytest.param(
        "{"
        + ",".join(
            f'"t{i}":{{"dtype":"U8","shape":[1],'
            f'"data_offsets":[{2 * i + 1},{2 * i + 2}]}}'
            for i in range(150)
        )
        + "}",
        "LAYOUT-HOLE",
        150,
        id="holes",
    ),
    pytest.param(
        _many('"t{i}":{"dtype":"U8","shape":[1],"data_offsets":[0,1]}', 151),
        "LAYOUT-OVERLAP",
        150,
        id="overlaps",
    ),
    pytest.param(
        _many('"t{i}":{"dtype":"U8","shape":[1]}', 150),
        "ENTRY-FIELDS",
        150,
        id="missing-fields",
    ),
    pytest.param(
        '{"a":' + ENTRY + "," + _many('"a":' + ENTRY, 150)[1:],
        "KEY-UNIQUE",
        150,
        id="repeated-names",
    ),
    pytest.param(
        '{"a":{' + ",".join(['"dtype":"U8"'] * 151) + ',"shape":[1],'
        '"data_offsets":[0,1]}}',
        "KEY-UNIQUE",
        150,
        id="repeated-fields",
    ),
    pytest.param(
        '{"a":{"dtype":"U8","shape":['
        + ",".join(["1" * 21] * 150)
        + '],"data_offsets":[0,1]}}',
        "NUM-RANGE",
        150,
        id="long-integers",
    ),
    pytest.param(
        '{"a":{"dtype":"U8","shape":['
        + ",".join(["1.5"] * 150)
        + '],"data_offsets":[0,1]}}',
        "NUM-INTEGER",
        150,
        id="fractions",
    ),
    pytest.param(
        _many(
            '"t{i}":{"dtype":"U8","shape":[4294967296,4294967296,16],'
            '"data_offsets":[0,0]}',
            150,
        ),
        "SIZE-OVERFLOW",
        150,
        id="overflows",
    ),
    pytest.param(
        _many('"t{i}":{"dtype":"F4","shape":[1],"data_offsets":[0,0]}', 150),
        "SIZE-BITS",
        150,
        id="odd-bits",
    ),
]


@pytest.mark.parametrize(("header", "rule", "count"), CAPPED)
def test_each_rule_is_counted_past_its_limit(
    header: str, rule: str, count: int
) -> None:
    found = stspec.validate(file_of(header, b"x" * 400))
    assert [error.rule for error in found if error.rule == rule] == [rule] * 100
    assert found.omitted[rule] == count - 100


def test_a_violation_found_late_but_placed_early_is_kept() -> None:
    # The entry's fields are judged in a fixed order, so the data_offsets
    # fault (earlier in the text) is found after the shape fault.
    header = (
        '{"a":{"data_offsets":[0,'
        + "1" * 21
        + '],"dtype":"U8","shape":['
        + "2" * 21
        + "]}}"
    )
    data = file_of(header, b"x")
    with pytest.raises(stspec.SafetensorsError) as caught:
        stspec.read(data)
    assert caught.value.offset == 8 + header.index("1" * 21)
    assert [e.offset for e in stspec.validate(data, limit=1)] == [caught.value.offset]


# read() stops judging once its answer is certain, but still checks syntax --


SETTLED = [
    pytest.param(',"b":' + ENTRY + ",}", "JSON-SYNTAX", id="trailing-comma"),
    pytest.param(',"b":' + ENTRY + "]", "JSON-SYNTAX", id="junk-after-entry"),
    pytest.param(',"b":{"x":"\\ud800"}}', "DTYPE-NAME", id="fault-ignored"),
    pytest.param(',"b":{"x":[1,]}}', "JSON-SYNTAX", id="bad-unknown-value"),
    pytest.param(',"b":' + ENTRY + "}", "DTYPE-NAME", id="canonical-rest"),
]


@pytest.mark.parametrize(("rest", "rule"), SETTLED)
def test_read_after_its_first_violation_still_checks_the_syntax(
    rest: str, rule: str
) -> None:
    data = file_of('{"a":{"dtype":"X","shape":[1],"data_offsets":[0,1]}' + rest, b"x")
    with pytest.raises(stspec.SafetensorsError) as caught:
        stspec.read(data)
    assert caught.value.rule == rule
    assert (caught.value.rule, caught.value.offset) == _both(data)[0]


@pytest.mark.parametrize(
    ("metadata", "rule"),
    [
        pytest.param('{"k":"v",}', "JSON-SYNTAX", id="trailing-comma"),
        pytest.param('{"k":"v"]', "JSON-SYNTAX", id="junk"),
        pytest.param('{"k":"v","j":"\\ud800"}', "JSON-SURROGATE", id="surrogate"),
    ],
)
def test_plain_metadata_pairs_are_checked_like_any(metadata: str, rule: str) -> None:
    data = file_of('{"__metadata__":' + metadata + ',"a":' + ENTRY + "}", b"x")
    assert _both(data)[0][0] == rule


@pytest.mark.parametrize(
    ("value", "rules"),
    [
        pytest.param('["\\ud800"]', ["ENTRY-UNKNOWN", "JSON-SURROGATE"], id="lone"),
        pytest.param('["\\ud83d\\ude00"]', ["ENTRY-UNKNOWN"], id="pair"),
        pytest.param("[1,NaN]", ["JSON-SYNTAX"], id="nan"),
        pytest.param('{"k":[1],"k":[2]}', ["ENTRY-UNKNOWN", "KEY-UNIQUE"], id="repeat"),
    ],
)
def test_unknown_values_with_escapes_are_checked_by_the_parser(
    value: str, rules: list[str]
) -> None:
    data = file_of('{"a":' + OPEN + '"x":' + value + "}}", b"x")
    assert [rule for rule, _ in _both(data)] == rules


def test_the_depth_bound_comes_from_the_rule_registry(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from stspec.reader import strict_json as _json  # noqa: PLC0415 - the module whose bound is patched

    data = file_of('{"a":' + OPEN + '"x":[[1]]}}', b"x")
    assert [rule for rule, _ in _both(data)] == ["ENTRY-UNKNOWN"]
    # The header object is level 1, the entry 2, "x" 3 and its element 4.
    at = data.index(b'"x":') + 4
    monkeypatch.setattr(_json, "MAX_DEPTH", 3)
    assert _both(data) == [("JSON-DEPTH", at + 1)]
    monkeypatch.setattr(_json, "MAX_DEPTH", 2)
    assert _both(data) == [("JSON-DEPTH", data.index(b"[1]"))]  # the shape


@pytest.mark.parametrize("chunk", [1, 2, 3, 5])
def test_the_nesting_bound_is_the_same_in_small_chunks(
    monkeypatch: pytest.MonkeyPatch, chunk: int
) -> None:
    from stspec.reader import strict_json as _json  # noqa: PLC0415 - the module whose bound is patched
    from stspec.reader import values  # noqa: PLC0415 - the module whose chunks are patched

    texts = ['["\\\\\\\\\\"[[[",[[]]]', '["\\\\\\\\",[[[[]]]]]', '["\\"[","\\\\"]']
    expected = [nests_shallowly(memoryview(t.encode())) for t in texts]
    monkeypatch.setattr(_json, "MAX_DEPTH", 3)
    monkeypatch.setattr(values, "_CHUNK", chunk)
    assert [nests_shallowly(memoryview(t.encode())) for t in texts] == [
        True,
        False,
        True,
    ]
    assert expected == [True, True, True]


def test_check_all_and_json_print_the_capped_list_and_the_counts(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from stspec.audit.cli import main  # noqa: PLC0415 - the command, not the library

    name = "n" * 20_000
    shape = ",".join('"x"' for _ in range(10_000))
    path = tmp_path / "hostile.safetensors"
    path.write_bytes(
        file_of(
            f'{{"{name}":{{"dtype":"U8","shape":[{shape}],"data_offsets":[0,1]}}}}',
            b"x",
        )
    )
    assert main(["check", "--all", str(path)]) == 1
    out = capsys.readouterr().out
    assert out.count("SHAPE-ARRAY") == 101
    assert out.splitlines()[-1].endswith("SHAPE-ARRAY: 9900 more not shown")
    assert len(out) < 100_000
    assert main(["check", "--json", str(path)]) == 1
    document = json.loads(capsys.readouterr().out)
    (report,) = document["files"]
    assert len(report["violations"]) == 100
    assert report["omitted"] == {"SHAPE-ARRAY": 9900}


def _capped_both(
    data: bytes, limit: int
) -> tuple[list[tuple[str, int | None]], dict[str, int]]:
    fast, _ = check(memoryview(data), limit=limit)
    slow, _ = check(memoryview(data), limit=limit, shortcuts=False)
    listed = [(error.rule, error.offset) for error in fast]
    assert listed == [(error.rule, error.offset) for error in slow]
    assert fast.omitted == slow.omitted
    return listed, fast.omitted


@pytest.mark.parametrize(
    ("members", "rules"),
    [
        pytest.param(
            [f'"k{i}":{i}' for i in range(300)], {"ENTRY-UNKNOWN": 300}, id="plain"
        ),
        pytest.param(
            [f'"k{i}":"v",' if i % 2 else f'"k{i}":[{i}]' for i in range(300)],
            {"ENTRY-UNKNOWN": 300},
            id="mixed",
        ),
        pytest.param(
            [f'"k{i % 250}":null' for i in range(300)],
            {"ENTRY-UNKNOWN": 250, "KEY-UNIQUE": 50},
            id="repeats-late",
        ),
        pytest.param(
            [f'"k{i}":1.5e3' for i in range(150)]
            + ['"dtype":"U8"']
            + [f'"j{i}":true' for i in range(150)],
            {"ENTRY-UNKNOWN": 300, "KEY-UNIQUE": 1},
            id="field-repeated-among-them",
        ),
    ],
)
@pytest.mark.parametrize("limit", [1, 100])
def test_runs_of_unknown_members_are_counted_like_one_by_one(
    members: list[str], rules: dict[str, int], limit: int
) -> None:
    body = ",".join(member.rstrip(",") for member in members)
    data = file_of('{"a":' + OPEN + body + "}}", b"x")
    listed, omitted = _capped_both(data, limit)
    counts = {
        rule: sum(1 for r, _ in listed if r == rule) + omitted.get(rule, 0)
        for rule in rules
    }
    assert counts == rules


def test_huge_dimensions_are_counted_like_one_by_one() -> None:
    dims = ",".join("99999999999999999999" if i % 3 else "7" for i in range(600))
    data = file_of(
        '{"a":{"dtype":"U8","shape":[' + dims + '],"data_offsets":[0,1]}}', b"x"
    )
    for limit in (1, 100):
        listed, omitted = _capped_both(data, limit)
        assert len(listed) == limit
        assert omitted == {"NUM-RANGE": 400 - limit}


def test_a_huge_shape_is_judged_where_it_lies_in_the_text() -> None:
    # Copied out of the header twice, a shape of 4 MB cost 8 MB more.
    dims = ",".join(["99999999999999999999"] * 200_000)
    data = file_of(f'{{"t":{{"dtype":"U8","shape":[{dims}],"data_offsets":[0,0]}}}}')
    tracemalloc.start()
    try:
        with pytest.raises(stspec.SafetensorsError) as raised:
            stspec.read(data)
        _, read_peak = tracemalloc.get_traced_memory()
        tracemalloc.reset_peak()
        found = stspec.validate(data)
        _, validate_peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert raised.value.rule == "NUM-RANGE"
    assert found[0].rule == "NUM-RANGE"
    assert found.total == 200_000
    assert read_peak < 1.5 * len(data)
    assert validate_peak < 1.5 * len(data)


@pytest.mark.parametrize(
    ("header", "expected"),
    [
        pytest.param('{"a":null}', "tensor 'a' is null", id="null-entry"),
        pytest.param('{"a":true}', "tensor 'a' is a boolean", id="boolean-entry"),
        pytest.param('{"__metadata__":false}', "__metadata__ is a boolean", id="meta"),
        pytest.param(
            '{"a":{"dtype":"U8","shape":{},"data_offsets":[0,1]}}',
            "shape is an object",
            id="object-shape",
        ),
        pytest.param(
            '{"a":{"dtype":[],"shape":[1],"data_offsets":[0,1]}}',
            "dtype an array is not",
            id="array-dtype",
        ),
    ],
)
def test_the_wrong_type_is_named(header: str, expected: str) -> None:
    (error,) = stspec.validate(file_of(header, b"x" if '"a"' in header else b""))
    assert error.msg.startswith(expected)


def test_a_limit_of_one_still_finds_every_rule_and_counts_all() -> None:
    header = (
        '{"a":{"dtype":"X","shape":[1],"data_offsets":[0,1]},'
        '"b":{"dtype":"Y","shape":[1],"data_offsets":[1,2]},"c":{"dtype":"U8"}}'
    )
    found = stspec.validate(file_of(header, b"xy"), limit=1)
    assert [error.rule for error in found] == ["DTYPE-NAME", "ENTRY-FIELDS"]
    assert found.omitted == {"DTYPE-NAME": 1}


@pytest.mark.parametrize(
    "header",
    [
        pytest.param(
            '{"a":' + OPEN + '"k1":0,"k2":0,"k1":0,"k3":0,"k4":0}' + ',"b":1,}',
            id="repeat-then-syntax-error",
        ),
        pytest.param(
            '{"a":' + OPEN + '"k1":0,"k2":0,"dtype":"F32","k3":0,"k4":0}}',
            id="field-among-unknown",
        ),
        pytest.param(
            '{"a":' + OPEN + '"k1":0,"k2":0,"k3":0,"k4":0}}',
            id="plain-unknown",
        ),
        pytest.param(
            # An earlier tensor ending past the buffer comes first; found by
            # the property test.
            '{"a":{"dtype":"U8","shape":[2],"data_offsets":[0,2]},'
            '"\\ud800x":{"dtype":"U8","shape":[0],"data_offsets":[1,1]}}',
            id="bounds-before-a-parse-fault",
        ),
        pytest.param(
            '{"a":{"dtype":"U8","shape":['
            + ",".join(["99999999999999999999"] * 3)
            + '],"data_offsets":[0,0]}}',
            id="huge-dimensions",
        ),
    ],
)
def test_read_raises_what_validate_lists_first(header: str) -> None:
    data = file_of(header, b"x")
    listed = stspec.validate(data)
    # the first MUST violation: a MAY one only when there is none (READ-PRECEDENCE)
    first = next((e for e in listed if RULES_BY_ID[e.rule].level == "MUST"), listed[0])
    with pytest.raises(stspec.SafetensorsError) as caught:
        stspec.read(data)
    assert (caught.value.rule, caught.value.offset) == (first.rule, first.offset)


def test_read_looks_for_tensors_past_the_buffer_once(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # After a tensor that ends past the buffer, read() cannot settle early;
    # asking again after every later faulty entry made it quadratic.
    from stspec.reader import first as _header  # noqa: PLC0415 - the module whose max is counted

    calls = []

    def counting_max(*args: object, **kwargs: object) -> object:
        if isinstance(args[0], array):  # over all the ends seen so far
            calls.append(1)
        return max(*args, **kwargs)  # type: ignore[call-overload]

    monkeypatch.setattr(_header, "max", counting_max, raising=False)
    members = ['"a":{"dtype":"U8","shape":[9],"data_offsets":[0,9]}'] + [
        f'"t{i}":{{"dtype":"X","shape":[0],"data_offsets":[0,0]}}' for i in range(500)
    ]
    data = file_of("{" + ",".join(members) + "}", b"x")
    with pytest.raises(stspec.SafetensorsError) as caught:
        stspec.read(data)
    assert caught.value.rule == "LAYOUT-BOUNDS"
    assert len(calls) <= 3


def _entries(shapes: list[str], offsets: str = "[0,0]") -> bytes:
    members = [
        f'"t{i}":{{"dtype":"U8","shape":{shape},"data_offsets":{offsets}}}'
        for i, shape in enumerate(shapes)
    ]
    return file_of("{" + ",".join(members) + "}")


STRING_SHAPES = [
    pytest.param(['["x","y"]'] * 120, id="strings"),
    pytest.param(
        ['["x",1.5,-1]'] * 60 + ['["x",' + "9" * 25 + "]"] * 60, id="numbers-late"
    ),
    pytest.param(
        ['["x",1.5,-0,' + "9" * 25 + "," + "9" * 20 + "]"] * 150,
        id="numbers-saturated",
    ),
    pytest.param(['["x",{"k":1},[2],null,true]'] * 120, id="containers"),
    pytest.param(['["x",{"k":1,"k":2}]'] * 120, id="repeat-inside"),
    pytest.param(['["x","\\ud800"]'] * 120, id="surrogate-inside"),
    pytest.param(['["x",' + "[" * 200 + "]" * 200 + "]"] * 3, id="too-deep"),
]


@pytest.mark.parametrize("shapes", STRING_SHAPES)
@pytest.mark.parametrize("limit", [1, 100])
def test_fields_of_the_wrong_types_are_counted_like_one_by_one(
    shapes: list[str], limit: int
) -> None:
    _capped_both(_entries(shapes), limit)


def test_data_offsets_of_the_wrong_types_are_counted_like_one_by_one() -> None:
    data = _entries(['["x"]'] * 120, '["a",1]')
    _, omitted = _capped_both(data, 100)
    assert omitted == {"OFFSETS-PAIR": 20, "SHAPE-ARRAY": 20}


def _python_calls(data: bytes | Path) -> int:
    """How many Python-level function calls read() makes on ``data``, closed."""

    def read() -> None:  # one call of the count, and no other
        try:  # noqa: SIM105 - contextlib.suppress would count 3 more
            stspec.read(data).close()
        except stspec.SafetensorsError:
            pass

    return python_calls(read)


def test_a_file_of_one_tensor_is_read_in_few_python_calls(tmp_path: Path) -> None:
    # Most of a small file's cost is fixed: HF opens one in 5 native calls,
    # and each Python call here is worth a few percent of that.  62 now
    # (the count's own call included); 73 while the collector pause, the
    # early look at the header's first bytes and close() cost 11 calls of
    # contextlib and first.py.
    path = tmp_path / "one.safetensors"
    stspec.write(path, {"weight": ("F32", [2, 3], bytes(24))}, {"format": "pt"})
    assert _python_calls(path) <= 64


def _unknown_members(count: int) -> bytes:
    extra = ",".join(f'"k{i}":0' for i in range(count))
    return file_of("{" + f'"t":{OPEN}{extra}}}' + "}", b"x")


@pytest.mark.parametrize(
    "family",
    [
        pytest.param(_unknown_members, id="unknown-members"),
        pytest.param(
            lambda n: file_of(
                f'{{"{"n" * n}":{OPEN}'
                + ",".join(f'"k{i}":0' for i in range(n))
                + "}}",
                b"x",
            ),
            id="long-name-and-unknown-members",
        ),
        pytest.param(
            lambda n: file_of(
                "{" + f'"t":{OPEN}' + ",".join(f'"k{i}":"v"' for i in range(n)) + "}}",
                b"x",
            ),
            id="unknown-members-holding-strings",
        ),
        pytest.param(
            lambda n: file_of(
                f'{{"t":{OPEN}'
                + ",".join(f'"k{i * 7919 % n}":0' for i in range(n))
                + "}}",
                b"x",
            ),
            id="unknown-members-in-no-order",
        ),
    ],
)
def test_an_entry_with_many_unknown_members_costs_no_call_per_member(
    family: Callable[[int], bytes],
) -> None:
    # Tenfold the members may cost a few more calls per run of them taken
    # in bulk, not one or more per member.
    small, large = (_python_calls(family(n)) for n in (2_000, 20_000))
    assert large - small < 2_000


def _bytes_per_member(data: bytes, count: int) -> float:
    """What read() holds at its peak per unknown member, the header aside."""
    tracemalloc.start()
    try:
        with pytest.raises(stspec.SafetensorsError, match="ENTRY-UNKNOWN"):
            stspec.read(data)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    return (peak - len(data)) / count


def test_unknown_members_in_order_are_held_without_a_table_of_their_names() -> None:
    # Every name is held to find a repeat (KEY-UNIQUE).  Names a counter
    # wrote (k0, k1, ...) are listed and sorted: about 70 bytes a member
    # (the name's str and its list slot).  A set of them adds its table (a
    # cache miss per name; about 110 bytes a member), which shuffled names
    # still cost.
    count = 100_000
    assert _bytes_per_member(_unknown_members(count), count) < 85


def _escaped_metadata_work(count: int) -> tuple[int, int]:
    blob = json.dumps({f"tag {i}": f'a "quoted" {i}' for i in range(count)})
    members = {"__metadata__": {"ss_tag_frequency": blob}, "w": entry("U8", [1], 0, 1)}
    data = file_from(members, b"x")
    return python_work(lambda: stspec.read(data).close())


def test_a_metadata_value_of_escaped_json_is_read_without_python_per_escape() -> None:
    # kohya's ss_* keys hold JSON as text: a quote escaped every few
    # characters.  Stepping through it one escape at a time with a pattern
    # ran Python per escape (about six json decodes); the C string scanner
    # runs none.  Counted, not timed: ten times the escapes must not cost
    # twice the Python work.
    small, large = (_escaped_metadata_work(n) for n in (20_000, 200_000))
    assert large[0] < 2 * small[0], f"calls: {small[0]} -> {large[0]}"
    assert large[1] < 2 * small[1], f"bytecode: {small[1]} -> {large[1]}"


def _huge_shape_work(count: int) -> tuple[int, int]:
    data = file_from({"t": entry("U8", [2**64 + 10**18] * count, 0, 0)})

    def read() -> None:
        with pytest.raises(stspec.SafetensorsError, match="NUM-RANGE"):
            stspec.read(data)

    return python_work(read)


@pytest.mark.parametrize(
    "counts",
    [
        pytest.param((2_000, 20_000), id="header-read-at-once"),
        # From 512 KiB on, read() first judges the header's first 1/128 (at
        # most 64 KiB) alone: that part of a cut shape is parsed value by
        # value, a cost that stops growing at 64 KiB.
        pytest.param((400_000, 1_000_000), id="first-64-KiB-judged-first"),
    ],
)
def test_a_huge_shape_is_judged_without_python_per_dimension(
    counts: tuple[int, int],
) -> None:
    # Dimensions above 2^64-1: the canonical pattern reads the shape in C
    # and the first one settles read().  The parser, one call per dimension,
    # cost about thirty json decodes.
    small, large = (_huge_shape_work(n) for n in counts)
    assert large[0] < 1.5 * small[0], f"calls: {small[0]} -> {large[0]}"
    assert large[1] < 1.5 * small[1], f"bytecode: {small[1]} -> {large[1]}"


def _entries_in_order(order: tuple[str, ...]) -> Callable[[int], bytes]:
    def build(count: int) -> bytes:
        fields = {"dtype": '"U8"', "shape": "[1]"}
        members = []
        for i in range(count):
            fields["data_offsets"] = f"[{i},{i + 1}]"
            inner = ",".join(f'"{key}":{fields[key]}' for key in order)
            members.append(f'"tensor.{i}":{{{inner}}}')
        return file_of("{" + ",".join(members) + "}", bytes(count))

    return build


# Valid headers whose entries the canonical pattern misses: each entry may
# cost a few Python calls (a match sorted out), never its members one by one.
@pytest.mark.parametrize(
    "order",
    [
        pytest.param(("data_offsets", "dtype", "shape"), id="sort-keys"),
        pytest.param(("shape", "data_offsets", "dtype"), id="any-order"),
        pytest.param(("dtype", "data_offsets", "shape"), id="another-order"),
    ],
)
def test_entries_in_any_field_order_cost_few_calls_each(order: tuple[str, ...]) -> None:
    build = _entries_in_order(order)
    small, large = (_python_calls(build(n)) for n in (500, 5_000))
    # Member by member, an entry costs about 40 calls.
    assert large - small < 4 * 4_500


def _deep_entries(count: int) -> bytes:
    deep = "[" * 20 + "]" * 20
    members = (
        f'"t{i}":{{"dtype":"U8","shape":[1],"data_offsets":[{i},{i + 1}],"x":{deep}}}'
        for i in range(count)
    )
    return file_of("{" + ",".join(members) + "}", bytes(count))


def test_entries_with_a_nested_unknown_member_cost_few_calls_each() -> None:
    # The canonical fields are read at once, the nested value by the C
    # decoder: the unknown member alone goes through the parser.
    small, large = (_python_calls(_deep_entries(n)) for n in (500, 5_000))
    assert large - small < 60 * 4_500  # 46 now; 86 field by field


_UNKNOWN_INTS = ",".join(f'"k{i}":0' for i in range(50))
_UNKNOWN_STRINGS = ",".join(f'"k{i}":"v"' for i in range(50))


@pytest.mark.parametrize(
    ("entry", "rule"),
    [
        pytest.param(
            '{"dtype":"U8","dtype":"U8","shape":[1],"data_offsets":[0,1],'
            + _UNKNOWN_INTS
            + "}",
            "KEY-UNIQUE",
            id="repeated-field-then-unknown-numbers",
        ),
        pytest.param(
            '{"dtype":"U8","dtype":"U8","shape":[1],"data_offsets":[0,1],'
            + _UNKNOWN_STRINGS
            + "}",
            "KEY-UNIQUE",
            id="repeated-field-then-unknown-strings",
        ),
        pytest.param(
            '{"shape":[1],"shape":[1],'
            + _UNKNOWN_INTS
            + ',"dtype":"U8",'
            + _UNKNOWN_INTS.replace('"k', '"m')
            + ',"data_offsets":[0,1]}',
            "KEY-UNIQUE",
            id="repeated-field-then-a-field-among-unknown-members",
        ),
        pytest.param(
            '{"dtype":"U8","shape":[18446744073709551616],"data_offsets":[0,1],'
            + _UNKNOWN_STRINGS
            + "}",
            "NUM-RANGE",
            id="dimension-out-of-range-then-unknown-strings",
        ),
    ],
)
def test_read_decided_inside_an_entry_skips_its_unknown_members_soundly(
    entry: str, rule: str
) -> None:
    # Once a MUST violation is recorded inside an entry, read() takes the
    # entry's runs of unknown members without naming them, but still stops
    # at a field hidden among them; it raises what validate() lists first.
    data = file_of('{"b":' + entry + "}", b"x")
    with pytest.raises(stspec.SafetensorsError) as raised:
        stspec.read(data)
    first = stspec.validate(data)[0]
    assert (raised.value.rule, raised.value.offset) == (rule, first.offset)
    assert first.rule == rule
