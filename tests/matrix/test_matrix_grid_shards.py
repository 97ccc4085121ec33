"""The interop grid past one machine: a job per writer and per reader, merged."""

from __future__ import annotations

import json
import re
import shutil
from typing import TYPE_CHECKING

import grid_fakes as fake
import pytest
from matrix import gold, grid, grid_shards

if TYPE_CHECKING:
    from pathlib import Path

# fakes named after rows of the matrix (a shard holds only rows), in table order
WRITERS = (
    fake.writer("reference", fake.good),
    fake.writer("tinygrad", fake.flips_a_byte),
    fake.writer("mlx", fake.trailing_junk),
)
READERS = (
    fake.reader("hf-0.8.0", lambda a: a),
    fake.reader("gguf", fake.reversed_order),
    fake.reader("torch-dcp", fake.no_f64, read_dtypes=["F32", "U8"]),
)


def _files(folder: Path) -> dict[str, bytes]:
    return {
        str(p.relative_to(folder)): p.read_bytes()
        for p in sorted(folder.rglob("*"))
        if p.is_file()
    }


def _shards(tmp_path: Path) -> list[Path]:
    """A job per writer, their writes gathered (one download), a job per reader."""
    writes = tmp_path / "writes"
    shards = []
    for writer in WRITERS:
        shard = tmp_path / f"write-{writer.name}"
        grid_shards.write_shard(writer, shard)
        shutil.copytree(shard / "interop", writes, dirs_exist_ok=True)
        shards.append(shard)
    for reader in READERS:
        shard = tmp_path / f"read-{reader.name}"
        grid_shards.read_shard(reader, writes, shard)
        shards.append(shard)
    return shards


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The shards of one grid, made once; each test works on a copy."""
    folder = tmp_path_factory.mktemp("grid-shards")
    _shards(folder)
    return folder


def _copy(built: Path, tmp_path: Path) -> list[Path]:
    shards = [tmp_path / f"write-{w.name}" for w in WRITERS] + [
        tmp_path / f"read-{r.name}" for r in READERS
    ]
    for shard in shards:
        shutil.copytree(built / shard.name, shard, symlinks=True)
    return shards


def test_a_grid_run_as_shards_is_the_grid_of_one_run(
    built: Path, tmp_path: Path
) -> None:
    one = grid.run_grid(WRITERS, READERS, tmp_path / "one")
    merged = grid_shards.merge(_copy(built, tmp_path), tmp_path / "merged")
    assert merged == one
    assert _files(tmp_path / "merged") == _files(tmp_path / "one")
    # what the fakes do shows through the merge: the writer's fault stays its own
    cells = merged["cells"]
    assert {c["verdict"] for c in cells["mlx"]["gguf"].values()} == {"writer-fault"}
    assert cells["reference"]["torch-dcp"]["dtype-F64"]["verdict"] == (
        "refused-declared"
    )


def _break(shards: list[Path], how: str) -> str:
    """Damage the shards the way ``how`` says; what the refusal must name."""
    written = shards[0] / "interop" / "written" / "reference.json"
    cells = shards[3] / "interop" / "cells" / "hf-0.8.0.json"
    if how == "no file":
        (shards[0] / "interop" / "files" / "reference" / "one-u8.safetensors").unlink()
        return "reference/one-u8: the outcome and files differ"
    if how == "unknown row":
        written.rename(written.with_name("mine.json"))
        return "'mine' is not a row of the matrix"
    if how == "missing request":
        outcomes = json.loads(written.read_text())
        del outcomes["one-u8"]
        written.write_text(json.dumps(outcomes))
        return "reference.json: not one outcome per request"
    if how == "other reader's cells":
        data = json.loads(cells.read_text())
        data["reference"] = {"gguf": data["reference"]["hf-0.8.0"]}
        cells.write_text(json.dumps(data))
        return "hf-0.8.0.json: reference: not hf-0.8.0's cells"
    if how == "reader twice":
        shutil.copytree(shards[3], shards[0].parent / "again")
        shards.append(shards[0].parent / "again")
        return "reader hf-0.8.0: in two shards"
    if how == "link":
        cells.unlink()
        cells.symlink_to(shards[4] / "interop" / "cells" / "gguf.json")
        return "hf-0.8.0.json: not a regular file"
    shutil.rmtree(shards.pop(0))  # "no writes": cells of a writer nobody wrote
    return "cells of writer reference, whose writes no shard holds"


@pytest.mark.parametrize(
    "how",
    [
        "no file",
        "unknown row",
        "missing request",
        "other reader's cells",
        "reader twice",
        "link",
        "no writes",
    ],
)
def test_merge_refuses_shards_that_do_not_hold_together(
    built: Path, tmp_path: Path, how: str
) -> None:
    shards = _copy(built, tmp_path)
    problem = _break(shards, how)
    out = tmp_path / "merged"
    with pytest.raises(ValueError, match=re.escape(problem)):
        grid_shards.merge(shards, out)
    assert not out.exists()  # nothing written


def test_the_list_names_the_writers_and_readers_the_grid_takes(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    def result(name: str, **caps: object) -> None:
        described = {"capabilities": caps}
        data = {"implementation": {"name": name, "described": described}}
        (tmp_path / f"{name}.json").write_text(json.dumps(data))

    result("gguf")
    result("mlx", write=True)
    (tmp_path / "djl.json").write_text(json.dumps({"setup_error": "no JDK"}))
    assert grid_shards.main(["list", "--rows", str(tmp_path)]) == 0
    listed = json.loads(capsys.readouterr().out)
    kept = list(gold.writers())
    assert kept  # the archival gold files are writers of every grid
    assert listed == {"writers": ["mlx", *kept], "readers": ["mlx", "gguf"]}


def test_a_phase_without_its_rows_is_a_usage_error() -> None:
    with pytest.raises(SystemExit) as stopped:
        grid_shards.main(["read", "--reader", "mlx"])  # no --writes
    assert stopped.value.code == 2
