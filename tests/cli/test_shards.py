"""Sharded checkpoints: an index and its shards are checked as one model."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

import pytest

import stspec
from stspec.audit import command as _audit
from stspec.audit.inputs import is_index
from stspec.audit.shard_checks import SHARD_CHECKS, SHARD_CHECKS_BY_ID
from stspec.audit.shards import CAP

from .models import INDEX, SHARDS, run, weight_map, write_model

if TYPE_CHECKING:
    from pathlib import Path

FIRST, SECOND = sorted(SHARDS)


def test_a_consistent_model_is_valid_with_its_shards(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = write_model(tmp_path / "m")
    status, out, err = run(capsys, "check", str(folder))
    assert (status, err) == (0, "")
    assert out.splitlines() == [
        f"{folder / FIRST}: valid (2 tensors, 208 bytes)",
        f"{folder / SECOND}: valid (1 tensor, 124 bytes)",
        f"{folder / INDEX}: model valid (2 shards, 3 tensors, 11 parameters)",
    ]


def test_naming_the_index_checks_the_shards_it_names(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = write_model(tmp_path / "m")
    status, out, _ = run(capsys, "check", "-q", str(folder / INDEX))
    assert (status, out) == (0, "")
    (folder / SECOND).write_bytes((folder / SECOND).read_bytes() + b"!")
    status, out, _ = run(capsys, "check", str(folder / INDEX))
    assert status == 1
    assert out.splitlines() == [
        f"{folder / FIRST}: valid (2 tensors, 208 bytes)",
        (
            f"{folder / SECOND}: LAYOUT-TRAILING at byte 124: 1 trailing bytes after "
            "the last tensor, expected the buffer to end at 12"
        ),
        f"{folder / INDEX}: model invalid (1 invalid shard: {SECOND})",
    ]


def _shadowed(folder: Path) -> None:
    """Give the second shard a copy of a tensor the index places in the first.

    Each file alone is valid; transformers loads the copy (SHARD-DUPLICATE).
    """
    tensors = {**SHARDS[SECOND], "layers.0.weight": ("F32", [4], b"\x01" * 16)}
    stspec.write(folder / SECOND, tensors, {"format": "pt"})


def test_whole_models_checks_the_model_of_a_file_given_alone(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = write_model(tmp_path / "m")
    _shadowed(folder)
    status, out, _ = run(capsys, "check", "-q", str(folder / SECOND))
    assert (status, out) == (0, "")
    status, out, err = run(
        capsys, "check", "-q", "--whole-models", str(folder / SECOND)
    )
    assert (status, err) == (1, "")
    lines = out.splitlines()
    assert lines[0].startswith(
        f"{folder / SECOND}: SHARD-DUPLICATE at byte 184: tensor 'layers.0.weight' "
        f"is held by '{FIRST}' and by '{SECOND}'"
    )
    assert lines[-1] == f"{folder / INDEX}: model invalid (1 error, 1 warning)"


def test_whole_models_finds_the_index_beside_a_bare_file_name(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    write_model(tmp_path)
    monkeypatch.chdir(tmp_path)
    status, out, _ = run(capsys, "check", "--whole-models", FIRST)
    assert status == 0
    assert out.splitlines() == [
        f"{FIRST}: valid (2 tensors, 208 bytes)",
        f"{SECOND}: valid (1 tensor, 124 bytes)",
        f"{INDEX}: model valid (2 shards, 3 tensors, 11 parameters)",
    ]


def test_whole_models_checks_every_index_in_the_folder_once(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = write_model(tmp_path / "m")
    variant = "model.safetensors.index.fp16.json"
    (folder / variant).write_text("{not json", encoding="utf-8")
    (folder / "sub").mkdir()
    (folder / "sub" / INDEX).write_text("{not json either", encoding="utf-8")
    status, out, _ = run(
        capsys,
        "check",
        "-q",
        "--whole-models",
        str(folder / FIRST),
        str(folder / SECOND),
    )
    assert status == 1
    # Both indexes beside the files, each once; none from a subfolder.
    assert out.count(f"{folder / variant}: model invalid") == 1
    assert f"{folder / INDEX}:" not in out  # valid, and -q
    assert "sub" not in out


def test_whole_models_leaves_a_file_without_an_index_alone(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "solo.safetensors").write_bytes(
        stspec.serialize({"w": stspec.Tensor("U8", (1,), b"x")})
    )
    status, out, _ = run(
        capsys, "check", "--whole-models", str(tmp_path / "solo.safetensors")
    )
    assert status == 0
    assert out.splitlines() == [
        f"{tmp_path / 'solo.safetensors'}: valid (1 tensor, 65 bytes)"
    ]


def test_a_shard_without_the_suffix_is_checked_not_called_unchecked(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # An index may name any file as a shard: a pickle there is checked (and
    # refused) as the shard, not also listed among the files not checked.
    pickle_bytes = b"\x80\x04\x95" + bytes(40)
    (tmp_path / "evil.bin").write_bytes(pickle_bytes)
    index = {"weight_map": {"w": "evil.bin"}}
    (tmp_path / INDEX).write_text(json.dumps(index), encoding="utf-8")
    status, out, _ = run(capsys, "check", str(tmp_path))
    assert status == 1
    assert out.splitlines() == [
        (
            f"{tmp_path / 'evil.bin'}: HEADER-BOUNDS at byte 0: not a safetensors "
            "file, it looks like a Python pickle (protocol 4; legacy PyTorch "
            "checkpoints are pickles, which can run code when loaded)"
        ),
        f"{tmp_path / INDEX}: model invalid (1 invalid shard: evil.bin)",
    ]


def _moved(name: str, shard: str) -> dict[str, str]:
    return {**weight_map(SHARDS), name: shard}


def _index(weights: dict[str, str], total_size: object = 36) -> dict[str, object]:
    return {"metadata": {"total_size": total_size}, "weight_map": weights}


# (index, shards or None for the consistent ones, rule, file, name, message part)
INCONSISTENT = {
    "missing-shard": (
        _index(_moved("layers.1.weight", "model-00003-of-00003.safetensors")),
        None,
        "SHARD-MISSING",
        INDEX,
        (
            "the weight_map puts 1 tensors in 'model-00003-of-00003.safetensors', "
            "which does not exist"
        ),
    ),
    "weight-in-another-shard": (
        _index(_moved("layers.0.weight", SECOND)),
        None,
        "SHARD-WEIGHT-LOCATION",
        INDEX,
        (
            f"the weight_map puts tensor 'layers.0.weight' in '{SECOND}', which does "
            f"not hold it; it is in '{FIRST}'"
        ),
    ),
    "weight-in-no-shard": (
        _index({**weight_map(SHARDS), "ghost.weight": FIRST}),
        None,
        "SHARD-WEIGHT-LOCATION",
        INDEX,
        (
            f"the weight_map puts tensor 'ghost.weight' in '{FIRST}', which does not "
            "hold it; no shard holds it"
        ),
    ),
    "tensor-in-two-shards": (
        _index(weight_map(SHARDS), 44),
        {
            **SHARDS,
            SECOND: {**SHARDS[SECOND], "embed.weight": ("BF16", [2, 2], bytes(8))},
        },
        "SHARD-DUPLICATE",
        SECOND,
        (
            f"tensor 'embed.weight' is held by '{FIRST}' and by '{SECOND}'; the index "
            f"names '{FIRST}', but transformers and accelerate load the copy in "
            f"'{SECOND}' (the last of its shards by name); huggingface_hub's "
            "load_torch_model loads any of the copies (it reads the shards in set "
            "order, which changes from run to run)"
        ),
    ),
    "tensor-not-listed": (
        _index(weight_map(SHARDS), 40),
        {**SHARDS, SECOND: {**SHARDS[SECOND], "extra.bias": ("F32", [1], bytes(4))}},
        "SHARD-UNLISTED",
        SECOND,
        f"'{SECOND}' holds tensor 'extra.bias', which the weight_map does not list",
    ),
    "total-size-differs": (
        _index(weight_map(SHARDS), 40),
        None,
        "SHARD-TOTAL-SIZE",
        INDEX,
        "metadata.total_size is 40, but the shards' tensors hold 36 bytes",
    ),
    "total-size-not-a-whole-number": (
        _index(weight_map(SHARDS), 36.5),
        None,
        "SHARD-TOTAL-SIZE",
        INDEX,
        "metadata.total_size is 36.5, expected a whole number of bytes (36)",
    ),
    "total-size-a-string": (
        _index(weight_map(SHARDS), "36"),
        None,
        "SHARD-TOTAL-SIZE",
        INDEX,
        "metadata.total_size is '36', expected a whole number of bytes (36)",
    ),
}


@pytest.mark.parametrize(
    ("index", "shards", "rule", "file", "message"),
    list(INCONSISTENT.values()),
    ids=list(INCONSISTENT),
)
def test_each_inconsistency_is_one_finding_with_its_id_file_and_name(
    index: object,
    shards: dict[str, dict[str, tuple[str, list[int], bytes]]] | None,
    rule: str,
    file: str,
    message: str,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    folder = write_model(tmp_path / "m", shards, index=index)
    status, out, err = run(capsys, "check", "-q", str(folder))
    lines = out.splitlines()
    if SHARD_CHECKS_BY_ID[rule].severity == "warning":
        # Wrong information no loader reads tensors by: reported, not failed.
        assert (status, err) == (0, "")
        assert lines[-1] == (
            f"{folder / INDEX}: model valid (2 shards, 3 tensors, 11 parameters; "
            "1 warning)"
        )
    else:
        assert (status, err) == (1, "")
        assert lines[-1] == f"{folder / INDEX}: model invalid (1 error)"
    (line,) = lines[:-1]
    assert line.startswith(f"{folder / file}: {rule}")
    assert line.endswith(f": {message}")
    status, out, _ = run(capsys, "check", "--json", str(folder))
    (model,) = json.loads(out)["models"]
    (finding,) = model["findings"]
    assert (finding["rule"], finding["file"], finding["message"]) == (
        rule,
        str(folder / file),
        message,
    )
    assert finding["severity"] == SHARD_CHECKS_BY_ID[rule].severity
    # A finding in the index points at the name it is about; in a shard, at
    # the tensor's bytes (see below).
    if file == INDEX:
        raw = (folder / INDEX).read_bytes()
        assert raw[finding["offset"] :].startswith(json.dumps(finding["name"]).encode())
    assert finding["name"] in message


def test_a_finding_in_a_shard_points_at_the_tensor_bytes(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    shards = {
        **SHARDS,
        SECOND: {**SHARDS[SECOND], "extra.bias": ("F32", [1], bytes(4))},
    }
    folder = write_model(tmp_path / "m", shards, total_size=40)
    _, out, _ = run(capsys, "check", "--json", str(folder))
    (finding,) = json.loads(out)["models"][0]["findings"]
    with stspec.read(folder / SECOND) as opened:
        info = opened.tensors["extra.bias"]
        assert finding["offset"] == opened.data_start + info.begin
        assert finding["name"] == "extra.bias"


MALFORMED = {
    "not-utf8": (
        b'{"weight_map": {"\xff": "a"}}',
        "the index is not UTF-8: invalid start byte",
        17,
    ),
    "not-json": (b'{"weight_map": ', "the index is not JSON: Expecting value", 15),
    "not-an-object": (b"[]", "the index is an array, expected an object", None),
    "no-weight-map": (
        b'{"metadata": {}}',
        "weight_map is missing or null, expected an object",
        None,
    ),
    "weight-map-a-string": (
        b'{"weight_map": "x"}',
        "weight_map is a string, expected an object",
        None,
    ),
    "shard-not-a-string": (
        b'{"weight_map": {"w": 3}}',
        "weight_map gives tensor 'w' the value 3, expected a shard's file name",
        None,
    ),
    "metadata-a-list": (
        b'{"metadata": [], "weight_map": {}}',
        "metadata is an array, expected an object",
        None,
    ),
    "duplicate-weight": (
        b'{"weight_map": {"w": "a.safetensors", "w": "b.safetensors"}}',
        "the name 'w' appears twice in one object",
        None,
    ),
    "too-deep": (
        b"[" * 100_000 + b"]" * 100_000,
        "the index nests too deeply to be read",
        None,
    ),
}


@pytest.mark.parametrize(
    ("raw", "message", "offset"), list(MALFORMED.values()), ids=list(MALFORMED)
)
def test_a_malformed_index_is_one_shard_index_json_finding(
    raw: bytes,
    message: str,
    offset: int | None,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    (tmp_path / INDEX).write_bytes(raw)
    status, out, _ = run(capsys, "check", str(tmp_path))
    where = "" if offset is None else f" at byte {offset}"
    assert status == 1
    assert out.splitlines() == [
        f"{tmp_path / INDEX}: SHARD-INDEX-JSON{where}: {message}",
        f"{tmp_path / INDEX}: model invalid: the index cannot be used",
    ]


def test_an_index_that_cannot_be_read_is_a_finding(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / INDEX).symlink_to(tmp_path / "gone")
    status, out, _ = run(capsys, "check", str(tmp_path))
    assert status == 1
    assert out.splitlines()[0] == (
        f"{tmp_path / INDEX}: SHARD-INDEX-JSON: cannot read the index: "
        "No such file or directory"
    )


def test_findings_beyond_the_cap_are_counted_not_listed(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    ghosts = {f"ghost.{n}": FIRST for n in range(CAP + 7)}
    folder = write_model(tmp_path / "m", index=_index({**weight_map(SHARDS), **ghosts}))
    status, out, _ = run(capsys, "check", "-q", str(folder))
    lines = out.splitlines()
    assert status == 1
    assert sum("which does not hold it" in line for line in lines) == CAP
    assert f"{folder / INDEX}: SHARD-WEIGHT-LOCATION: 7 more not shown" in lines
    assert lines[-1] == f"{folder / INDEX}: model invalid ({CAP + 7} errors)"
    _, out, _ = run(capsys, "check", "--json", str(folder))
    assert json.loads(out)["models"][0]["omitted"] == {"SHARD-WEIGHT-LOCATION": 7}


def test_an_index_without_total_size_skips_that_check(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = write_model(tmp_path / "m", index={"weight_map": weight_map(SHARDS)})
    status, out, _ = run(capsys, "check", "-q", "--json", str(folder))
    (model,) = json.loads(out)["models"]
    assert (status, model["valid"], model["summary"]["metadata"]) == (0, True, None)


def test_a_missing_shard_leaves_total_size_unjudged(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = write_model(tmp_path / "m", index=_index(weight_map(SHARDS), 1))
    (folder / SECOND).unlink()
    _, out, _ = run(capsys, "check", "--json", str(folder))
    (model,) = json.loads(out)["models"]
    assert [finding["rule"] for finding in model["findings"]] == ["SHARD-MISSING"]


@pytest.mark.parametrize(
    "shard",
    [
        "",
        ".",
        "..",
        "../x.safetensors",
        "/etc/x.safetensors",
        "sub/x.safetensors",
        "sub\\x.safetensors",
        "x\0.safetensors",
    ],
)
def test_a_shard_name_that_is_not_a_plain_file_name_is_never_opened(
    shard: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    index = _index({**weight_map(SHARDS), "w": shard})
    folder = write_model(tmp_path / "m", index=index)
    # A file the name would reach, if it were joined to the folder.
    (folder / "sub").mkdir()
    stspec.write(folder / "sub" / "x.safetensors", {"w": ("U8", [1], b"x")})
    status, out, _ = run(capsys, "check", "--json", str(folder / INDEX))
    document = json.loads(out)
    (model,) = document["models"]
    assert status == 1
    assert [finding["rule"] for finding in model["findings"]] == ["SHARD-FILENAME"]
    assert model["findings"][0]["name"] == shard
    checked = [report["file"] for report in document["files"]]
    assert checked == [str(folder / FIRST), str(folder / SECOND)]


def test_the_checks_are_the_specs() -> None:
    assert [check.id for check in SHARD_CHECKS] == [
        "SHARD-INDEX-JSON",
        "SHARD-FILENAME",
        "SHARD-MISSING",
        "SHARD-WEIGHT-LOCATION",
        "SHARD-DUPLICATE",
        "SHARD-UNLISTED",
        "SHARD-TOTAL-SIZE",
    ]
    assert {check.severity for check in SHARD_CHECKS} == {"error", "warning"}
    assert all(check.statement.endswith(".") for check in SHARD_CHECKS)


def test_an_index_beyond_the_header_limit_is_not_read(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(_audit, "MAX_HEADER_SIZE", 50)
    (tmp_path / INDEX).write_text(json.dumps(_index(weight_map(SHARDS))), "utf-8")
    status, out, _ = run(capsys, "check", str(tmp_path))
    assert status == 1
    assert out.splitlines() == [
        (
            f"{tmp_path / INDEX}: SHARD-INDEX-JSON: the index is longer than 50 bytes, "
            "the most this checker reads"
        ),
        f"{tmp_path / INDEX}: model invalid: the index cannot be used",
    ]


def test_shards_written_by_hf_safetensors_are_a_valid_model(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    np = pytest.importorskip("numpy")
    hf = pytest.importorskip("safetensors.numpy")
    shards = {
        "model-00001-of-00002.safetensors": {
            "embed.weight": np.ones((8, 4), dtype=np.float16),
            "layers.0.weight": np.arange(12, dtype=np.float32).reshape(3, 4),
        },
        "model-00002-of-00002.safetensors": {
            "lm_head.weight": np.zeros((8, 4), dtype=np.float16),
            "layers.0.mask": np.array([True, False]),
        },
    }
    for shard, tensors in shards.items():
        hf.save_file(tensors, str(tmp_path / shard), metadata={"format": "pt"})
    # As huggingface_hub writes it: storage sizes summed, then json.dump(indent=2).
    total = sum(
        array.nbytes for tensors in shards.values() for array in tensors.values()
    )
    names = {name: shard for shard, tensors in shards.items() for name in tensors}
    index = {"metadata": {"total_size": total}, "weight_map": names}
    (tmp_path / INDEX).write_text(json.dumps(index, indent=2), encoding="utf-8")
    status, out, _ = run(capsys, "check", "-q", "--json", str(tmp_path))
    (model,) = json.loads(out)["models"]
    assert (status, model["valid"], model["findings"]) == (0, True, [])
    assert model["summary"]["parameters"] == 32 + 12 + 32 + 2


@pytest.mark.parametrize(
    ("name", "index"),
    [
        ("model.safetensors.index.json", True),
        ("diffusion_pytorch_model.safetensors.index.json", True),
        ("model.safetensors.index.fp16.json", True),  # transformers' variant form
        ("diffusion_pytorch_model.safetensors.index.bf16.json", True),
        ("model.safetensors.json", False),
        ("model.safetensors.index.json.bak", False),
        ("config.json", False),
        ("pytorch_model.bin.index.json", False),
        ("model.safetensors.index..json", False),
    ],
)
def test_index_names(name: str, index: bool) -> None:
    assert is_index(name) is index


def test_a_variant_index_is_checked_with_its_shards(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = write_model(tmp_path / "m")
    (folder / INDEX).rename(folder / "model.safetensors.index.fp16.json")
    status, out, _ = run(capsys, "check", str(folder))
    assert status == 0
    assert out.splitlines()[-1] == (
        f"{folder / 'model.safetensors.index.fp16.json'}: model valid "
        "(2 shards, 3 tensors, 11 parameters)"
    )


def test_a_name_spelled_with_other_escapes_keeps_no_offset(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    index = json.dumps(_index({**weight_map(SHARDS), "ghost": FIRST}))
    folder = write_model(
        tmp_path / "m", index=index.replace('"ghost"', '"gh\\u006fst"')
    )
    _, out, _ = run(capsys, "check", "--json", str(folder))
    (finding,) = json.loads(out)["models"][0]["findings"]
    assert (finding["name"], finding["offset"]) == ("ghost", None)


def test_a_non_ascii_name_is_found_as_utf8_or_escaped(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    weights = {**weight_map(SHARDS), "名前": FIRST}
    for ascii_only in (True, False):
        text = json.dumps(_index(weights), ensure_ascii=ascii_only)
        folder = write_model(tmp_path / f"m{ascii_only}", index=text)
        _, out, _ = run(capsys, "check", "--json", str(folder))
        (finding,) = json.loads(out)["models"][0]["findings"]
        spelled = json.dumps("名前", ensure_ascii=ascii_only).encode()
        assert text.encode()[finding["offset"] :].startswith(spelled)
