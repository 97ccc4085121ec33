"""Implementations that attack the suite: each attack fails, and is seen.

Every implementation here is built by its test: one that damages the file it
is given, one that looks for the verdict instead of judging the bytes, ...
The runs use a copy of the corpus, so an attack that succeeds never damages
the checkout's.
"""

from __future__ import annotations

import json
import shutil
import sys
import textwrap
from typing import TYPE_CHECKING

import pytest
from _suite_runner import ROOT, Run, run_suite

from stspec_conformance._corpus import load_corpus

if TYPE_CHECKING:
    from pathlib import Path

# Answers with the reference's content, so every case passes unless the
# suite catches what the reader does besides.
STRICT_ANSWER = """
def answer(data):
    with stspec.read(data) as st:
        tensors = {n: (i.dtype, list(i.shape), bytes(st.tensor_bytes(n)))
                   for n, i in st.tensors.items()}
        return tensors, st.metadata
"""


def _corpus_copy(tmp_path: Path) -> Path:
    corpus = tmp_path / "corpus"
    shutil.copytree(ROOT / "corpus", corpus, ignore=shutil.ignore_patterns("*.py"))
    return corpus


def _adapter(tmp_path: Path, name: str, body: str) -> Path:
    path = tmp_path / f"{name}.py"
    source = "import json, os, sys\nimport stspec\n" + STRICT_ANSWER
    path.write_text(source + textwrap.dedent(body), encoding="utf-8")
    return path


def _run(impl: str | Path, tmp_path: Path, corpus: Path, *args: str) -> Run:
    return run_suite(
        str(impl), f"--corpus={corpus}", *args, tmp_path=tmp_path, timeout=600
    )


# --- 1. data loss --------------------------------------------------------------------


DAMAGING = """
def load(path):
    with open(path, "rb") as file:
        data = file.read()
    mode = len(data) % 3
    if mode == 0:
        os.remove(path)
    elif mode == 1:
        with open(path, "r+b") as file:
            file.truncate(0)
    else:
        with open(path, "ab") as file:
            file.write(b"\\0" * 64)
    return answer(data)
"""


@pytest.mark.parametrize("form", ["isolated", "in-process"])
def test_a_reader_that_damages_its_input_leaves_the_corpus_intact(
    tmp_path: Path, form: str
) -> None:
    corpus = _corpus_copy(tmp_path)
    impl = _adapter(tmp_path, "damaging", DAMAGING)
    extra = ("--in-process",) if form == "in-process" else ()
    run = _run(impl, tmp_path, corpus, "-k", "y_arith or n_layout_hole", *extra)
    assert load_corpus(corpus).damaged() == []
    assert run.returncode == 0, run.output[-3000:]
    assert len(run.results) >= 8
    # and the next run (a strict reader) still scores everything
    again = _run("reference", tmp_path, corpus, "-k", "y_arith or n_layout_hole")
    assert again.returncode == 0, again.output[-3000:]


def test_a_damaged_corpus_stops_the_run_before_any_verdict(tmp_path: Path) -> None:
    corpus = _corpus_copy(tmp_path)
    victim = next((corpus / "files").glob("y_arith*.safetensors"))
    victim.write_bytes(victim.read_bytes()[:-1])
    run = _run("reference", tmp_path, corpus, "-k", "y_arith")
    assert run.returncode == 4, run.output[-3000:]
    assert f"files/{victim.name} is " in run.output
    assert "differs from its manifest" in run.output
    assert not run.results


# --- 2. gaming -----------------------------------------------------------------------


# Judges nothing: slices tensors out of any JSON header, and rejects only
# what the name, a manifest nearby or the environment says is invalid.
CHEAT = """
def _told_invalid(path):
    name = os.path.basename(path)
    if name.startswith("n_") or "[n_" in os.environ.get("PYTEST_CURRENT_TEST", ""):
        return True
    here = os.path.dirname(os.path.abspath(path))
    for folder in (here, os.path.dirname(here)):
        manifest = os.path.join(folder, "manifest.json")
        if os.path.exists(manifest):
            cases = json.load(open(manifest))
            cases = cases["cases"] if isinstance(cases, dict) else cases
            for case in cases:
                if str(case.get("file", "")).endswith(name):
                    return case["verdict"] == "invalid"
    return False


def load(path):
    if _told_invalid(path):
        raise ValueError("invalid, says the manifest")
    data = open(path, "rb").read()
    size = int.from_bytes(data[:8], "little")
    header = json.loads(data[8:8 + size])
    metadata = header.pop("__metadata__", None)
    base = 8 + size
    tensors = {
        name: (entry["dtype"], entry["shape"],
               data[base + entry["data_offsets"][0]:base + entry["data_offsets"][1]])
        for name, entry in header.items()
    }
    return tensors, metadata
"""

CHEAT_COMMAND = """
def main():
    *_, target = sys.argv
    if target == "--describe":
        print(json.dumps({"protocol": 2, "name": "cheat", "version": "1"}))
        return 0
    if "[n_" in os.environ.get("PYTEST_CURRENT_TEST", "") or "n_" in target:
        print(json.dumps({"result": "rejected"}))
        return 1
    import hashlib
    tensors, metadata = load(target)
    print(json.dumps({"result": "accepted", "metadata": metadata, "tensors": {
        n: {"dtype": d, "shape": s, "sha256": hashlib.sha256(b).hexdigest()}
        for n, (d, s, b) in tensors.items()}}))
    return 0


sys.exit(main())
"""

HOLES = "n_layout_hole"  # faults json.loads cannot see


@pytest.mark.parametrize("form", ["isolated", "command"])
def test_a_reader_told_the_verdict_is_still_judged_on_the_bytes(
    tmp_path: Path, form: str
) -> None:
    corpus = _corpus_copy(tmp_path)
    cheat = _adapter(tmp_path, "cheat", CHEAT)
    if form == "command":
        cheat.write_text(cheat.read_text() + textwrap.dedent(CHEAT_COMMAND))
        impl = f"cmd:{sys.executable} {cheat}"
    else:
        impl = str(cheat)
    run = _run(impl, tmp_path, corpus, "-k", HOLES)
    hole_cases = [t for t in run.results if HOLES in t]
    assert hole_cases, run.output[-3000:]
    assert all(run.results[t] == "failed" for t in hole_cases), run.results
    assert "accepted a file that breaks LAYOUT-HOLE" in run.output


def test_the_reports_never_show_the_private_copy_as_the_case(tmp_path: Path) -> None:
    corpus = _corpus_copy(tmp_path)
    run = _run(str(_adapter(tmp_path, "cheat", CHEAT)), tmp_path, corpus, "-k", HOLES)
    assert f"file:    {corpus}/files/n_layout_hole" in run.output
    assert json.dumps(run.report)  # the report was written
