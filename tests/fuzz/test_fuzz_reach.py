"""What the harnesses reach: cost oracles, depth, escapes, seeds, reduction."""

from __future__ import annotations

import importlib.util
import json
import random
import re
import resource
import struct
import subprocess
import sys
import time
import types
import zipfile
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

import stspec

if TYPE_CHECKING:
    from types import ModuleType

ROOT = Path(__file__).resolve().parents[2]
FUZZ = ROOT / "fuzz"
sys.path.insert(0, str(FUZZ))  # the fuzz modules import each other by name


def _load(name: str) -> Any:
    spec = importlib.util.spec_from_file_location(name, FUZZ / f"{name}.py")
    assert spec is not None
    assert spec.loader is not None
    module: ModuleType = importlib.util.module_from_spec(spec)
    sys.modules.setdefault(name, module)
    spec.loader.exec_module(module)
    return module


budget = _load("budget")
mutators = _load("mutators")
seeds = _load("seeds")
targets = _load("targets")
reduce = _load("reduce")
finding = _load("finding")


def _file(header: str, buffer: bytes = b"") -> bytes:
    raw = header.encode()
    return struct.pack("<Q", len(raw)) + raw + buffer


def _depth(text: str) -> int:
    depth = deepest = 0
    for char in text:
        depth += char in "[{"
        depth -= char in "]}"
        deepest = max(deepest, depth)
    return deepest


# Cost oracles --------------------------------------------------------------------


def _quadratic(data: bytes) -> None:
    """A planted quadratic path, like the reference's old NUM-RANGE one.

    Linear validation, plus work quadratic in the number of out-of-range
    dimensions (each located by a scan over all of them).
    """
    stspec.validate(data)
    runs = data.count(b"99999999999999999999")
    for _ in range(runs):
        for _ in range(runs):
            pass


def _linear(data: bytes) -> None:
    stspec.validate(data)


def test_cost_oracle_passes_linear_work_of_every_size() -> None:
    cost = budget.Budget(_linear)
    cost.calibrate()
    for count in (10, 200, 3000):
        cost.run(budget.linear_input(count))


def test_cost_oracle_flags_a_quadratic_path() -> None:
    cost = budget.Budget(_quadratic)
    cost.calibrate()
    cost.run(budget.linear_input(1000))  # no such dimensions: linear
    with pytest.raises(AssertionError, match="slow input"):
        cost.run(seeds.synthetic(65_536)["many_out_of_range_dims"])


def test_cost_oracle_flags_memory_out_of_proportion() -> None:
    def hungry(data: bytes) -> None:
        kept = [bytes(2048) for _ in data]  # 2 KB per input byte
        del kept

    cost = budget.Budget(hungry, per_byte=1.0)  # CPU is not under test
    # Growth is seen only past the process's peak so far, which the tests
    # run before this one may have raised: allocate well beyond it.
    size = max(20_000, (budget._peak_rss() + 64 * 2**20) // 2048)
    with pytest.raises(AssertionError, match="memory-hungry"):
        cost.run(bytes(size))
    assert cost.traced_peak(bytes(size)) > 2000 * size


@pytest.mark.parametrize(
    "name",
    ["many_out_of_range_dims", "long_name_many_unknown", "non_ascii_many_bad_dtypes"],
)
def test_reference_is_within_budget_on_the_hostile_seeds(name: str) -> None:
    # The four quadratic paths of the hostile-input issue, at 64 KB: the
    # reference that fixed them stays within the budget the fuzzers apply.
    cost = budget.Budget(targets.check_reader)
    cost.calibrate()
    data = seeds.synthetic(65_536)[name]
    start = time.process_time()
    cost.run(data)
    assert time.process_time() - start < 30  # CPU seconds, a generous bound


# Mutators ------------------------------------------------------------------------


def test_escape_spells_the_same_name_with_other_bytes() -> None:
    rng = random.Random(1)  # noqa: S311 - reproducible
    for name in ("k", "dtype", "a\u00e9", "\U0001f600", "__metadata__", ""):
        spelt = mutators.escape(name, rng)
        assert json.loads(spelt) == name
        if name:
            assert "\\u" in spelt
    assert mutators.escape("\U0001f600", rng, every=True) in {
        '"\\ud83d\\ude00"',
        '"\\uD83D\\uDE00"',
        '"\\ud83d\\uDE00"',
        '"\\uD83D\\ude00"',
    }


def _operator_rules(operator: Any, seed_file: bytes, runs: int = 60) -> list[set[str]]:
    found = []
    for seed in range(runs):
        header, buffer = mutators.split(seed_file)
        root = mutators.parse(header.decode())
        operator(root, buffer, random.Random(seed))  # noqa: S311
        out = mutators.join(mutators.dump(root).encode(), buffer)
        found.append({error.rule for error in stspec.validate(out)})
    return found


VALID = _file(
    '{"__metadata__":{"k":"v"},"a":{"dtype":"F32","shape":[1],"data_offsets":[0,4]}}',
    bytes(4),
)


def test_escaped_duplicates_reach_every_level() -> None:
    # A duplicate only after unescaping, in the header, an entry or metadata.
    rules = _operator_rules(mutators._escaped_duplicate, VALID)
    assert sum("KEY-UNIQUE" in r for r in rules) > 40
    header = mutators.split(VALID)[0].decode()
    texts = set()
    for seed in range(60):
        root = mutators.parse(header)
        mutators._escaped_duplicate(root, b"", random.Random(seed))  # noqa: S311
        texts.add(mutators.dump(root))
    assert any('"\\u' in t and t.count("dtype") + t.count("\\u0064") > 1 for t in texts)
    assert any("__metadata__" in t and '"\\u006b"' in t.lower() for t in texts)


def test_nesting_crosses_the_depth_limit_both_ways() -> None:
    depths = set()
    for seed in range(80):
        root = mutators.parse(mutators.split(VALID)[0].decode())
        mutators._nest(root, b"", random.Random(seed))  # noqa: S311
        depths.add(_depth(mutators.dump(root)))
    assert any(d <= 127 for d in depths)
    assert any(128 <= d <= 131 for d in depths)
    assert max(depths) > 1000


def test_retype_makes_valid_files_of_every_dtype_and_rank() -> None:
    # Valid files whose tensors the seeds do not have: every dtype as an
    # empty tensor and every whole-byte one as a scalar, from one F32 vector.
    kinds = set()
    header = mutators.split(VALID)[0].decode()
    for seed in range(3000):
        root = mutators.parse(header)
        buffer = mutators._retype(root, bytes(4), random.Random(seed))  # noqa: S311
        data = mutators.join(mutators.dump(root).encode(), buffer)
        if not stspec.validate(data):
            with stspec.read(data) as file:
                kinds |= {
                    (t.dtype, len(t.shape), 0 in t.shape) for t in file.tensors.values()
                }
    dtypes = {dtype.name for dtype in stspec.DTYPES}
    whole = {dtype.name for dtype in stspec.DTYPES if dtype.bits % 8 == 0}
    assert {dtype for dtype, rank, _ in kinds if rank == 0} == whole  # F4, F6: bits
    assert {dtype for dtype, _, empty in kinds if empty} == dtypes


def test_odd_strings_reach_lone_surrogates() -> None:
    rules = _operator_rules(mutators._odd_string, VALID)
    assert sum("JSON-SURROGATE" in r for r in rules) > 5


# Seeds -----------------------------------------------------------------------------


@pytest.mark.parametrize("max_len", [4096, 8192, 65_536])
def test_synthetic_seeds_fit_max_len(max_len: int) -> None:
    made = seeds.synthetic(max_len)
    assert made
    assert all(len(data) <= max_len for data in made.values())


def test_deep_seeds_stand_on_both_sides_of_the_limit() -> None:
    made = seeds.synthetic(8192)
    for kind in ("deep_arrays_{}_in_entry", "deep_objects_{}_in_metadata"):
        below = {e.rule for e in stspec.validate(made[kind.format(127)])}
        above = {e.rule for e in stspec.validate(made[kind.format(128)])}
        assert "JSON-DEPTH" not in below
        assert "JSON-DEPTH" in above
    assert any(_depth(d[8:].decode("latin-1")) > 1000 for d in made.values())


def test_seed_folder_skips_what_max_len_would_truncate(tmp_path: Path) -> None:
    source = tmp_path / "src"
    source.mkdir()
    (source / "small").write_bytes(bytes(10))
    (source / "big").write_bytes(bytes(5000))
    counts = seeds.write_seeds(tmp_path / "out", 4096, [source])
    assert counts["copied"] == 1
    assert counts["too_long"] == 1
    assert all(p.stat().st_size <= 4096 for p in (tmp_path / "out").iterdir())


# Reduction and the finding command ---------------------------------------------------


def test_reducer_keeps_the_failure_and_the_prefix() -> None:
    members = ",".join(
        f'"t{i}":{{"dtype":"U8","shape":[1],"data_offsets":[{i},{i + 1}]}}'
        for i in range(30)
    )
    data = _file(
        "{" + members + ',"bad":{"dtype":"F32","\\u0064type":"I8"}}', bytes(30)
    )

    def fails(candidate: bytes) -> bool:
        return b"\\u0064type" in candidate and mutators.split(candidate) is not None

    result = reduce.reduce(data, fails)
    assert fails(result.data)
    assert len(result.data) < 40
    assert result.tried <= result.budget


def test_finding_keeps_the_same_disagreement(monkeypatch: pytest.MonkeyPatch) -> None:
    def planted(data: bytes) -> None:
        assert b"\\u0064" not in data, "escaped dtype ignored [KEY-UNIQUE]"

    monkeypatch.setattr(targets, "check_reader", planted)
    data = _file(
        '{"a":{"dtype":"F32","\\u0064type":"I32","shape":[1],"data_offsets":[0,4]}}'
    )
    wanted = finding.signature("reader", data, [])
    assert wanted == ("AssertionError", ("KEY-UNIQUE",), "escaped dtype ignored ")
    reduced = reduce.reduce(
        data, lambda d: finding.signature("reader", d, []) == wanted
    )
    assert finding.signature("reader", reduced.data, []) == wanted
    assert len(reduced.data) < len(data)


@pytest.mark.parametrize(
    ("verdict", "rules", "expected"),
    [
        ("invalid", ["KEY-UNIQUE"], "n_json_fuzz_x"),
        ("invalid", ["ENTRY-FIELDS"], "n_structure_fuzz_x"),
        ("invalid", ["JSON-SURROGATE"], "n_json_fuzz_x"),
        ("invalid", ["HEADER-BOUNDS"], "n_prefix_fuzz_x"),
        ("invalid", ["SIZE-MATCH"], "n_arith_fuzz_x"),
        ("invalid", ["DTYPE-NAME"], "n_dtype_fuzz_x"),
        ("valid", [], "y_structure_fuzz_x"),
        ("tolerated", ["ENTRY-UNKNOWN"], "i_structure_fuzz_x"),
    ],
)
def test_corpus_ids_follow_the_rule_families(
    verdict: str, rules: list[str], expected: str
) -> None:
    assert finding.corpus_id(verdict, rules, "x") == expected


@pytest.mark.parametrize(
    "description",
    [
        "short",
        (
            "U8[2^30] over no bytes: a reader allocating the shape first asks 1 GiB "
            "(safetensors-streaming)"
        ),
        " ".join(["word"] * 20),  # 99 characters, the most a description may hold
    ],
)
def test_a_written_description_fits_the_line_limit(description: str) -> None:
    written = finding._wrapped(description)
    assert eval(f"({written})") == description  # noqa: S307 - our own literal
    assert all(len("        " + line.strip()) <= 88 for line in written.splitlines())


# Judging a matrix implementation's answer ------------------------------------------

matrix_impl = _load("matrix_impl")
ONE = _file('{"a":{"dtype":"F32","shape":[1],"data_offsets":[0,4]}}', bytes(4))
ONE_ANSWER = {
    "result": "accepted",
    "metadata": None,
    "tensors": {
        "a": [
            "F32",
            [1],
            "df3f619804a92fdb4057192dc43dd748ea778adc52bc498ce80524c014b81119",
        ]
    },
}
DUPLICATE = _file(
    '{"a":{"dtype":"F32","shape":[1],"data_offsets":[0,4]},"\\u0061":{"dtype":"F32","shape":[1],"data_offsets":[0,4]}}',
    bytes(4),
)


def test_judge_accepts_agreement_and_catches_crashes() -> None:
    matrix_impl.judge(ONE, ONE_ANSWER, {})
    with pytest.raises(AssertionError, match="crashed"):
        matrix_impl.judge(ONE, {"result": "crashed", "error": "signal 11"}, {})
    with pytest.raises(AssertionError, match="rejected"):
        matrix_impl.judge(ONE, {"result": "rejected", "error": "no"}, {})


def test_judge_compares_content_within_the_declaration() -> None:
    other = {**ONE_ANSWER, "tensors": {"a": ["F32", [1], "00" * 32]}}
    with pytest.raises(AssertionError, match="other bytes"):
        matrix_impl.judge(ONE, other, {})
    matrix_impl.judge(ONE, other, {"header_only": True})
    matrix_impl.judge(ONE, {**ONE_ANSWER, "tensors": {"a": ["F32", [1], None]}}, {})
    with pytest.raises(AssertionError, match="metadata"):
        matrix_impl.judge(ONE, {**ONE_ANSWER, "metadata": {}}, {})
    matrix_impl.judge(ONE, {**ONE_ANSWER, "metadata": {}}, {"metadata_presence": False})


def test_judge_honours_known_deviations_and_dtypes() -> None:
    accepted = {**ONE_ANSWER}
    with pytest.raises(AssertionError, match="accepted"):
        matrix_impl.judge(DUPLICATE, accepted, {})
    matrix_impl.judge(DUPLICATE, accepted, {}, ignore_rules={"KEY-UNIQUE"})
    matrix_impl.judge(DUPLICATE, accepted, {"read_dtypes": ["U8"]})  # not judged


def test_judge_excuses_a_valid_rejection_only_by_a_known_feature() -> None:
    empty = _file(
        '{"e":{"dtype":"F32","shape":[18446744073709551615,2,0],"data_offsets":[0,0]}}'
    )
    assert "SIZE-OVERFLOW" in matrix_impl.valid_features(empty)
    rejected = {"result": "rejected", "error": "overflow"}
    matrix_impl.judge(empty, rejected, {}, valid_ignore={"SIZE-OVERFLOW"})
    with pytest.raises(AssertionError, match="rejected"):
        matrix_impl.judge(empty, rejected, {}, valid_ignore={"KEY-UNIQUE"})


def test_judge_excuses_a_crash_only_on_a_rule_it_is_known_to_crash_on() -> None:
    crashed = {"result": "crashed", "error": "exit status 134"}
    matrix_impl.judge(DUPLICATE, crashed, {}, crash_ignore={"KEY-UNIQUE"})
    with pytest.raises(AssertionError, match="crashed"):
        matrix_impl.judge(DUPLICATE, crashed, {}, crash_ignore={"JSON-DEPTH"})
    with pytest.raises(AssertionError, match="crashed"):
        matrix_impl.judge(ONE, crashed, {}, crash_ignore={"KEY-UNIQUE"})


@pytest.mark.parametrize(
    ("header", "masked"),
    [
        # A repeated name hides the second entry's end past the empty buffer.
        (
            '{"a":{},"a":{"dtype":"F32","shape":[],"data_offsets":[0,4]}}',
            {"LAYOUT-BOUNDS"},
        ),
        # Three offsets: no pair to judge, but 7 > 0 and 7 past the buffer.
        (
            '{"":{"dtype":"F32","shape":[],"data_offsets":[7,0,1]}}',
            {"LAYOUT-BOUNDS", "OFFSETS-ORDER"},
        ),
        # A repeated field: the later array counts too.
        (
            '{"":{"dtype":"F32","shape":[],"data_offsets":[],"data_offsets":[0,4]}}',
            {"LAYOUT-BOUNDS"},
        ),
        ('{"a":{"dtype":"F32","shape":[],"data_offsets":[0,0,0]}}', set()),
        ('{"a":{"data_offsets":{"0":9}}}', set()),
        ('{"a":[["data_offsets",[9]]]}', set()),
        ("[[1,[9]]]", {"HEADER-OBJECT"}),
        ("[]", {"HEADER-OBJECT"}),
        ("{}", set()),
        ('{"a":', set()),
    ],
)
def test_masked_finds_what_the_first_fault_hid(header: str, masked: set[str]) -> None:
    assert matrix_impl.masked(_file(header)) == masked


def test_a_crash_hidden_by_a_repeated_name_is_excused_as_a_layout_crash() -> None:
    crashed = {"result": "crashed", "error": "PanicException: range end out of bounds"}
    hidden = _file('{"a":{},"a":{"dtype":"F32","shape":[],"data_offsets":[0,4]}}')
    assert {error.rule for error in stspec.validate(hidden)} == {
        "ENTRY-FIELDS",
        "KEY-UNIQUE",
    }
    matrix_impl.judge(hidden, crashed, {}, crash_ignore={"LAYOUT-BOUNDS"})
    with pytest.raises(AssertionError, match="crashed"):
        matrix_impl.judge(hidden, crashed, {}, crash_ignore={"OFFSETS-ORDER"})
    # A file whose layout was judged keeps its own rules only.
    past = _file('{"a":{"dtype":"F32","shape":[],"data_offsets":[0,4]}}')
    with pytest.raises(AssertionError, match="crashed"):
        matrix_impl.judge(past, crashed, {}, crash_ignore={"OFFSETS-ORDER"})


def test_known_crashes_include_running_out_of_the_allowance() -> None:
    results = {
        "cases": {
            "n_prefix_gguf_magic": {"ok": False, "outcome": "resource"},
            "n_layout_bounds_empty_buffer": {"ok": False, "outcome": "crashed"},
            "n_structure_offsets_null": {"ok": False, "outcome": "accepted"},
            "n_text_utf8_in_padding": {"ok": True, "outcome": "rejected"},
        }
    }
    assert matrix_impl.crash_deviations(results) == {"HEADER-LIMIT", "LAYOUT-BOUNDS"}


def test_a_prefix_fault_hides_a_header_that_is_no_object() -> None:
    # N is past the file: the reference stops at byte 0; a reader that reads
    # to the end of the file parses a number, and crashes as it does on
    # n_text_top_level_number.
    beyond = struct.pack("<Q", 2**40) + b"5"
    assert {error.rule for error in stspec.validate(beyond)} == {"HEADER-LIMIT"}
    assert matrix_impl.masked(beyond) == {"HEADER-OBJECT"}
    crashed = {"result": "crashed", "error": "AttributeError: 'int' object"}
    matrix_impl.judge(beyond, crashed, {}, crash_ignore={"HEADER-OBJECT"})
    with pytest.raises(AssertionError, match="crashed"):
        matrix_impl.judge(beyond, crashed, {}, crash_ignore={"LAYOUT-BOUNDS"})


def test_a_crash_on_metadata_is_known_in_a_tolerated_file_too() -> None:
    tolerated = _file('\t{"__metadata__":{"s":""}}')
    assert stspec.verdict_of({e.rule for e in stspec.validate(tolerated)}) == (
        "tolerated"
    )
    assert matrix_impl.masked(tolerated) == {"META-NULL", "META-OBJECT", "META-STRING"}
    crashed = {"result": "crashed", "error": "exit status 70"}
    matrix_impl.judge(tolerated, crashed, {}, crash_ignore={"META-NULL"})
    with pytest.raises(AssertionError, match="crashed"):
        matrix_impl.judge(_file('\t{"a":{}}'), crashed, {}, crash_ignore={"META-NULL"})


def test_a_malformed_answer_is_judged_as_an_acceptance() -> None:
    # torch's checkpoint parser returns a shape of None for {"a":{}}.
    malformed = {"result": "invalid-output", "error": "TypeError: 'NoneType'"}
    fields = _file('{"a":{}}')
    matrix_impl.judge(fields, malformed, {}, ignore_rules={"ENTRY-FIELDS"})
    with pytest.raises(AssertionError, match="malformed answer"):
        matrix_impl.judge(fields, malformed, {}, ignore_rules={"KEY-UNIQUE"})
    with pytest.raises(AssertionError, match="invalid-output"):
        matrix_impl.judge(ONE, malformed, {}, ignore_rules={"ENTRY-FIELDS"})


def test_invalid_utf8_hides_a_nesting_bomb() -> None:
    # The reference stops at the byte that is not UTF-8; a reader that
    # replaces it parses on and recurses (torch's checkpoint parser).
    bomb = _file('{"__metadata__":{"deep":' + "[" * 5000 + "]" * 5000 + "}}", b"")
    bomb = bomb[:-2] + b"\xff}"
    assert {error.rule for error in stspec.validate(bomb)} == {"HEADER-UTF8"}
    assert matrix_impl.masked(bomb) == {"JSON-DEPTH"}


def test_a_short_input_has_no_masked_layout() -> None:
    assert matrix_impl.masked(b"\x01") == frozenset()


# Planted bugs and the scaling files ---------------------------------------------------

planted = _load("planted")


@pytest.mark.parametrize("name", sorted(planted.PLANTS))
def test_each_planted_bug_still_applies_to_the_reference(
    name: str, tmp_path: Path
) -> None:
    # A plant whose line has moved would measure nothing: it must still apply,
    # and the copy must differ from the reference in exactly its edits.
    root = planted.plant(name, tmp_path)
    changed = [
        p.relative_to(root / "stspec").as_posix()
        for p in (root / "stspec").rglob("*.py")
        if p.read_bytes()
        != (ROOT / "reference" / "stspec" / p.relative_to(root / "stspec")).read_bytes()
    ]
    assert sorted(set(changed)) == sorted({e[0] for e in planted.PLANTS[name].edits})


def test_clusterfuzzlite_build_packs_seeds_options_and_dictionaries(
    tmp_path: Path,
) -> None:
    # build.sh with stand-ins for pip3 and compile_python_fuzzer (no Docker):
    # the names ClusterFuzzLite and OSS-Fuzz look for, seeds within max_len.
    stubs = tmp_path / "bin"
    stubs.mkdir()
    for tool in ("pip3", "compile_python_fuzzer"):
        (stubs / tool).write_text('#!/bin/sh\necho "$0 $*" >> "$OUT/calls"\n')
        (stubs / tool).chmod(0o755)
    (stubs / "python3").symlink_to(sys.executable)
    src, out, work = tmp_path / "src", tmp_path / "out", tmp_path / "work"
    for folder in (src, out, work):
        folder.mkdir()
    (src / "safetensors-spec").symlink_to(ROOT)
    env = {
        "PATH": f"{stubs}:/usr/bin:/bin",
        "SRC": str(src),
        "OUT": str(out),
        "WORK": str(work),
    }
    subprocess.run(
        ["/bin/bash", str(ROOT / ".clusterfuzzlite" / "build.sh")],
        env=env,
        check=True,
        capture_output=True,
        timeout=300,
    )
    names = sorted(p.name for p in out.iterdir())
    harnesses = sorted(p.stem for p in FUZZ.glob("fuzz_*.py"))
    for harness in harnesses:
        assert f"{harness}.options" in names
        assert "max_len = 65536" in (out / f"{harness}.options").read_text()
    assert "fuzz_reader_seed_corpus.zip" in names
    assert "fuzz_reader.dict" in names
    assert "fuzz_roundtrip.dict" not in names
    with zipfile.ZipFile(out / "fuzz_reader_seed_corpus.zip") as seeds_zip:
        sizes = [info.file_size for info in seeds_zip.infolist()]
    assert len(sizes) > 300
    assert max(sizes) <= 65_536
    calls = (out / "calls").read_text()
    assert calls.count("compile_python_fuzzer") == len(harnesses)
    assert "--hidden-import safetensors" in calls


def test_oss_fuzz_files_build_with_the_clusterfuzzlite_script() -> None:
    oss = FUZZ / "oss-fuzz"
    assert "language: python" in (oss / "project.yaml").read_text()
    assert "base-builder-python" in (oss / "Dockerfile").read_text()
    assert ".clusterfuzzlite/build.sh" in (oss / "build.sh").read_text()


@pytest.mark.parametrize(
    ("workflow", "mode"),
    [("cflite_pr", "code-change"), ("cflite_batch", "batch"), ("cflite_cron", "prune")],
)
def test_workflows_run_clusterfuzzlite_in_each_mode(workflow: str, mode: str) -> None:
    text = (ROOT / ".github" / "workflows" / f"{workflow}.yml").read_text()
    # pinned to the commit of ClusterFuzzLite's v1 tag (zizmor: unpinned-uses)
    assert re.search(
        r"google/clusterfuzzlite/actions/build_fuzzers@[0-9a-f]{40}  # v1", text
    )
    assert "language: python" in text
    assert f"mode: {mode}" in text


@pytest.mark.parametrize("harness", ["fuzz_reader", "fuzz_differential"])
def test_harness_instruments_the_reference_and_json(
    harness: str, tmp_path: Path
) -> None:
    # fuzz_differential once imported the conformance package (which imports
    # stspec and json) before its instrumentation block and ran blind.
    pytest.importorskip("atheris")
    (tmp_path / "seed").write_bytes(ONE)
    done = subprocess.run(
        [sys.executable, str(FUZZ / f"{harness}.py"), "-runs=0", str(tmp_path)],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    assert "INFO: Instrumenting stspec\n" in done.stderr
    assert "INFO: Instrumenting json\n" in done.stderr


def test_valid_features_name_the_dtypes_used() -> None:
    assert "dtype:F32" in matrix_impl.valid_features(ONE)
    rejected = {"result": "rejected", "error": "unknown dtype"}
    matrix_impl.judge(ONE, rejected, {}, valid_ignore={"dtype:F32"})
    with pytest.raises(AssertionError, match="rejected"):
        matrix_impl.judge(ONE, rejected, {}, valid_ignore={"dtype:U16"})


# Frame-stack room ------------------------------------------------------------------

stackroom = _load("stackroom")


def _deep(levels: int) -> int:
    return 0 if levels == 0 else _deep(levels - 1) + 1


def _page_faults(call: Any) -> int:
    before = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
    call()
    return resource.getrusage(resource.RUSAGE_SELF).ru_minflt - before


def test_calls_inside_the_room_map_no_new_frame_chunks() -> None:
    # 300 frames need more than one 16 KiB chunk: without room, each of the
    # 1,000 calls would map a chunk, fault its pages in and unmap it.
    def calls() -> None:
        for _ in range(1000):
            assert _deep(300) == 300

    assert stackroom.call_with_room(lambda: _page_faults(calls)) < 100
    assert stackroom.call_with_room(lambda: 42) == 42


def test_a_failing_mutation_falls_back_to_the_byte_mutator() -> None:
    calls: list[bytes] = []

    def raw(data: bytes, max_size: int) -> bytes:
        calls.append(data)
        if len(calls) == 1:  # the structural mutator's own use of it fails
            raise ValueError("a mutator bug")
        return data[:max_size] + b"!"

    custom_mutator = mutators.guarded(types.SimpleNamespace(Mutate=raw))
    assert (
        custom_mutator(b"not a safetensors file", 64, 1) == b"not a safetensors file!"
    )
    assert len(calls) == 2
