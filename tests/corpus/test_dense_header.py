"""The densest valid header (SPEC §1.6): built by a recipe, read within the
suite's allowance by the reference, with exactly the expected tensors.

This module is the dense case's only check against the reference: the generic
recipe test in test_corpus_reader leaves it out, because comparing 1.8 million
entries through the general lint costs over a minute of CPU under coverage.
"""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest

import stspec
from stspec.rules import MAX_HEADER_SIZE
from stspec_conformance._limits import Limits
from stspec_corpus import case_by_id, materialise
from stspec_corpus._large import DENSE_COUNT, DENSE_TENSORS_SHA256, dense_digest
from stspec_corpus._recipes import dense_names

CASE = "y_layout_dense_header_at_limit"
MANIFEST = Path(__file__).resolve().parents[2] / "corpus" / "manifest.json"


def test_the_corpus_has_a_valid_header_of_1_8_million_entries_at_the_limit() -> None:
    entry = next(
        c for c in json.loads(MANIFEST.read_text("utf-8"))["cases"] if c["id"] == CASE
    )
    assert entry["verdict"] == "valid"
    assert "file" not in entry  # a recipe: built when needed, never committed
    assert entry["size"] == 8 + MAX_HEADER_SIZE
    assert entry["expected"]["tensor_count"] == DENSE_COUNT >= 1_800_000
    assert entry["expected"]["tensors_sha256"] == DENSE_TENSORS_SHA256


def test_the_digest_constant_is_the_tensor_lists() -> None:
    assert dense_digest(DENSE_COUNT) == DENSE_TENSORS_SHA256
    expected = case_by_id(CASE).expected
    assert expected is not None
    assert len(expected.tensors) == DENSE_COUNT
    assert next(iter(expected.tensors)) == "0000"


# CPU time of the reader itself: coverage's tracer would double it (the reading
# paths are covered by the smaller dense-header tests)
@pytest.mark.slow  # 1.8 million entries, read in process: 7-9 CPU-s
@pytest.mark.no_cover
def test_the_reference_reads_it_within_the_suites_allowance(tmp_path: Path) -> None:
    path = materialise(CASE, tmp_path)
    assert path.stat().st_size == case_by_id(CASE).size
    data = path.read_bytes()
    header = data[8 : 8 + MAX_HEADER_SIZE].rstrip(b" ")
    assert len(header) > 0.999 * MAX_HEADER_SIZE
    allowance = Limits().for_file(path)
    started = time.process_time()
    with stspec.read(path) as file:
        used = time.process_time() - started
        assert len(file.tensors) == DENSE_COUNT
        assert file.metadata is None
        # the expected content: 0000, 0001, ... each U8[0] at [0, 0]
        names = iter(dense_names(DENSE_COUNT))
        for tensor in file.tensors.values():
            assert tensor.name == next(names)
            assert (tensor.dtype, tensor.shape, tensor.begin, tensor.end) == (
                "U8",
                (0,),
                0,
                0,
            ), tensor
    # CPU time, not wall-clock: a loaded machine does not inflate it
    assert used < allowance.cpu_seconds, (used, allowance)
