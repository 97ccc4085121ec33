"""Each run's corpus variants: judged as their case, unlike any committed file.

A variant keeps its case's verdict and rule; an accepted one is compared with
the reference's reading of it; the cases about what a change touches are
handed over as committed; no cheap normal form of a variant (padding off,
JSON whitespace out, the buffer alone) is a committed file's; one seed makes
the same bytes in every process, and the implementation never sees it.
"""

from __future__ import annotations

import functools
import hashlib
import importlib.util
from typing import TYPE_CHECKING, Any

import pytest
from _suite_runner import BROKEN, ROOT, run_suite

import stspec
from stspec_conformance import _variants
from stspec_conformance._corpus import load_corpus
from stspec_conformance._model import Content
from stspec_conformance.adapters._process import environment

if TYPE_CHECKING:
    from pathlib import Path
    from types import ModuleType

CORPUS = ROOT / "corpus"
SEEDS = ("first", "second")
# changes no cheap form of the header, or of the buffer, takes back
HEADER_CHANGES = frozenset({"order", "metadata", "names", "tensor"})
BUFFER_CHANGES = frozenset({"buffer", "tensor"})


@functools.cache
def _files() -> list[dict[str, Any]]:
    return [case for case in load_corpus(CORPUS).cases if "file" in case]


@functools.cache
def _made(seed: str) -> dict[str, _variants.Variant | None]:
    return {
        case["id"]: _variants.variant(case, CORPUS / case["file"], seed)
        for case in _files()
    }


@functools.cache
def _lookup() -> ModuleType:  # broken/_lookup.py
    spec = importlib.util.spec_from_file_location("_lookup", BROKEN / "_lookup.py")
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _reading(data: bytes) -> Content | str:
    """The reference's content of ``data``, or the rule it rejects it by."""
    try:
        with stspec.read(data) as st:
            return Content.from_raw(
                {
                    n: (i.dtype, i.shape, bytes(st.tensor_bytes(n)))
                    for n, i in st.tensors.items()
                },
                st.metadata,
            )
    except stspec.SafetensorsError as exc:
        return exc.rule


def _same_order_and_dtypes(case: dict[str, Any], made: _variants.Variant) -> None:
    """The tensors in the committed order, an added one last, no new dtype."""
    with stspec.read((CORPUS / case["file"]).read_bytes()) as st:
        before = [(made.names.get(n, n), i.dtype) for n, i in st.tensors.items()]
    with stspec.read(made.data) as st:
        after = [(n, i.dtype) for n, i in st.tensors.items()]
    assert after[: len(before)] == before, case["id"]
    assert {d for _, d in after} == {d for _, d in before}, case["id"]
    assert all(n.isalnum() for n in made.names.values()), case["id"]


@pytest.mark.parametrize("seed", SEEDS)
def test_each_variant_is_judged_as_its_case(seed: str) -> None:
    for case in _files():
        made = _made(seed)[case["id"]]
        if made is None:
            continue
        read = _reading(made.data)
        if case["verdict"] != "valid":
            committed = _reading((CORPUS / case["file"]).read_bytes())
            assert read == committed, case["id"]
            if case["verdict"] == "invalid" and not case["id"].startswith("x_"):
                assert read in case["rules"], case["id"]
            continue
        assert isinstance(read, Content), (case["id"], read)
        judged = made.judged(case)
        if "tensors" in judged["expected"]:
            expected = Content.from_expected(judged["expected"])
            assert read.differences(expected) == [], case["id"]
        else:  # the compact form of huge tensor lists: names and metadata kept
            assert read.metadata == judged["expected"].get("metadata"), case["id"]
        assert judged["handed"].startswith("this run's variant of it: ")
        _same_order_and_dtypes(case, made)


def test_a_seed_makes_the_same_bytes_and_another_seed_others() -> None:
    again = {
        case["id"]: _variants.variant(case, CORPUS / case["file"], SEEDS[0])
        for case in _files()
    }
    first, second = _made(SEEDS[0]), _made(SEEDS[1])
    for case in _files():
        one, two = first[case["id"]], again[case["id"]]
        assert (one and one.data) == (two and two.data), case["id"]
        other = second[case["id"]]
        if one is not None and other is not None:
            assert one.data != other.data, case["id"]


def test_the_cases_about_a_change_are_spared_it() -> None:
    committed = set()
    for case in _files():
        made = _made(SEEDS[0])[case["id"]]
        rules = set(case["rules"])
        if rules & {"HEADER-PADDING", "HEADER-TRAILING", "HEADER-LEADING-WS"}:
            assert made is None, case["id"]
            committed.add(case["id"])
        if made is None:
            continue
        # which of two duplicates comes first, and which fault is found first
        if case["verdict"] == "invalid" and "KEY-UNIQUE" in rules:
            assert "order" not in made.made, case["id"]
        if case["id"].startswith("x_"):
            assert "order" not in made.made, case["id"]
        # a valid file's metadata, or its lack of one, is its content
        if case["verdict"] != "invalid" or any(r.startswith("META-") for r in rules):
            assert "metadata" not in made.made, case["id"]
        # values chosen for a reason, and what a tolerated file holds
        if case["id"].startswith("y_dtype_") or case["verdict"] == "tolerated":
            assert "buffer" not in made.made, case["id"]
        if "name" in case["id"].replace("dtype_name", ""):
            assert "names" not in made.made, case["id"]
    assert len(committed) >= 30


# files with an offset that is not a plain decimal number
ODD_OFFSETS = ("n_json_number_float_offset",)


def test_offsets_and_shapes_move_only_in_invalid_files_about_neither() -> None:
    for case in _files():
        made = _made(SEEDS[0])[case["id"]]
        if made is None:
            continue
        # a valid file's offsets and shapes are its content
        if case["verdict"] != "invalid":
            assert not made.made & {"shift", "reshape"}, case["id"]
        shapes = {"SHAPE-ARRAY", "SIZE-OVERFLOW", "SIZE-BITS", "NUM-RANGE"}
        if shapes & set(case["rules"]) or "shape" in case["id"]:
            assert "reshape" not in made.made, case["id"]
        if "first" in case["id"] or "wrap" in case["id"]:
            assert "shift" not in made.made, case["id"]
        # an offset spelled 4.0 would stay while the others move past it
        if case["id"] in ODD_OFFSETS:
            assert "shift" not in made.made, case["id"]


def test_an_invalid_variant_has_a_layout_no_committed_invalid_file_has(
    tmp_path: Path,
) -> None:
    cheat = _broken("looks_up_layouts")
    invalid = [c for c in _files() if c["verdict"] == "invalid"]
    shifted = found = 0
    for case in invalid:
        made = _made(SEEDS[0])[case["id"]]
        if made is None:
            continue
        shifted += "shift" in made.made
        if made.made & {"shift", "reshape"}:
            assert cheat.fingerprint(made.data) not in cheat._invalid(), case["id"]
        elif cheat.fingerprint(made.data) in cheat._invalid():
            found += _naive_accepts(made.data, tmp_path)
    # most files take a filler; of the others, the lookup still rejects only
    # the few a reader without it would accept (see LOOKUP_MARGIN)
    assert shifted >= 0.4 * len(invalid), shifted
    assert found <= LOOKUP_MARGIN * len(invalid), found


def test_no_cheap_form_of_a_variant_is_a_committed_file() -> None:
    lookup = _lookup()
    findable: dict[str, int] = {}
    for case in _files():
        made = _made(SEEDS[0])[case["id"]]
        committed = (CORPUS / case["file"]).read_bytes()
        data = committed if made is None else made.data
        if (
            made is not None
            and made.made & HEADER_CHANGES
            and made.made & BUFFER_CHANGES
        ):
            shared = set(lookup.forms(data)) & set(lookup.forms(committed))
            assert not shared, (case["id"], made.made)
        if lookup.looked_up(data) == case["verdict"]:
            kind = case["id"][:2]
            findable[kind] = findable.get(kind, 0) + 1
    counts = {
        kind: sum(c["id"].startswith(kind) for c in _files()) for kind in findable
    }
    # the cases handed over as committed (about padding and the header's
    # text), the files whose header is no JSON object, and a few more
    assert findable["y_"] <= 0.2 * counts["y_"], (findable, counts)
    assert sum(findable.values()) <= 0.3 * len(_files()), (findable, counts)


def test_the_implementation_never_sees_the_seed(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv(_variants.SEED_VARIABLE, "given")
    assert _variants.seed() == "given"  # a seed the user gives is used
    assert _variants.SEED_VARIABLE not in environment()
    monkeypatch.delenv(_variants.SEED_VARIABLE)
    chosen = _variants.seed()
    assert chosen
    assert _variants.SEED_VARIABLE not in environment()
    assert chosen not in str(sorted(environment().items()))


# Records the sha256 of every file it is handed, then loads it strictly.
RECORDER = """
import hashlib, os, sys
import stspec


def load(path):
    data = open(path, "rb").read()
    with open(os.environ["RECORD_TO"], "a") as out:
        out.write(hashlib.sha256(data).hexdigest() + "\\n")
    with stspec.read(data) as st:
        tensors = {n: (i.dtype, list(i.shape), bytes(st.tensor_bytes(n)))
                   for n, i in st.tensors.items()}
        return tensors, st.metadata
"""
RECORDED = "y_layout_1 or n_layout_hole or n_structure_shape_n"


def test_every_xdist_worker_hands_over_the_runs_variants(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    impl = tmp_path / "recorder.py"
    impl.write_text(RECORDER, encoding="utf-8")

    def handed(name: str, *args: str) -> tuple[set[str], str]:
        record = tmp_path / f"{name}.txt"
        monkeypatch.setenv("RECORD_TO", str(record))
        folder = tmp_path / name
        folder.mkdir()
        run = run_suite(
            str(impl),
            "-k",
            RECORDED,
            "-n",
            "2",
            *args,
            tmp_path=folder,
            corpus_seed=False,
        )
        assert run.returncode == 0, run.output[-3000:]
        return set(record.read_text().split()), run.report["corpus_seed"]

    chosen, seed = handed("chosen")
    repeated, again = handed("repeated", f"--corpus-seed={seed}")
    assert again == seed
    committed = {
        hashlib.sha256((CORPUS / c["file"]).read_bytes()).hexdigest() for c in _files()
    }
    assert len(chosen - committed) >= 8  # variants, and the smoke file
    # the workers made the controller's variants (another seed: the test above)
    assert chosen == repeated


@functools.cache
def _broken(name: str) -> ModuleType:  # a module of broken/, as the suite loads it
    spec = importlib.util.spec_from_file_location(name, BROKEN / f"{name}.py")
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _naive_accepts(data: bytes, folder: Path) -> bool:
    """Whether the reader without its lookup (``naive_load``) takes ``data``."""
    path = folder / "handed.safetensors"
    path.write_bytes(data)
    try:
        _broken("_common").naive_load(str(path))
    except Exception:  # noqa: BLE001 - any failure of the naive reader is a rejection
        return False
    return True


# Of the invalid files, how many more a lookup may still reject than the same
# reader without it: the files handed over as committed (a stated N past the
# file's end, padding cases) and a few whose offsets are the case's point.
LOOKUP_MARGIN = 0.02


def test_a_reader_looking_up_layouts_scores_as_without_the_lookup(
    tmp_path: Path,
) -> None:
    # broken/looks_up_layouts.py fingerprints what the other changes leave
    # alone: each entry's dtype, shape and offsets and the buffer's length.
    # A shift (a filler tensor moving every later offset and growing the
    # buffer) and a reshape (a 1 in a shape) take that fingerprint away.
    run = run_suite(
        str(BROKEN / "looks_up_layouts.py"),
        "-k",
        "test_must_reject",
        "-n",
        "2",
        tmp_path=tmp_path,
        corpus_seed=False,
    )
    assert run.returncode == 1, run.output[-3000:]
    assert "accepted a file that breaks" in run.output
    seed = run.report["corpus_seed"]
    cheat = _broken("looks_up_layouts")
    files = {c["id"]: c for c in _files()}
    judged = passed = naive = looked_up = 0
    for test, result in run.results.items():
        case = files.get(test[len("test_must_reject[") : -1])
        if not test.startswith("test_must_reject[") or case is None:
            continue
        made = _variants.variant(case, CORPUS / case["file"], seed)
        data = (CORPUS / case["file"]).read_bytes() if made is None else made.data
        judged += 1
        passed += result == "passed"
        rejects = not _naive_accepts(data, tmp_path)
        naive += rejects
        looked_up += not rejects and cheat.fingerprint(data) in cheat._invalid()
    assert judged >= 250, run.output[-3000:]
    # the run agrees with what the reader does to the bytes it was handed
    assert passed <= naive + looked_up, (passed, naive, looked_up)
    assert passed - naive <= LOOKUP_MARGIN * judged, (passed, naive, judged)
