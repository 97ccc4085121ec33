"""What `check` writes: output paths it must not destroy, forms no tool chokes on.

The SARIF path is judged before any file is checked: an input, an existing
file that is not a SARIF log, or a folder that cannot take it is refused at
once.  Every output is something every common tool reads: SARIF with
non-UTF-8 names, JSON that jq 1.6 parses, text on a stdout that is not
UTF-8 and whose file names cannot pass for result lines.
"""

from __future__ import annotations

import errno
import io
import json
import os
import shutil
import struct
import subprocess
import sys
from typing import TYPE_CHECKING, Any

import pytest

import stspec
from stspec.audit import check as _check
from stspec.audit.cli import main
from stspec.audit.shards import CAP
from stspec.reader import pipeline as _pipeline
from stspec.writer import atomic as _atomic

from .models import INDEX, SHARDS, run, write_model

if TYPE_CHECKING:
    from pathlib import Path

GOOD = stspec.serialize({"w": stspec.Tensor("U8", (3,), b"abc")})
BAD = GOOD + b"!"
STSPEC = [sys.executable, "-m", "stspec"]
FIRST, SECOND = sorted(SHARDS)


# --sarif FILE --------------------------------------------------------------


def test_a_model_given_as_the_sarif_path_is_refused_before_any_work(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # `stspec check --sarif *.safetensors`: the glob's first file follows --sarif.
    first, second = tmp_path / "a.safetensors", tmp_path / "b.safetensors"
    first.write_bytes(GOOD)
    second.write_bytes(BAD)
    status, out, err = run(capsys, "check", "--sarif", str(first), str(second))
    assert (status, out) == (2, "")
    assert err == (f"stspec: cannot write {first}: it exists and is not a SARIF log\n")
    assert first.read_bytes() == GOOD


@pytest.mark.parametrize("given", ["the file", "its folder"])
def test_a_sarif_path_that_is_an_input_is_refused(
    given: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    model = tmp_path / "x.safetensors"
    model.write_bytes(GOOD)
    argument = model if given == "the file" else tmp_path
    status, out, err = run(capsys, "check", "--sarif", str(model), str(argument))
    assert (status, out) == (2, "")
    assert err == (f"stspec: cannot write {model}: it is one of the inputs\n")
    assert model.read_bytes() == GOOD


def test_an_existing_file_that_is_not_a_sarif_log_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "a.safetensors").write_bytes(GOOD)
    notes = tmp_path / "notes.txt"
    notes.write_text("my notes\n", encoding="utf-8")
    status, out, err = run(
        capsys, "check", "--sarif", str(notes), str(tmp_path / "a.safetensors")
    )
    assert (status, out) == (2, "")
    assert err == (f"stspec: cannot write {notes}: it exists and is not a SARIF log\n")
    assert notes.read_text(encoding="utf-8") == "my notes\n"


def test_a_previous_sarif_log_or_an_empty_file_is_replaced(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    model = tmp_path / "a.safetensors"
    model.write_bytes(BAD)
    log = tmp_path / "out.sarif"
    for _ in range(2):  # the second run replaces the first one's log
        status, _, err = run(capsys, "check", "--sarif", str(log), str(model))
        assert (status, err) == (1, "")
        assert json.loads(log.read_text(encoding="utf-8"))["version"] == "2.1.0"
    log.write_bytes(b"")
    status, _, _ = run(capsys, "check", "--sarif", str(log), str(model))
    assert status == 1
    assert json.loads(log.read_text(encoding="utf-8"))["version"] == "2.1.0"


@pytest.mark.parametrize(
    "where", ["missing folder", "a folder", "a device", "under a file", "read-only"]
)
def test_an_unwritable_sarif_path_is_refused_before_any_work(
    where: str,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    model = tmp_path / "a.safetensors"
    model.write_bytes(GOOD)
    path = {
        "missing folder": str(tmp_path / "no" / "such" / "x.sarif"),
        "a folder": str(tmp_path),
        "a device": "/dev/null",
        "under a file": str(model / "x.sarif"),
        "read-only": str(tmp_path / "x.sarif"),
    }[where]
    if where == "read-only":  # as a read-only mount is, even for root
        real = os.access
        monkeypatch.setattr(
            os, "access", lambda p, mode: real(p, mode) and p != str(tmp_path)
        )
    status, out, err = run(capsys, "check", "--sarif", path, str(model))
    # Nothing was checked: the refusal comes first, not after the whole run.
    assert (status, out) == (2, "")
    assert err.startswith(f"stspec: cannot write {path}: ")


def test_a_sarif_log_with_a_name_that_is_not_utf8(tmp_path: Path) -> None:
    folder = os.fsencode(tmp_path)
    name = folder + b"/\xff\xfe.safetensors"
    with open(name, "wb") as file:  # noqa: PTH123 - a bytes path
        file.write(BAD)
    log = tmp_path / "out.sarif"
    done = subprocess.run(
        [*STSPEC, "check", "--sarif", str(log), os.fsdecode(name)],
        capture_output=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 1, done.stderr
    (result,) = json.loads(log.read_bytes())["runs"][0]["results"]
    uri = result["locations"][0]["physicalLocation"]["artifactLocation"]["uri"]
    assert uri.endswith("/%FF%FE.safetensors")


def test_sarif_results_carry_fingerprints_that_stay_the_same(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    shards = {**SHARDS, SECOND: {**SHARDS[SECOND], "extra": ("F32", [1], bytes(4))}}
    folder = write_model(tmp_path / "m", shards, total_size=40)
    (folder / "x.safetensors").write_bytes(BAD)
    (folder / "y.safetensors").write_bytes(BAD)

    def fingerprints() -> list[str]:
        log = tmp_path / "out.sarif"
        run(capsys, "check", "-q", "--sarif", str(log), str(folder))
        results = json.loads(log.read_text(encoding="utf-8"))["runs"][0]["results"]
        return [result["partialFingerprints"]["stspec/v1"] for result in results]

    first = fingerprints()
    assert len(first) == 3
    assert len(set(first)) == 3  # the same violation in two files: two alerts
    # The same findings, with their byte offsets moved: the same alerts.
    (folder / "x.safetensors").write_bytes(
        stspec.serialize({"w": stspec.Tensor("U8", (3,), b"abc")}, {"k": "v"}) + b"!"
    )
    assert fingerprints() == first


# Tracebacks ------------------------------------------------------------------


def test_a_file_that_becomes_valid_between_read_and_validate(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # A download finishing under `check --all`: read() saw the partial file,
    # validate() the complete one.
    path = tmp_path / "x.safetensors"
    path.write_bytes(GOOD[:20])
    real = stspec.read

    def read_then_finish(file: str, *, mapped: bool) -> stspec.SafetensorsFile:
        try:
            return real(file, mapped=mapped)
        finally:
            path.write_bytes(GOOD)

    # (check.py imports read where it calls it)
    monkeypatch.setattr(_pipeline, "read", read_then_finish)
    status, out, err = run(capsys, "check", "--all", str(path))
    assert (status, err) == (1, "")
    assert out.startswith(f"{path}: HEADER-BOUNDS at byte 0: ")


def test_a_valid_file_with_a_cjk_name_on_a_cp1252_stdout(tmp_path: Path) -> None:
    path = tmp_path / "名前.safetensors"
    path.write_bytes(GOOD)
    done = subprocess.run(
        [*STSPEC, "check", str(path)],
        capture_output=True,
        timeout=60,
        check=False,
        env={**os.environ, "PYTHONIOENCODING": "cp1252"},
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.decode("cp1252") == (
        f"{tmp_path}/\\u540d\\u524d.safetensors: valid (1 tensor, {len(GOOD)} bytes)"
        + os.linesep
    )


def _surrogates(folder: Path) -> None:
    """Lone surrogates everywhere a JSON report can hold one."""
    header = (
        b'{"__metadata__":{"k\\ud800":"v\\udfff"},'
        b'"a\\udc00":{"dtype":"U8","shape":[1],"data_offsets":[0,1]}}'
    )
    data = struct.pack("<Q", len(header)) + header + b"!!"
    (folder / "lone.safetensors").write_bytes(data)
    with open(os.fsencode(folder) + b"/\xff.safetensors", "wb") as file:  # noqa: PTH123
        file.write(data)


def _strings(value: object) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        return [*value, *(s for item in value.values() for s in _strings(item))]
    if isinstance(value, list):
        return [s for item in value for s in _strings(item)]
    return []


def test_json_with_lone_surrogates_is_read_by_jq_and_holds_only_unicode(
    tmp_path: Path,
) -> None:
    _surrogates(tmp_path)
    done = subprocess.run(
        [*STSPEC, "check", "--json", str(tmp_path)],
        capture_output=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 1, done.stderr
    document: Any = json.loads(done.stdout)
    # Every string encodes to UTF-8: no lone surrogate is left for a strict
    # parser to refuse; each is written as the text of its escape.
    for text in _strings(document):
        text.encode("utf-8")
    assert any("\\udcff.safetensors" in report["file"] for report in document["files"])
    assert "\\ud800" in json.dumps(document)
    jq = shutil.which("jq")
    if jq is None:  # pragma: no cover - CI has jq
        pytest.skip("jq is not installed")
    parsed = subprocess.run(
        [jq, "-r", ".files[].file"], input=done.stdout, capture_output=True, check=False
    )
    assert parsed.returncode == 0, parsed.stderr


# Text that reads one way only ---------------------------------------------------


def test_a_file_name_crafted_as_a_result_line_cannot_pass_for_one(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    name = f"x.safetensors: valid (1 tensor, {len(GOOD)} bytes) .safetensors"
    (tmp_path / name).write_bytes(BAD)
    literal = tmp_path / "y\\x3a z.safetensors"  # a backslash, literally
    literal.write_bytes(BAD)
    status, out, _ = run(capsys, "check", str(tmp_path))
    assert status == 1
    assert ": valid (" not in out
    lines = out.splitlines()
    # The first ": " of a line ends the file name, always.
    assert [line.split(": ", 1)[0] for line in lines] == [
        (
            f"{tmp_path}/x.safetensors\\x3a valid (1 tensor, {len(GOOD)} bytes) "
            ".safetensors"
        ),
        f"{tmp_path}/y\\\\x3a z.safetensors",
    ]


def test_a_tolerated_file_says_so(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    tolerated = tmp_path / "tab.safetensors"
    tolerated.write_bytes(struct.pack("<Q", 8) + b"{}\t     ")
    invalid = tmp_path / "trailing.safetensors"
    invalid.write_bytes(BAD)
    for flags in ([], ["--all"]):
        status, out, _ = run(capsys, "check", *flags, str(tmp_path))
        assert status == 1
        lines = out.splitlines()
        assert lines[0].startswith(f"{tolerated}: HEADER-PADDING at byte 10: ")
        assert lines[1] == (
            f"{tolerated}: tolerated (only MAY rules are broken: a lenient reader "
            "may accept it, the strict reference rejects it)"
        )
        assert lines[2].startswith(f"{invalid}: LAYOUT-TRAILING")
        assert len(lines) == 3  # an invalid file's violations need no verdict line


def test_a_truncated_file_says_how_many_bytes_are_missing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "x.safetensors"
    path.write_bytes(GOOD[:-2])
    status, out, _ = run(capsys, "check", str(path))
    assert status == 1
    assert out.startswith(f"{path}: LAYOUT-BOUNDS at byte ")
    assert out.rstrip("\n").endswith(
        "tensor 'w' ends at 3, past the 1-byte buffer: 2 bytes missing "
        "(a truncated file?)"
    )


@pytest.mark.parametrize(
    ("named", "says"),
    [
        (
            FIRST,
            (
                f"the index names {FIRST!r}, but transformers and accelerate load the "
                f"copy in {SECOND!r} (the last of its shards by name)"
            ),
        ),
        (
            SECOND,
            (
                f"the index names {SECOND!r}, and transformers and accelerate load "
                "that copy (the last of its shards by name)"
            ),
        ),
        (
            None,
            (
                "the index does not list it; transformers and accelerate load the copy "
                f"in {SECOND!r} (the last of its shards by name)"
            ),
        ),
    ],
)
def test_a_duplicate_says_which_copy_the_loaders_take(
    named: str | None, says: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    copied = {"embed.weight": SHARDS[FIRST]["embed.weight"]}
    shards = {**SHARDS, SECOND: {**SHARDS[SECOND], **copied}}
    weights = {name: shard for shard in sorted(SHARDS) for name in SHARDS[shard]}
    if named is None:
        del weights["embed.weight"]
    else:
        weights["embed.weight"] = named
    folder = write_model(tmp_path / "m", shards, index={"weight_map": weights})
    status, out, _ = run(capsys, "check", "-q", str(folder))
    assert status == 1
    (line,) = [line for line in out.splitlines() if "SHARD-DUPLICATE" in line]
    assert line.startswith(f"{folder / SECOND}: SHARD-DUPLICATE at byte ")
    assert line.endswith(
        f"tensor 'embed.weight' is held by {FIRST!r} and by {SECOND!r}; {says}; "
        "huggingface_hub's load_torch_model loads any of the copies (it reads the "
        "shards in set order, which changes from run to run)"
    )


def test_a_log_that_fails_to_be_written_at_the_end_is_an_error(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    model = tmp_path / "a.safetensors"
    model.write_bytes(GOOD)
    log = tmp_path / "out.sarif"

    def disk_full(path: str, _chunks: object) -> None:
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC), path)

    monkeypatch.setattr(_atomic, "replace_file", disk_full)
    status, _, err = run(capsys, "check", "--sarif", str(log), str(model))
    assert status == 2
    assert err == f"stspec: cannot write {log}: No space left on device\n"
    assert not log.exists()


def test_json_in_this_process_writes_lone_surrogates_as_text(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _surrogates(tmp_path)
    status, out, _ = run(capsys, "check", "--json", str(tmp_path / "lone.safetensors"))
    assert status == 1
    for text in _strings(json.loads(out)):
        text.encode("utf-8")
    assert '"\\\\ud800' not in out or "\\\\\\\\ud800" in out
    assert "\\\\ud800" in out  # the escape, as text


def test_a_stdout_that_is_no_text_file_is_left_as_it_is(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    model = tmp_path / "a.safetensors"
    model.write_bytes(GOOD)
    stdout = io.StringIO()
    monkeypatch.setattr(sys, "stdout", stdout)
    assert main(["check", str(model)]) == 0
    assert stdout.getvalue() == f"{model}: valid (1 tensor, {len(GOOD)} bytes)\n"


def test_a_may_rule_and_a_must_rule_is_not_tolerated(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "both.safetensors"
    path.write_bytes(struct.pack("<Q", 8) + b"{}\t     " + b"!")
    for flags in ([], ["--all"]):
        status, out, _ = run(capsys, "check", *flags, str(path))
        assert status == 1
        assert "tolerated" not in out
        assert f"{path}: LAYOUT-TRAILING at byte 16: " in out
    result = _check.check_file(_check.Task(str(path), "x", every=False, holdings=False))
    assert result.verdict == "rejected"


def test_duplicates_beyond_the_cap_are_counted(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    tensors = {f"t{n}": ("U8", [1], b"x") for n in range(CAP + 5)}
    shards = {FIRST: tensors, SECOND: {**tensors, "only": ("U8", [1], b"y")}}
    weights = {**dict.fromkeys(tensors, FIRST), "only": SECOND}
    folder = write_model(tmp_path / "m", shards, index={"weight_map": weights})
    status, out, _ = run(capsys, "check", "-q", str(folder))
    assert status == 1
    lines = out.splitlines()
    assert sum("SHARD-DUPLICATE at byte" in line for line in lines) == CAP
    assert f"{folder / SECOND}: SHARD-DUPLICATE: 5 more not shown" not in lines
    assert f"{folder / INDEX}: SHARD-DUPLICATE: 5 more not shown" in lines


def test_inspect_writes_file_names_as_check_does(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "a: 9 tensors.safetensors"
    path.write_bytes(GOOD)
    status, out, _ = run(capsys, "inspect", str(path))
    assert status == 0
    assert out.splitlines()[0] == f"{tmp_path}/a\\x3a 9 tensors.safetensors: 1 tensor"
