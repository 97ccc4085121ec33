"""Archival gold files: the manifest matches the files, and the grid reads them."""

from __future__ import annotations

import json
import shutil
from typing import TYPE_CHECKING

import grid_fakes as fake
import pytest
from matrix import gold, grid
from matrix.grid_requests import requests

if TYPE_CHECKING:
    from pathlib import Path

# the repository stays small: every gold file together well under a megabyte
MAX_GOLD_BYTES = 512 * 1024


def test_the_kept_files_are_the_ones_the_manifest_lists() -> None:
    entries = gold.manifest()
    assert entries, "no gold file is kept"
    assert gold.check() == []
    assert sum(e["bytes"] for e in entries) < MAX_GOLD_BYTES


def test_each_gold_file_names_an_old_hf_writer_its_version_and_its_request() -> None:
    names = {r.name for r in requests()}
    writers = {e["writer"] for e in gold.manifest()}
    assert "hf-0.4.5" in writers
    assert {"hf-rust-0.2.8", "hf-rust-0.8.0"} <= writers
    for entry in gold.manifest():
        assert entry["request"] in names
        assert entry["version"]
        assert entry["version"] in entry["writer"]


@pytest.fixture
def copy(tmp_path: Path) -> Path:
    folder = tmp_path / "gold"
    shutil.copytree(gold.FOLDER, folder)
    return folder


def _first(folder: Path) -> dict[str, str]:
    entry: dict[str, str] = gold.manifest(folder)[0]
    return entry


def test_check_names_a_file_whose_bytes_changed(copy: Path) -> None:
    entry = _first(copy)
    path = copy / entry["path"]
    data = bytearray(path.read_bytes())
    data[-1] ^= 1
    path.write_bytes(bytes(data))
    problems = gold.check(copy)
    assert len(problems) == 1
    assert problems[0].startswith(f"{entry['writer']}/{entry['request']}: sha256 ")


def test_check_names_a_missing_file_an_unlisted_file_and_a_missing_field(
    copy: Path,
) -> None:
    entries = gold.manifest(copy)
    (copy / entries[0]["path"]).unlink()
    shutil.copyfile(
        copy / entries[1]["path"], copy / entries[1]["writer"] / "x.safetensors"
    )
    del entries[2]["version"]
    (copy / "manifest.json").write_text(json.dumps({"files": entries}), "utf-8")
    problems = gold.check(copy)
    assert f"{entries[0]['writer']}/{entries[0]['request']}: no file " in problems[0]
    assert any("fields are not" in p for p in problems)
    assert f"{entries[1]['writer']}/x.safetensors: not in the manifest" in problems


def test_keep_records_provenance_and_leaves_out_the_largest_request(
    tmp_path: Path,
) -> None:
    files, rows, folder = tmp_path / "files", tmp_path / "rows", tmp_path / "gold"
    result = grid.run_grid(
        [fake.writer("hf-0.8.0", fake.good)], [], tmp_path / "interop"
    )
    assert result["writers"]["hf-0.8.0"]
    shutil.copytree(tmp_path / "interop" / "files", files)
    rows.mkdir()
    described = {"version": "0.8.0", "capabilities": {"write": True}}
    (rows / "hf-0.8.0.json").write_text(
        json.dumps({"implementation": {"described": described}}), "utf-8"
    )
    count = gold.keep(files, ["hf-0.8.0"], rows, folder)
    assert gold.check(folder) == []
    kept = {e["request"] for e in gold.manifest(folder)}
    assert count == len(kept)
    assert "model-many-tensors" not in kept
    assert {"one-u8", "metadata", "exact-integers"} <= kept
    assert {e["version"] for e in gold.manifest(folder)} == {"0.8.0"}


def test_every_reader_of_the_grid_reads_the_gold_files(tmp_path: Path) -> None:
    kept = [grid.Writer(n, w) for n, w in gold.writers().items()]
    readers = [
        fake.reader("strict", lambda a: a),
        fake.reader("reorders", fake.reversed_order),
    ]
    result = grid.run_grid(kept[:2], readers, tmp_path)
    for writer in kept[:2]:
        outcomes = result["writers"][writer.name]
        written = [r for r, o in outcomes.items() if o["result"] == "written"]
        assert written, writer.name
        assert {o["result"] for o in outcomes.values()} <= {"written", "not-kept"}
        for reader in ("strict", "reorders"):
            cells = result["cells"][writer.name][reader]
            assert set(cells) == set(written)
            # a gold file the reference refuses stays its writer's fault
            assert {c["verdict"] for c in cells.values()} <= {"same", "writer-fault"}
