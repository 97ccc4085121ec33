"""`import stspec` stays cheap: the heavy standard modules stay unloaded.

Times belong in bench/bench_startup.py; what is imported is deterministic.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

import stspec
from stspec import dtypes as _dtypes
from stspec import errors as _errors
from stspec import rules as _rules
from stspec import schema as _schema
from stspec.audit.cli import main
from stspec.writer import serialize as _writer

SOURCE_ROOT = str(Path(stspec.__file__).resolve().parents[1])
# Each costs milliseconds at start-up (dataclasses brings inspect, ast, dis;
# secrets brings hmac, random, base64); the writer's modules load on first
# use of stspec.write.
HEAVY = (
    "typing",
    "dataclasses",
    "inspect",
    "pathlib",
    "shutil",  # argparse's help width: bz2, lzma and zlib come with it
    "secrets",
    "hmac",
    "random",
    "base64",
    "hashlib",
    "threading",
    "signal",
    "fcntl",
    "stspec.writer.serialize",
    "stspec.writer.atomic",
    "stspec.schema",
)


def printed_by(script: str) -> list[str]:
    """Run ``script`` in a fresh interpreter; return the words it printed."""
    # -S: no site, so nothing that an editable install preloads hides a cost.
    done = subprocess.run(
        [sys.executable, "-S", "-c", script],
        env={**os.environ, "PYTHONPATH": SOURCE_ROOT},
        capture_output=True,
        text=True,
        check=True,
        timeout=60,
    )
    return done.stdout.split()


def loaded_by(statement: str) -> set[str]:
    script = f"import sys\n{statement}\nprint(' '.join(sorted(sys.modules)))\n"
    return set(printed_by(script))


@pytest.mark.parametrize(
    "statement",
    ["import stspec", "import stspec.audit.cli", "import stspec; stspec.read"],
)
def test_loads_no_heavy_module(statement: str) -> None:
    loaded = loaded_by(statement)
    assert "stspec" in loaded
    heavy = sorted(loaded.intersection(HEAVY))
    assert heavy == [], (
        f"{statement!r} loads {heavy}: import them where they are used, keep "
        "typing under TYPE_CHECKING, use stspec.record.NamedTuple for records "
        "(docs/explanation/startup-cost.md)"
    )


def test_import_stspec_builds_no_table() -> None:
    # The rule and dtype tables build records: `stspec --version` needs none.
    loaded = loaded_by("import stspec")
    assert sorted(name for name in loaded if name.startswith("stspec")) == [
        "stspec",
        "stspec._version",
    ]


def test_loads_the_writer_on_first_use() -> None:
    loaded = loaded_by("import stspec; stspec.write")
    assert {"stspec.writer.serialize", "stspec.writer.atomic"} <= loaded


@pytest.mark.parametrize(
    ("name", "module"),
    [
        ("Tensor", _writer),
        ("serialize", _writer),
        ("write", _writer),
        ("HEADER_SCHEMA_ID", _schema),
        ("header_schema", _schema),
        ("RULES", _rules),
        ("verdict_of", _rules),
        ("DTYPES", _dtypes),
        ("SafetensorsError", _errors),
    ],
)
def test_deferred_names_resolve_on_first_use(
    monkeypatch: pytest.MonkeyPatch, name: str, module: object
) -> None:
    monkeypatch.delitem(vars(stspec), name, raising=False)
    assert getattr(stspec, name) is getattr(module, name)
    assert vars(stspec)[name] is getattr(module, name)  # cached


def test_other_names_are_still_missing() -> None:
    with pytest.raises(AttributeError, match="no attribute 'nope'"):
        stspec.nope  # type: ignore[attr-defined]  # noqa: B018


def test_everything_in_all_is_there() -> None:
    assert all(hasattr(stspec, name) for name in stspec.__all__)
    assert set(dir(stspec)) == {*stspec.__all__, "__version__"}


def test_the_command_parses_its_arguments_without_shutil() -> None:
    loaded = loaded_by(
        "from stspec.audit.cli import main\n"
        "import io, contextlib\n"
        "with contextlib.redirect_stdout(io.StringIO()):\n"
        "    main(['check', '/nonexistent'])"
    )
    assert "stspec.audit.command" in loaded
    assert "shutil" not in loaded


# What a check of one plain valid file does without: folders and sharded
# models (shards, shard_checks), files that are no safetensors file (sniff),
# SARIF, json (strings with escapes, faults, JSON output), mmap (the command
# reads without mapping), select (pipes) and the bulk way for long runs of
# entries (bulk).
ON_DEMAND = (
    "stspec.reader.bulk",
    "stspec.audit.shards",
    "stspec.audit.shard_checks",
    "stspec.audit.sniff",
    "stspec.audit.sarif",
    "json",
    "mmap",
    "select",
    # math.prod, for the member scan's shapes (an extension module to load)
    "math",
    # ExitStack for what a run leaves behind (copies of stdin, remote
    # sessions); contextlib's import is 3 M instructions of start-up
    "contextlib",
)


def test_checking_a_plain_file_loads_only_what_it_needs(tmp_path: Path) -> None:
    path = str(tmp_path / "plain.safetensors")
    stspec.write(path, {"w": ("F32", [2, 3], bytes(24))}, {"format": "pt"})
    loaded = loaded_by(
        "from stspec.audit.cli import main\n"
        "import io\n"
        "sys.stdout = io.StringIO()\n"  # (contextlib's redirect would load it)
        f"main(['check', {path!r}])\n"
        "sys.stdout = sys.__stdout__"
    )
    assert "stspec.audit.small" in loaded
    assert sorted(loaded.intersection((*HEAVY, *ON_DEMAND))) == []
    # Each module costs import machinery on top of its body: one more on this
    # path should be a decision (re-measure with bench/bench_startup.py).
    assert sorted(name for name in loaded if name.startswith("stspec")) == [
        "stspec",
        "stspec._version",
        "stspec.audit",
        "stspec.audit.cli",
        # every file is opened through it, never blocking (one small module
        # that remote inputs can extend): about a tenth of a millisecond
        "stspec.audit.opening",
        # one small valid file named alone needs none of the modules that
        # gather inputs, check files across processes, check models and
        # summarise (command, inputs, check, summary): see small.py
        "stspec.audit.small",
        "stspec.audit.terminal",
        "stspec.dtypes",
        "stspec.errors",
        "stspec.reader",
        # a small header as writers emit it is judged whole (sound_header):
        # the pipeline's modules load only for a file it does not vouch for
        "stspec.reader.recognise",
        "stspec.reader.strict_json",
        "stspec.reader.table",
        "stspec.record",
        "stspec.rules",
    ]


def help_lines(capsys: pytest.CaptureFixture[str]) -> list[str]:
    assert main(["check", "--help"]) == 0
    return capsys.readouterr().out.splitlines()


@pytest.mark.parametrize(("columns", "width"), [("60", 58), ("100", 98)])
def test_help_fits_the_width_columns_names(
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    columns: str,
    width: int,
) -> None:
    monkeypatch.setenv("COLUMNS", columns)
    lines = help_lines(capsys)
    assert max(map(len, lines)) <= width
    assert max(map(len, lines)) > width - 12  # the width is used, not just respected


@pytest.mark.parametrize("columns", ["", "0", "wide"])
def test_help_fits_the_terminal_otherwise(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], columns: str
) -> None:
    monkeypatch.setenv("COLUMNS", columns)
    monkeypatch.setattr(os, "get_terminal_size", lambda: os.terminal_size((70, 24)))
    assert max(map(len, help_lines(capsys))) <= 68


def test_help_is_80_columns_wide_without_a_terminal(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    def no_terminal() -> os.terminal_size:
        raise OSError(25, "Inappropriate ioctl for device")

    monkeypatch.delenv("COLUMNS", raising=False)
    monkeypatch.setattr(os, "get_terminal_size", no_terminal)
    lines = help_lines(capsys)
    assert 68 < max(map(len, lines)) <= 78


# Patterns that only odd headers need (unknown members, fields out of order,
# dimensions of 20 digits or more): compiling one costs up to a millisecond.
RARE_PATTERNS = (
    "reader.recognise.over_u64",
    "reader.recognise.between_names",
    "reader.recognise._control_pattern",
    "reader.recognise._pair_head",
    "reader.recognise._after_value",
    "reader.recognise.plain_member",
    "reader.recognise.plain_run",
    "reader.recognise.int_array",
    "reader.values._quoted",
    "reader.values._runs",
    "reader.strict_json._number",
    "reader.strict_json._plain_int",
    "reader.strict_json._surrogate",
)


def compiled_after(statement: str) -> list[str]:
    script = (
        "import contextlib, io\n"
        "import stspec.reader.fast\n"
        "with contextlib.redirect_stdout(io.StringIO()):\n"
        f"    {statement}\n"
        + "".join(
            f"if stspec.{name}.cache_info().currsize:\n    print({name!r})\n"
            for name in RARE_PATTERNS
        )
    )
    return printed_by(script)


def test_checking_a_plain_file_compiles_no_rare_pattern(tmp_path: Path) -> None:
    path = str(tmp_path / "plain.safetensors")
    stspec.write(path, {"w": ("F32", [2, 3], bytes(24))}, {"format": "pt"})
    statement = f"from stspec.audit.cli import main; main(['check', {path!r}])"
    assert compiled_after(statement) == []


_ENTRY = '"dtype":"F32","shape":[1],"data_offsets":[0,4]'
_MANY_UNKNOWN = "".join(f',"m{number}":1' for number in range(300))
_MANY_NON_ASCII = "".join(f',"\u00e9{number}":1' for number in range(300))
_MANY_STRINGS = "".join(f',"m{number}":"s"' for number in range(300))


# Each check above would pass if the patterns were never compiled at all.
@pytest.mark.parametrize(
    ("header", "needed"),
    [
        pytest.param(
            '{"w":{"shape":[123456789012345678901],"dtype":"F32","data_offsets":[0,4]}}',
            {"reader.recognise.over_u64", "reader.recognise.int_array"},
            id="fields-out-of-order-21-digits",
        ),
        pytest.param(
            f'{{"w":{{{_ENTRY},"x":1.5}}}}',
            {"reader.strict_json._number", "reader.strict_json._plain_int"},
            id="unknown-member",
        ),
        pytest.param(
            f'{{"w":{{{_ENTRY}{_MANY_UNKNOWN}}}}}',
            {"reader.recognise.between_names"},
            id="run-of-unknown-members",
        ),
        pytest.param(
            f'{{"w":{{{_ENTRY}{_MANY_NON_ASCII}}}}}',
            {"reader.recognise.between_names", "reader.recognise._control_pattern"},
            id="run-of-unknown-non-ascii-members",
        ),
        pytest.param(
            f'{{"w":{{{_ENTRY}{_MANY_STRINGS}}}}}',
            {"reader.recognise.plain_member", "reader.recognise.plain_run"},
            id="run-of-unknown-string-members",
        ),
        pytest.param(
            f'{{"w":{{{_ENTRY},"x":[[1]]}}}}',
            {"reader.values._quoted", "reader.values._runs"},
            id="nested-unknown-member",
        ),
        pytest.param(
            f'{{"w":{{{_ENTRY}}},"__metadata__":{{"a\\ud800":"b"}}}}',
            {"reader.strict_json._surrogate"},
            id="lone-surrogate",
        ),
        pytest.param(
            f'{{"w":{{{_ENTRY}}},"__metadata__":{{"a":"{{\\"b\\": 1}}"}}}}',
            {"reader.recognise._pair_head", "reader.recognise._after_value"},
            id="metadata-value-with-escapes",
        ),
    ],
)
def test_an_odd_header_compiles_what_it_needs(
    tmp_path: Path, header: str, needed: set[str]
) -> None:
    path = tmp_path / "odd.safetensors"
    raw = header.encode()
    path.write_bytes(len(raw).to_bytes(8, "little") + raw + bytes(4))
    compiled = compiled_after(f"stspec.validate({str(path)!r})")
    assert set(compiled) >= needed


@pytest.mark.parametrize("arguments", [["--version"], ["--help"], ["check"]])
def test_before_a_command_is_known_only_argparse_is_loaded(
    arguments: list[str],
) -> None:
    # --version, --help and a usage error cost the interpreter and argparse:
    # no rule or dtype table, no reader, no auditor module but the CLI.
    loaded = loaded_by(
        "import contextlib, io\n"
        "from stspec.audit.cli import main\n"
        "with contextlib.redirect_stdout(io.StringIO()), "
        "contextlib.redirect_stderr(io.StringIO()):\n"
        f"    main({arguments!r})"
    )
    assert sorted(name for name in loaded if name.startswith("stspec")) == [
        "stspec",
        "stspec._version",
        "stspec.audit",
        "stspec.audit.cli",
    ]


def test_the_program_leaves_its_objects_out_of_the_last_collection() -> None:
    # run() (the `stspec` script, python -m stspec) freezes what exists when
    # the command is done: the interpreter's last collection would walk it
    # all at exit.  main() leaves an in-process caller's collector alone.
    printed = printed_by(
        "import gc, io, sys\n"
        "from stspec.audit.cli import main, run\n"
        "sys.stdout = io.StringIO()\n"
        "sys.argv = ['stspec', '--version']\n"
        "main(['--version'])\n"
        "after_main = gc.get_freeze_count()\n"
        "status = run()\n"
        "sys.stdout = sys.__stdout__\n"
        "print(status, after_main, gc.get_freeze_count() > 0)"
    )
    assert printed == ["0", "0", "True"]
