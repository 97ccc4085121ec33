"""Summaries per file and per model, in text (--summary) and in --json."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

import pytest

import stspec
from stspec import SPEC_VERSION, __version__
from stspec.audit.summary import Summary
from stspec.audit.terminal import human_bytes, share

from .models import INDEX, SHARDS, run, write_model

if TYPE_CHECKING:
    from pathlib import Path

FIRST, SECOND = sorted(SHARDS)


def test_a_file_summary_counts_parameters_per_dtype(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "mixed.safetensors"
    stspec.write(
        path,
        {
            "f4": ("F4", [6], bytes(3)),  # two elements per byte
            "mask": ("BOOL", [3], b"\x01\x00\x01"),
            "scalar": ("F32", [], bytes(4)),
            "empty": ("I64", [0, 5], b""),
        },
        {"format": "pt", "note": "x"},
    )
    status, out, _ = run(capsys, "check", "--json", str(path))
    (report,) = json.loads(out)["files"]
    size = path.stat().st_size
    with stspec.read(path) as opened:
        header = opened.data_start
    assert status == 0
    assert report["summary"] == {
        "files": 1,
        "tensors": 4,
        "parameters": 6 + 3 + 1 + 0,
        "bytes_per_dtype": {"BOOL": 3, "F4": 3, "F32": 4, "I64": 0},
        "header_bytes": header,
        "file_bytes": size,
        "header_share": header / size,
        "metadata": {"format": "pt", "note": "x"},
    }
    _, out, _ = run(capsys, "check", "--summary", str(path))
    assert out.splitlines() == [
        f"{path}: valid (4 tensors, {size} bytes)",
        "  tensors     4 holding 10 parameters",
        (
            "  dtypes      BOOL 3 bytes (30.00%), F4 3 bytes (30.00%), "
            "F32 4 bytes (40.00%), I64 0 bytes (0.00%)"
        ),
        "  metadata    format=pt, note=x",
        f"  header      {header:,} bytes, {share(header, size)} of {size} bytes",
    ]


def test_a_file_without_tensors_or_metadata(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "empty.safetensors"
    stspec.write(path, {})
    _, out, _ = run(capsys, "check", "-s", str(path))
    assert out.splitlines()[1:3] == [
        "  tensors     0 holding 0 parameters",
        "  dtypes      none",
    ]
    assert out.splitlines()[3] == "  metadata    none"
    path = tmp_path / "empty-meta.safetensors"
    stspec.write(path, {}, {})
    _, out, _ = run(capsys, "check", "-s", str(path))
    assert out.splitlines()[3] == "  metadata    {}"


def test_a_model_summary_adds_up_its_shards(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = write_model(tmp_path / "m")
    _, out, _ = run(capsys, "check", "--json", str(folder))
    document = json.loads(out)
    files = {report["file"]: report["summary"] for report in document["files"]}
    (model,) = document["models"]
    first, second = files[str(folder / FIRST)], files[str(folder / SECOND)]
    assert model["index"] == str(folder / INDEX)
    assert model["valid"] is True
    assert model["shards"] == [FIRST, SECOND]
    assert model["summary"] == {
        "files": 2,
        "tensors": 3,
        "parameters": 4 + 4 + 3,
        "bytes_per_dtype": {"BF16": 8, "F32": 28},
        "header_bytes": first["header_bytes"] + second["header_bytes"],
        "file_bytes": first["file_bytes"] + second["file_bytes"],
        "header_share": model["summary"]["header_share"],
        "metadata": {"total_size": "36"},
    }
    _, out, _ = run(capsys, "check", "-q", "-s", str(folder))
    assert out == ""
    _, out, _ = run(capsys, "check", "-s", str(folder / INDEX))
    header, size = model["summary"]["header_bytes"], model["summary"]["file_bytes"]
    assert out.splitlines()[-5:] == [
        f"{folder / INDEX}: model valid (2 shards, 3 tensors, 11 parameters)",
        "  tensors     3 holding 11 parameters",
        "  dtypes      BF16 8 bytes (22.22%), F32 28 bytes (77.78%)",
        "  metadata    total_size=36",
        f"  header      {header:,} bytes, {share(header, size)} of {size} bytes",
    ]


def test_an_invalid_model_still_shows_its_summary(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = write_model(tmp_path / "m", total_size=1)
    _, out, _ = run(capsys, "check", "-q", "-s", str(folder))
    assert out.splitlines()[-5].endswith("; 1 warning)")
    assert out.splitlines()[-4] == "  tensors     3 holding 11 parameters"
    (folder / min(SHARDS)).unlink()
    _, out, _ = run(capsys, "check", "-q", "-s", str(folder))
    assert out.splitlines()[-5].endswith(": model invalid (1 error)")
    assert out.splitlines()[-4] == "  tensors     1 holding 3 parameters"


def test_the_json_document_names_the_tool_and_spec_versions(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = write_model(tmp_path / "m")
    _, out, _ = run(capsys, "check", "--json", str(folder))
    document = json.loads(out)
    assert (document["stspec"], document["spec"]) == (__version__, SPEC_VERSION)


@pytest.mark.parametrize(
    ("size", "shown"),
    [
        (0, "0 bytes"),
        (999, "999 bytes"),
        (1000, "1.0 KB"),
        (852_658_528, "852.7 MB"),
        (10**18, "1.0 EB"),
        (10**21, "1000.0 EB"),
    ],
)
def test_sizes_read_in_decimal_units(size: int, shown: str) -> None:
    assert human_bytes(size) == shown


@pytest.mark.parametrize(
    ("part", "whole", "shown"),
    [(0, 0, "-"), (1, 10**6, "<0.01%"), (999_999, 10**6, ">99.99%"), (1, 4, "25.00%")],
)
def test_shares_never_round_to_a_false_0_or_100(
    part: int, whole: int, shown: str
) -> None:
    assert share(part, whole) == shown


def test_a_summary_of_no_bytes_has_no_share() -> None:
    summary = Summary(0, 0, 0, {}, 0, 0, None)
    assert summary.data_bytes == 0
    assert summary.as_dict()["header_share"] is None
    assert summary.lines()[-1] == "  header      0 bytes, - of 0 bytes"


def test_a_model_whose_shards_are_all_missing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = write_model(tmp_path / "m")
    for shard in SHARDS:
        (folder / shard).unlink()
    status, out, _ = run(capsys, "check", "--json", str(folder))
    (model,) = json.loads(out)["models"]
    assert status == 1
    assert model["summary"]["files"] == 0
    assert model["summary"]["header_share"] is None
