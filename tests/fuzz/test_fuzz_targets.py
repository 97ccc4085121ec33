"""The fuzz oracles replay the corpus and every past finding, and have teeth."""

from __future__ import annotations

import importlib.util
import os
import random
import struct
import subprocess
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

import stspec
from stspec.reader import fast as _header
from stspec.reader import pipeline as _reader
from stspec.reader import recognise
from stspec.writer import serialize as _writer

if TYPE_CHECKING:
    from types import ModuleType

ROOT = Path(__file__).resolve().parents[2]
FUZZ = ROOT / "fuzz"
HARNESSES = sorted(FUZZ.glob("fuzz_*.py"))
DICTIONARY = FUZZ / "safetensors.dict"


def _load(name: str) -> Any:
    spec = importlib.util.spec_from_file_location(
        f"stspec_fuzz_{name}", FUZZ / f"{name}.py"
    )
    assert spec is not None
    assert spec.loader is not None
    module: ModuleType = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


targets = _load("targets")
mutators = _load("mutators")


def _corpus_files() -> list[Path]:
    corpus = Path(os.environ.get("STSPEC_CORPUS", ROOT / "corpus"))
    return sorted((corpus / "files").glob("*.safetensors"))


def _regressions(target: str | None = None) -> list[Path]:
    pattern = f"{target or '*'}/*"  # fuzz/regressions/OPEN is not a regression
    return sorted(p for p in (FUZZ / "regressions").glob(pattern) if p.is_file())


def _ids(paths: list[Path]) -> list[str]:
    return [f"{p.parent.name}/{p.stem}" for p in paths]


def _open_findings() -> dict[str, str]:
    """Regression files of reported, unfixed bugs (fuzz/regressions/OPEN)."""
    listed = FUZZ / "regressions" / "OPEN"
    lines = listed.read_text(encoding="utf-8").splitlines() if listed.exists() else []
    rows = [line.split(maxsplit=1) for line in lines if line and line[0] != "#"]
    return {row[0]: row[1] for row in rows}


OPEN = _open_findings()


def _marked(paths: list[Path]) -> list[Any]:
    """Parameters; a still-open finding's replay is expected to fail (strict)."""
    out = []
    for path in paths:
        key = f"{path.parent.name}/{path.name}"
        marks = (
            [pytest.mark.xfail(reason=OPEN[key], strict=True)] if key in OPEN else []
        )
        out.append(
            pytest.param(path, marks=marks, id=f"{path.parent.name}/{path.stem}")
        )
    return out


CORPUS = _corpus_files()
REGRESSIONS = sorted(p for p in _regressions() if p.name != "OPEN")


def _file(header: str, data: bytes = b"") -> bytes:
    raw = header.encode()
    return struct.pack("<Q", len(raw)) + raw + data


def _u8(begin: int, end: int, shape: list[int] | None = None) -> str:
    shape = [end - begin] if shape is None else shape
    return f'{{"dtype":"U8","shape":{shape},"data_offsets":[{begin},{end}]}}'


VALID = _file(f'{{"a":{_u8(0, 2)},"b":{_u8(2, 3)}}}', b"xyz")
HOLE = _file(f'{{"a":{_u8(0, 1)},"b":{_u8(2, 3)}}}', b"xyz")
DUPLICATE = _file(f'{{"a":{_u8(0, 1)},"a":{_u8(0, 1)}}}', b"x")


@pytest.fixture(scope="module")
def hf() -> Any:
    pytest.importorskip("safetensors")
    from stspec_conformance.adapters import resolve  # noqa: PLC0415

    return resolve("safetensors")


@pytest.fixture(scope="module")
def reference() -> Any:
    from stspec_conformance.adapters import resolve  # noqa: PLC0415

    return resolve("reference")


# Replays ------------------------------------------------------------------------


def test_the_corpus_is_there() -> None:
    assert CORPUS, "no corpus/files/*.safetensors (set STSPEC_CORPUS to a corpus)"


@pytest.mark.parametrize("path", _marked(CORPUS + REGRESSIONS))
def test_reader_oracle_holds(path: Path) -> None:
    targets.check_reader(path.read_bytes())


@pytest.mark.parametrize("path", CORPUS + REGRESSIONS, ids=_ids(CORPUS + REGRESSIONS))
def test_reference_agrees_with_itself(path: Path, reference: Any) -> None:
    targets.check_differential(path.read_bytes(), reference)


DIFFERENTIAL = CORPUS + _regressions("differential") + _regressions("reader")


@pytest.mark.parametrize("path", DIFFERENTIAL, ids=_ids(DIFFERENTIAL))
def test_hf_agrees_but_for_known_deviations(path: Path, hf: Any) -> None:
    targets.check_differential(
        path.read_bytes(), hf, ignore_rules=targets.HF_DEVIATIONS
    )


def test_a_run_below_the_cap_is_the_uncapped_run() -> None:
    # check_reader skips the uncapped shortcut run when validate()'s answer
    # shows it would be the same run; it is, on every file where that holds.
    below = 0
    for path in CORPUS + REGRESSIONS:
        data = path.read_bytes()
        errors = stspec.validate(data)
        if targets.below_cap(errors, len(data)):
            below += 1
            uncapped = _reader.check(memoryview(data), limit=None)[0]
            assert _located(uncapped) == _located(errors), path.name
    assert below > 50


def _located(errors: list[stspec.SafetensorsError]) -> list[tuple[object, ...]]:
    return [(error.rule, error.offset, error.path) for error in errors]


def test_only_a_run_that_kept_everything_is_below_the_cap() -> None:
    limit = _reader.LIMIT
    many = ",".join(f'"t{i}":{{"dtype":"X"}}' for i in range(limit + 1))
    few = ",".join(f'"t{i}":{{"dtype":"X"}}' for i in range(limit - 1))
    for data, expected in [
        (VALID, False),  # accepted: re-run for the content
        (_file(f"{{{few}}}"), True),
        (_file(f"{{{many}}}"), False),  # DTYPE-NAME reached the cap
        (_file(f"{{{few},"), False),  # the parse stopped: findings forgotten
    ]:
        assert targets.below_cap(stspec.validate(data), len(data)) is expected


# Any bytes decode to a write request: past round-trip findings (none so far)
# replay with every other file the fuzzers start from, so this never runs empty.
ROUNDTRIP = _regressions("roundtrip") + CORPUS + REGRESSIONS


@pytest.mark.parametrize("path", ROUNDTRIP, ids=_ids(ROUNDTRIP))
def test_roundtrip_regression(path: Path) -> None:
    targets.check_roundtrip(path.read_bytes())


def test_roundtrip_oracle_reaches_every_writer_refusal() -> None:
    rng = random.Random(7)  # noqa: S311 - reproducible inputs
    seen: set[str] = set()
    accepted = 0
    for _ in range(1500):
        data = rng.randbytes(rng.randrange(120))
        targets.check_roundtrip(data)
        refusals = targets._expected_refusals(*targets.decode_request(data))
        seen |= refusals
        accepted += not refusals
    assert seen == {
        "WRITE-RESERVED", "JSON-SURROGATE", "DTYPE-NAME", "SHAPE-ARRAY",
        "NUM-INTEGER", "NUM-RANGE", "SIZE-OVERFLOW", "SIZE-BITS", "SIZE-MATCH",
    }  # fmt: skip
    assert accepted > 500


# Teeth: break the code under test and watch the oracle notice ------------------


def test_reader_oracle_catches_a_shortcut_that_changes_a_verdict(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    targets.check_reader(HOLE)
    # Break the canonical-entry shortcut only: an entry it matches loses
    # its data_offsets begin, which moves the hole.
    real = recognise.CANONICAL

    class Shifted:
        def match(self, text: str, pos: int) -> object:
            found = real.match(text, pos)
            if found is None:
                return None
            groups = list(found.groups())
            groups[3] = "0"
            return _Match(found, tuple(groups))

    monkeypatch.setattr(_header, "CANONICAL", Shifted())
    with pytest.raises(AssertionError, match=r"shortcut|fast path"):
        targets.check_reader(HOLE)


class _Match:
    def __init__(self, found: Any, groups: tuple[str, ...]) -> None:
        self._found = found
        self._groups = groups

    def groups(self) -> tuple[str, ...]:
        return self._groups

    def group(self, *indices: int) -> str | tuple[str, ...]:
        # As re.Match.group: one index gives a string, several a tuple.
        found = tuple(self._groups[index - 1] for index in indices)
        return found[0] if len(found) == 1 else found

    def start(self, index: int = 0) -> int:
        return int(self._found.start(index))

    def end(self, index: int = 0) -> int:
        return int(self._found.end(index))

    def span(self, index: int = 0) -> tuple[int, int]:
        return self.start(index), self.end(index)


@pytest.mark.parametrize("error", [RecursionError, MemoryError, IndexError])
def test_reader_oracle_lets_a_crash_escape(
    monkeypatch: pytest.MonkeyPatch, error: type[Exception]
) -> None:
    def crash(*_args: object, **_kwargs: object) -> None:
        raise error

    monkeypatch.setattr(_reader, "check", crash)
    with pytest.raises(error):
        targets.check_reader(HOLE)


@pytest.mark.parametrize(
    ("rule", "offset", "message"),
    [
        ("LAYOUT-HOLE", 10**6, "outside"),
        ("WRITE-VALID", 8, "not a reader rule"),
        ("LAYOUT-HOLE", None, "offset None"),
    ],
)
def test_reader_oracle_checks_each_error(
    monkeypatch: pytest.MonkeyPatch, rule: str, offset: int | None, message: str
) -> None:
    def planted(*_args: object, **_kwargs: object) -> tuple[object, None]:
        return stspec.Violations(
            [stspec.SafetensorsError(rule, offset, "planted")]
        ), None

    monkeypatch.setattr(_reader, "check", planted)
    with pytest.raises(AssertionError, match=message):
        targets.check_reader(VALID)


def test_reader_oracle_reads_an_accepted_header_independently() -> None:
    # As if both paths of the reader had missed a repeat spelt with an
    # escape, or kept the other copy of a field: json sees it.
    header = mutators.split(VALID)[0].decode()
    with stspec.read(VALID) as file:
        targets._check_independently(file, header.encode())
        repeated = header.replace('"shape"', '"\\u0064type":"U8","shape"', 1)
        with pytest.raises(AssertionError, match="repeating \\['dtype'\\]"):
            targets._check_independently(file, repeated.encode())
        other = header.replace('"U8"', '"I8"', 1)
        with pytest.raises(AssertionError, match="json reads"):
            targets._check_independently(file, other.encode())


def test_reader_oracle_catches_read_and_validate_disagreeing(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(stspec, "validate", lambda _source: [])
    with pytest.raises(AssertionError, match="validate"):
        targets.check_reader(HOLE)


def test_reader_oracle_catches_tensor_bytes_from_the_wrong_place(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    def shifted(self: stspec.SafetensorsFile, name: str) -> memoryview:
        info = self.tensors[name]
        start = self.data_start + 1
        return self._buffer[start + info.begin : start + info.end]

    monkeypatch.setattr(stspec.SafetensorsFile, "tensor_bytes", shifted)
    with pytest.raises(AssertionError, match="bytes"):
        targets.check_reader(VALID)


def test_roundtrip_oracle_catches_a_non_canonical_writer(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    request = bytes([1, 1, 7, 0x7F, 1, 1, 3]) + b"abc"
    targets.check_roundtrip(request)
    monkeypatch.setattr(_writer, "_ALIGNMENT", 16)
    with pytest.raises(AssertionError, match="not canonical"):
        targets.check_roundtrip(request)


def test_roundtrip_oracle_catches_a_writer_that_writes_what_it_must_refuse(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    request = bytes([0, 1, 255, 4, 0])  # one U8 scalar named __metadata__
    assert targets._expected_refusals(*targets.decode_request(request)) == {
        "WRITE-RESERVED"
    }
    targets.check_roundtrip(request)
    monkeypatch.setattr(_writer, "METADATA_KEY", "not reserved")
    with pytest.raises(AssertionError, match="was written"):
        targets.check_roundtrip(request)


ADAPTER = """
import stspec
def load(path):
    {body}
"""
LOAD_BODIES = {
    "accept-all": "return {}, None",
    "wrong-bytes": "f = stspec.read(path)\n    "
    "return {n: (i.dtype, i.shape, b'?' * i.nbytes) for n, i in f.tensors.items()}, "
    "f.metadata",
    "recursion": "raise RecursionError('deep')",
    "reject-all": "raise ValueError('no')",
}


def _adapter(tmp_path: Path, behaviour: str) -> Any:
    from stspec_conformance.adapters import resolve  # noqa: PLC0415

    path = tmp_path / f"impl_{behaviour.replace('-', '_')}.py"
    path.write_text(ADAPTER.format(body=LOAD_BODIES[behaviour]))
    return resolve(str(path))


@pytest.mark.parametrize(
    ("behaviour", "data", "message"),
    [
        ("accept-all", HOLE, "accepted"),
        ("wrong-bytes", VALID, "tensor 'a'"),
        ("recursion", VALID, r"exception \(RecursionError\)"),
        ("recursion", HOLE, r"exception \(RecursionError\)"),
        ("reject-all", VALID, "rejected"),
    ],
)
def test_differential_oracle_catches_a_broken_implementation(
    tmp_path: Path, behaviour: str, data: bytes, message: str
) -> None:
    adapter = _adapter(tmp_path, behaviour)
    with pytest.raises(AssertionError, match=message):
        targets.check_differential(data, adapter)


def test_differential_oracle_leaves_tolerated_files_to_the_implementation(
    tmp_path: Path,
) -> None:
    tolerated = _file(" " + VALID[8:-3].decode(), b"xyz")  # leading whitespace
    rules = {error.rule for error in stspec.validate(tolerated)}
    assert stspec.verdict_of(rules) == "tolerated"
    for behaviour in ("accept-all", "reject-all"):
        targets.check_differential(tolerated, _adapter(tmp_path, behaviour))


def test_differential_oracle_ignores_only_the_rules_it_is_told(tmp_path: Path) -> None:
    adapter = _adapter(tmp_path, "accept-all")
    targets.check_differential(DUPLICATE, adapter, ignore_rules={"KEY-UNIQUE"})
    with pytest.raises(AssertionError):
        targets.check_differential(DUPLICATE, adapter, ignore_rules={"LAYOUT-HOLE"})


HF_DEVIATIONS = {
    "KEY-UNIQUE": DUPLICATE,
    "ENTRY-OBJECT": _file('{"a":["U8",[1],[0,1]]}', b"x"),
    "DTYPE-NAME": _file(  # serde's map form of an enum
        '{"a":{"dtype":{"U8":null},"shape":[1],"data_offsets":[0,1]}}', b"x"
    ),
    "SIZE-OVERFLOW": _file(f'{{"a":{_u8(0, 0, [2**64 - 1, 2, 0])}}}'),
}


@pytest.mark.parametrize("rule", sorted(targets.HF_DEVIATIONS))
def test_each_hf_deviation_is_still_needed(rule: str, hf: Any) -> None:
    data = HF_DEVIATIONS[rule]
    targets.check_differential(data, hf, ignore_rules={rule})
    others = targets.HF_DEVIATIONS - {rule}
    with pytest.raises(AssertionError):
        targets.check_differential(data, hf, ignore_rules=others)


# The mutator ----------------------------------------------------------------------


def test_parse_and_dump_keep_repeats_and_number_tokens() -> None:
    text = '{"a":1,"a":-0,"b":[1e2,1.0,18446744073709551616],"c":"\\ud800","d":null}'
    assert mutators.dump(mutators.parse(text)) == text


def test_mutator_mostly_keeps_the_length_prefix_right() -> None:
    rng = random.Random(3)  # noqa: S311 - reproducible inputs

    def flip(data: bytes, max_size: int) -> bytes:
        mutant = bytearray(data[:max_size])
        if mutant:
            mutant[rng.randrange(len(mutant))] ^= 1 << rng.randrange(8)
        return bytes(mutant)

    results = [mutators.mutate(VALID, 4096, seed, flip) for seed in range(400)]
    assert all(len(result) <= 4096 for result in results)
    consistent = sum(mutators.split(result) is not None for result in results)
    assert 0.7 * len(results) < consistent < len(results)
    valid = sum(not stspec.validate(result) for result in results)
    assert valid > 20  # the relayout operator repairs offsets


# The harness scripts ----------------------------------------------------------------


def test_there_are_three_harnesses() -> None:
    assert [p.name for p in HARNESSES] == [
        "fuzz_differential.py",
        "fuzz_reader.py",
        "fuzz_roundtrip.py",
    ]


@pytest.mark.parametrize("script", HARNESSES, ids=[p.stem for p in HARNESSES])
def test_harness_is_an_executable_script(script: Path) -> None:
    # libFuzzer's -fork, -jobs, -merge and -minimize_crash re-run argv[0].
    assert script.read_text().startswith("#!/usr/bin/env python3\n")
    assert os.access(script, os.X_OK)


@pytest.mark.parametrize("script", HARNESSES, ids=[p.stem for p in HARNESSES])
def test_harness_replays_inputs(script: Path, tmp_path: Path) -> None:
    pytest.importorskip("atheris")
    seeds = tmp_path / "seeds"
    seeds.mkdir()
    for name, data in {"valid": VALID, "hole": HOLE, "duplicate": DUPLICATE}.items():
        (seeds / name).write_bytes(data)
    result = subprocess.run(
        [sys.executable, str(script), f"-dict={DICTIONARY}", "-runs=0", str(seeds)],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert result.returncode == 0, result.stderr[-2000:]
    assert "Dictionary: " in result.stderr
    assert "INITED" in result.stderr
