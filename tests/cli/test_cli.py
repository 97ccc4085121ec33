"""The stspec command: exit codes, the line format, JSON output, inspect."""

from __future__ import annotations

import argparse
import importlib
import json
import os
import struct
import subprocess
import sys
from pathlib import Path

import pytest

import stspec
from stspec import Tensor, __version__, serialize
from stspec.audit.cli import main, parser

GOOD = serialize(
    {"a": Tensor("U8", (2,), b"xy"), "w": Tensor("F32", (1, 2), b"\x00" * 8)},
    {"format": "pt"},
)


def framed(header: str, data: bytes = b"") -> bytes:
    raw = header.encode()
    raw += b" " * (-len(raw) % 8)
    return struct.pack("<Q", len(raw)) + raw + data


# Two violations: a bad dtype at byte 22 and a fractional dimension at byte 87.
TWO_FAULTS = framed(
    '{"a":{"dtype":"X","shape":[1],"data_offsets":[0,1]},'
    '"b":{"dtype":"U8","shape":[1.5],"data_offsets":[1,2]}}',
    b"ab",
)
TAB_PADDED = struct.pack("<Q", 8) + b"{}\t     "  # only a MAY rule: tolerated


@pytest.fixture
def files(tmp_path: Path) -> dict[str, str]:
    contents = {
        "good": GOOD,
        "trailing": GOOD + b"!",
        "two": TWO_FAULTS,
        "tab": TAB_PADDED,
    }
    paths = {}
    for name, data in contents.items():
        path = tmp_path / f"{name}.safetensors"
        path.write_bytes(data)
        paths[name] = str(path)
    paths["missing"] = str(tmp_path / "missing.safetensors")
    paths["folder"] = str(tmp_path)
    (tmp_path / "empty").mkdir()
    paths["empty"] = str(tmp_path / "empty")
    return paths


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    status = main(list(argv))
    out, err = capsys.readouterr()
    return status, out, err


# check -----------------------------------------------------------------------


def test_check_prints_valid_with_counts_and_exits_0(
    files: dict[str, str], capsys: pytest.CaptureFixture[str]
) -> None:
    status, out, err = run(capsys, "check", files["good"])
    assert (status, err) == (0, "")
    assert out == f"{files['good']}: valid (2 tensors, {len(GOOD)} bytes)\n"


def test_check_prints_the_first_violation_as_one_line_and_exits_1(
    files: dict[str, str], capsys: pytest.CaptureFixture[str]
) -> None:
    status, out, _ = run(capsys, "check", files["trailing"])
    (error,) = stspec.validate(GOOD + b"!")
    offset = len(GOOD)
    assert status == 1
    assert (
        out == f"{files['trailing']}: LAYOUT-TRAILING at byte {offset}: {error.msg}\n"
    )


def test_check_names_the_header_location_after_the_offset(
    files: dict[str, str], capsys: pytest.CaptureFixture[str]
) -> None:
    status, out, _ = run(capsys, "check", files["two"])
    assert status == 1
    assert out.startswith(
        f'{files["two"]}: DTYPE-NAME at byte 22, header $["a"]["dtype"]: '
    )
    assert out.count("\n") == 1


def test_check_all_lists_every_violation_in_offset_order(
    files: dict[str, str], capsys: pytest.CaptureFixture[str]
) -> None:
    status, out, _ = run(capsys, "check", "--all", files["two"])
    lines = out.splitlines()
    assert status == 1
    assert [line.split(": ")[1] for line in lines] == [
        'DTYPE-NAME at byte 22, header $["a"]["dtype"]',
        'NUM-INTEGER at byte 87, header $["b"]["shape"][0]',
    ]


def test_check_all_prints_valid_files_too(
    files: dict[str, str], capsys: pytest.CaptureFixture[str]
) -> None:
    status, out, _ = run(capsys, "check", "--all", files["good"])
    assert (status, out) == (
        0,
        f"{files['good']}: valid (2 tensors, {len(GOOD)} bytes)\n",
    )


def test_check_rejects_a_tolerated_file_with_exit_1(
    files: dict[str, str], capsys: pytest.CaptureFixture[str]
) -> None:
    status, out, _ = run(capsys, "check", files["tab"])
    assert status == 1
    assert out.startswith(f"{files['tab']}: HEADER-PADDING at byte 10: ")


def test_check_quiet_prints_only_violations(
    files: dict[str, str], capsys: pytest.CaptureFixture[str]
) -> None:
    status, out, _ = run(capsys, "check", "-q", files["good"], files["trailing"])
    assert status == 1
    assert out.startswith(f"{files['trailing']}: LAYOUT-TRAILING")
    assert out.count("\n") == 1


@pytest.mark.parametrize("which", ["missing", "empty"])
def test_check_reports_unreadable_files_on_stderr_and_exits_2(
    which: str, files: dict[str, str], capsys: pytest.CaptureFixture[str]
) -> None:
    status, out, err = run(capsys, "check", files[which], files["good"])
    assert status == 2
    assert err.startswith(f"stspec: cannot read {files[which]}: ")
    assert "Traceback" not in err
    assert out.endswith(f"valid (2 tensors, {len(GOOD)} bytes)\n")


def test_check_lets_an_io_error_outrank_an_invalid_file(
    files: dict[str, str], capsys: pytest.CaptureFixture[str]
) -> None:
    status, _, _ = run(capsys, "check", files["trailing"], files["missing"])
    assert status == 2


def test_check_json_describes_every_file(
    files: dict[str, str], capsys: pytest.CaptureFixture[str]
) -> None:
    status, out, _ = run(
        capsys,
        "check",
        "--json",
        files["good"],
        files["two"],
        files["tab"],
        files["missing"],
    )
    report = json.loads(out)["files"]
    assert status == 2
    assert [(entry["file"], entry["valid"]) for entry in report] == [
        (files["good"], True),
        (files["two"], False),
        (files["tab"], False),
        (files["missing"], False),
    ]
    assert [entry.get("verdict") for entry in report] == [
        "valid",
        "invalid",
        "tolerated",
        None,
    ]
    assert report[0]["violations"] == []
    assert report[1]["violations"][1] == {
        "rule": "NUM-INTEGER",
        "offset": 87,
        "path": '$["b"]["shape"][0]',
        "message": stspec.validate(TWO_FAULTS)[1].msg,
    }
    assert report[3]["error"]


def test_check_json_exits_1_for_an_invalid_file(
    files: dict[str, str], capsys: pytest.CaptureFixture[str]
) -> None:
    status, out, _ = run(capsys, "check", "--json", files["trailing"])
    assert status == 1
    assert json.loads(out)["files"][0]["verdict"] == "invalid"


@pytest.mark.parametrize(
    ("offsets", "buffer"),
    [
        pytest.param("[10,0]", 10, id="span-not-size"),
        pytest.param("[12,4]", 8, id="begin-past-buffer"),
        pytest.param("[12,10]", 8, id="both-past-buffer"),
    ],
)
def test_check_lists_a_reversed_pair_as_validate_and_read_do(
    offsets: str, buffer: int, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    data = framed(
        '{"w":{"dtype":"F32","shape":[2],"data_offsets":' + offsets + "}}",
        bytes(buffer),
    )
    path = tmp_path / "reversed.safetensors"
    path.write_bytes(data)
    listed = [(e.rule, e.offset) for e in stspec.validate(data)]
    assert listed[0] == ("OFFSETS-ORDER", data.index(offsets.encode()))
    assert "SIZE-MATCH" not in {rule for rule, _ in listed}
    status, out, _ = run(capsys, "check", "--json", str(path))
    assert status == 1
    violations = json.loads(out)["files"][0]["violations"]
    assert [(v["rule"], v["offset"]) for v in violations] == listed
    status, out, _ = run(capsys, "check", str(path))
    with pytest.raises(stspec.SafetensorsError) as caught:
        stspec.read(data)
    error = caught.value
    assert out.startswith(f"{path}: {error.rule} at byte {error.offset}, header ")


# usage -----------------------------------------------------------------------


@pytest.mark.parametrize(
    "argv",
    [
        pytest.param([], id="no-command"),
        pytest.param(["check"], id="no-file"),
        pytest.param(["frobnicate", "x"], id="unknown-command"),
        pytest.param(["check", "--bogus", "x"], id="unknown-option"),
        pytest.param(["inspect", "a", "b"], id="two-files-to-inspect"),
    ],
)
def test_usage_errors_exit_2_with_a_message_on_stderr(
    argv: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    status, out, err = run(capsys, *argv)
    assert (status, out) == (2, "")
    assert "usage: stspec" in err


def test_help_and_version_exit_0(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, _ = run(capsys, "--help")
    assert status == 0
    assert "exit status: 0 everything valid" in out
    status, out, _ = run(capsys, "--version")
    assert (status, out) == (0, f"{__version__}\n")


@pytest.mark.parametrize("command", ["check", "inspect"])
def test_every_argument_has_help(command: str) -> None:
    # argparse prints an argument without help as a bare row (FILE and nothing);
    # it lists the arguments only in private attributes.
    commands = next(
        action
        for action in parser()._actions
        if isinstance(action, argparse._SubParsersAction)
    )
    arguments = commands.choices[command]._actions
    assert [action.dest for action in arguments if not action.help] == []


# inspect ---------------------------------------------------------------------


def test_inspect_shows_tensors_metadata_and_layout(
    files: dict[str, str], capsys: pytest.CaptureFixture[str]
) -> None:
    status, out, _ = run(capsys, "inspect", files["good"])
    header_length = struct.unpack_from("<Q", GOOD)[0]
    json_length = len(GOOD[8 : 8 + header_length].rstrip(b" "))
    assert status == 0
    assert out.splitlines() == [
        f"{files['good']}: 2 tensors",
        "",
        "metadata: 1 key",
        "  format = pt",
        "",
        "  name  dtype  shape   data_offsets  bytes",
        "  w     F32    [1, 2]  [0, 8]            8",
        "  a     U8     [2]     [8, 10]           2",
        "",
        "layout:",
        f"  file length          {len(GOOD)}",
        f"  header length N      {header_length}",
        f"  JSON object          {json_length} bytes",
        f"  padding (0x20)       {header_length - json_length} bytes",
        f"  data start 8+N       {8 + header_length} (mod 8 = 0)",
        "  buffer length        10",
    ]


def test_inspect_quotes_odd_names_and_cuts_long_values(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "odd.safetensors"
    stspec.write(
        path,
        {"": Tensor("U8", (0,), b""), "line\nbreak": Tensor("U8", (0,), b"")},
        {"long": "v" * 500},
    )
    status, out, _ = run(capsys, "inspect", str(path))
    assert status == 0
    names = [line.split()[0] for line in out.splitlines() if " U8 " in line]
    assert names == ['""', '"line\\nbreak"']
    assert f"  long = {'v' * 120}... (500 characters)\n" in out


def test_inspect_says_when_there_is_no_metadata(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "plain.safetensors"
    stspec.write(path, {})
    status, out, _ = run(capsys, "inspect", str(path))
    assert status == 0
    assert out.startswith(f"{path}: 0 tensors\n")
    assert "metadata: none\n" in out
    assert "  padding (0x20)       6 bytes\n" in out


def test_inspect_json_gives_the_same_numbers(
    files: dict[str, str], capsys: pytest.CaptureFixture[str]
) -> None:
    status, out, _ = run(capsys, "inspect", "--json", files["good"])
    document = json.loads(out)
    header_length = struct.unpack_from("<Q", GOOD)[0]
    assert status == 0
    assert document["metadata"] == {"format": "pt"}
    assert document["tensors"][0] == {
        "name": "w",
        "dtype": "F32",
        "shape": [1, 2],
        "data_offsets": [0, 8],
        "bytes": 8,
    }
    assert document["layout"] == {
        "file_length": len(GOOD),
        "header_length": header_length,
        "json_length": len(GOOD[8 : 8 + header_length].rstrip(b" ")),
        "padding": header_length - len(GOOD[8 : 8 + header_length].rstrip(b" ")),
        "data_start": 8 + header_length,
        "data_start_mod_8": 0,
        "buffer_length": 10,
    }


def test_inspect_prints_the_violation_of_an_invalid_file_and_exits_1(
    files: dict[str, str], capsys: pytest.CaptureFixture[str]
) -> None:
    status, out, _ = run(capsys, "inspect", files["two"])
    assert status == 1
    assert out.startswith(f"{files['two']}: DTYPE-NAME at byte 22")


def test_inspect_json_of_an_invalid_file_lists_every_violation(
    files: dict[str, str], capsys: pytest.CaptureFixture[str]
) -> None:
    status, out, _ = run(capsys, "inspect", "--json", files["two"])
    document = json.loads(out)
    assert status == 1
    assert (document["valid"], document["verdict"]) == (False, "invalid")
    assert len(document["violations"]) == 2


def test_inspect_reports_a_missing_file_and_exits_2(
    files: dict[str, str], capsys: pytest.CaptureFixture[str]
) -> None:
    status, out, err = run(capsys, "inspect", files["missing"])
    assert (status, out) == (2, "")
    assert err.startswith(f"stspec: cannot read {files['missing']}: ")


# the installed command -------------------------------------------------------


def test_python_dash_m_stspec_runs_the_command(files: dict[str, str]) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "stspec", "check", files["good"], files["trailing"]],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 1
    first = done.stdout.splitlines()[0]
    assert first == f"{files['good']}: valid (2 tensors, {len(GOOD)} bytes)"
    assert ": LAYOUT-TRAILING at byte " in done.stdout


def test_the_console_script_is_installed(files: dict[str, str]) -> None:
    script = Path(sys.executable).with_name("stspec")
    if not script.exists():  # not pip-installed
        pytest.skip("the stspec console script is not installed")
    done = subprocess.run(
        [str(script), "check", files["good"]],
        capture_output=True,
        text=True,
        check=False,
        env={**os.environ, "PYTHONWARNINGS": "error"},
    )
    assert (done.returncode, done.stderr) == (0, "")


def test_the_main_module_exits_with_the_status_of_main(
    files: dict[str, str],
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    monkeypatch.setattr(sys, "argv", ["stspec", "check", files["trailing"]])
    monkeypatch.delitem(sys.modules, "stspec.__main__", raising=False)
    # An import, not runpy: pytest's assertion rewriter (which claims every
    # stspec module, as the distribution registers a pytest11 plugin) has no
    # get_code() for runpy to call.
    with pytest.raises(SystemExit) as caught:
        importlib.import_module("stspec.__main__")
    assert caught.value.code == 1
    assert "LAYOUT-TRAILING" in capsys.readouterr().out
