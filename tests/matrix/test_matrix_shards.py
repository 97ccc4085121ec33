"""A run past one machine: rows run as shards, merged into the results of one run."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from matrix import shards, smoke

REPO = Path(__file__).resolve().parents[2]
ROWS = ("reference", "hf-0.8.0")  # both run in the dev environment (--python)


def _result(name: str, **run: object) -> str:
    return json.dumps({"implementation": {"name": name}, "run": run, "cases": {}})


def test_merge_takes_each_row_of_each_shard_in_table_order(tmp_path: Path) -> None:
    one, two = tmp_path / "one", tmp_path / "two"
    one.mkdir()
    two.mkdir()
    (one / "hf-0.8.0.json").write_text(_result("hf-0.8.0", complete=True))
    (two / "reference.json").write_text(_result("reference", selected="y_"))
    (two / "history.jsonl").write_text("{}\n")  # a shard's own history: not taken
    out = tmp_path / "results"
    assert shards.merge([one, two], out) == ["reference", "hf-0.8.0"]
    assert sorted(p.name for p in out.iterdir()) == ["hf-0.8.0.json", "reference.json"]
    assert shards.whole_runs(out, ["reference", "hf-0.8.0"]) == ["hf-0.8.0"]


@pytest.mark.parametrize(
    ("name", "text", "problem"),
    [
        ("mine.json", _result("mine"), "'mine' is not a row of the matrix"),
        ("mlx.json", _result("reference"), "the result is of 'reference', not of"),
        ("mlx.json", "[1, 2]", "the result is of None"),
        ("mlx.json", "{", "not JSON"),
    ],
)
def test_merge_refuses_a_file_that_is_not_the_row_it_is_named_after(
    tmp_path: Path, name: str, text: str, problem: str
) -> None:
    shard = tmp_path / "shard"
    shard.mkdir()
    (shard / "reference.json").write_text(_result("reference"))
    (shard / name).write_text(text)
    out = tmp_path / "results"
    with pytest.raises(ValueError, match=re.escape(problem)):
        shards.merge([shard], out)
    assert not out.exists()  # nothing copied, not even the good row


def test_merge_refuses_a_row_in_two_shards_and_a_link(tmp_path: Path) -> None:
    one, two = tmp_path / "one", tmp_path / "two"
    one.mkdir()
    two.mkdir()
    (one / "mlx.json").write_text(_result("mlx"))
    (two / "mlx.json").write_text(_result("mlx"))
    (two / "gguf.json").symlink_to(one / "mlx.json")
    with pytest.raises(ValueError, match="not a regular file") as refused:
        shards.merge([one, two], tmp_path / "results")
    assert "mlx: in " in str(refused.value)
    assert "gguf.json: not a regular file" in str(refused.value)


def _matrix(*args: str, scratch: Path) -> None:
    # one corpus seed for every run: a shard hands each row the same variants
    # as the whole run does, and records the same seed
    env = {
        **os.environ,
        "STSPEC_MATRIX_DIR": str(scratch / "envs"),
        "STSPEC_CORPUS_SEED": "0123456789abcdef",
    }
    subprocess.run(
        [sys.executable, "-m", "matrix", *args, "--python", sys.executable],
        cwd=REPO, env=env, check=True, capture_output=True, timeout=600,
    )  # fmt: skip


def _without_timing(path: Path) -> object:
    data = json.loads(path.read_text("utf-8"))
    data["run"].pop("seconds")
    return data


@pytest.mark.slow  # four partial suite runs (two cases each)
def test_two_shards_merged_are_the_results_of_one_run(tmp_path: Path) -> None:
    only = [arg for name in ROWS for arg in ("--only", name)]
    select = ("-k", " or ".join(smoke.SMOKE))
    one, merged = tmp_path / "one", tmp_path / "merged"
    _matrix("run", *only, *select, "--results", str(one), scratch=tmp_path)
    _matrix("render", "--results", str(one), scratch=tmp_path)
    for name in ROWS:
        shard = ["--only", name, "--results", str(tmp_path / name)]
        _matrix("run", *shard, *select, scratch=tmp_path)
    shard_args = [arg for name in ROWS for arg in ("--shard", str(tmp_path / name))]
    _matrix("merge", *shard_args, "--results", str(merged), scratch=tmp_path)

    def listing(folder: Path) -> list[str]:
        return sorted(str(p.relative_to(folder)) for p in folder.rglob("*"))

    assert listing(merged) == listing(one)
    for name in ROWS:
        assert _without_timing(merged / f"{name}.json") == _without_timing(
            one / f"{name}.json"
        )
        # and each row passes the smoke gate a new row must pass
        assert smoke.gate(json.loads((one / f"{name}.json").read_text())) == []
    for page in ("matrix.md", *(str(p) for p in listing(one) if "/" in p)):
        assert (merged / page).read_bytes() == (one / page).read_bytes(), page
    seconds = re.compile(rb"\d+ s\b")
    assert seconds.sub(b"", (merged / "index.html").read_bytes()) == seconds.sub(
        b"", (one / "index.html").read_bytes()
    )
