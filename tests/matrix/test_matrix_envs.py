"""matrix.envs: when an environment is rebuilt."""

import re
import tomllib
from dataclasses import replace
from pathlib import Path

import pytest
from matrix import envs
from matrix.impls import COMMAND_PINS, SUITE_PINS, by_name


@pytest.fixture
def builds(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> list[list[str]]:
    """Each command a set-up would run, recorded instead; environments in tmp_path."""
    monkeypatch.setenv("STSPEC_MATRIX_DIR", str(tmp_path / "envs"))
    commands: list[list[str]] = []
    monkeypatch.setattr(envs, "_check", lambda argv, **_: commands.append(argv))
    return commands


def test_a_changed_wrapper_source_rebuilds_a_built_program(
    tmp_path: Path, builds: list[list[str]]
) -> None:
    sources = tmp_path / "cli"  # an absolute wrapper path replaces matrix/wrappers/
    sources.mkdir()
    (sources / "main.rs").write_text("fn main() {}\n")
    impl = replace(by_name("hf-rust-0.8.0"), name="built", wrapper=str(sources))
    envs._build(impl)
    envs._build(impl)  # nothing changed: the stamp matches
    assert len(builds) == 1
    (sources / "main.rs").write_text('fn main() { println!("changed"); }\n')
    envs._build(impl)
    assert len(builds) == 2


def test_build_args_reach_the_script_and_a_change_rebuilds(
    tmp_path: Path, builds: list[list[str]]
) -> None:
    impl = replace(by_name("go-nlpodyssey"), name="built")
    envs._build(impl)
    assert builds[-1][-1] == "go_nlpodyssey"
    assert builds[-1][-2] == str(tmp_path / "envs" / "built")
    envs._build(replace(impl, build_args=("other",)))
    assert len(builds) == 2
    assert builds[-1][-1] == "other"


def test_a_changed_shared_go_helper_rebuilds_every_go_row_only(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, builds: list[list[str]]
) -> None:
    shared = tmp_path / "_gowire"
    shared.mkdir()
    (shared / "wire.go").write_text("package wire\n")
    monkeypatch.setitem(envs._SHARED_SOURCES, "go_module.sh", shared)
    go, rust = by_name("go-syft"), by_name("hf-rust-0.8.0")
    for impl in (go, rust):
        envs._build(impl)
    (shared / "wire.go").write_text("package wire // changed\n")
    for impl in (go, rust):
        envs._build(impl)
    assert [argv[-1] for argv in builds] == ["go_syft", "0.8.0", "go_syft"]


def test_no_deps_packages_install_after_the_pins_and_a_change_rebuilds(
    builds: list[list[str]],
) -> None:
    # PaddleNLP's one module is loaded by path: its wheel without paddle & co.
    envs._venv("nodeps", ("numpy==2.4.6",), no_deps=("paddlenlp==2.8.1",))
    pips = [argv for argv in builds if "pip" in argv]
    assert pips[0][-1] == "numpy==2.4.6"
    assert "--no-deps" not in pips[0]
    assert pips[1][-2:] == ["--no-deps", "paddlenlp==2.8.1"]
    envs._venv("nodeps", ("numpy==2.4.6",), no_deps=("paddlenlp==2.8.1",))
    assert len(builds) == 3  # venv + 2 pip builds; the stamp matched the second time
    envs._venv("nodeps", ("numpy==2.4.6",), no_deps=("paddlenlp==2.8.0",))
    assert builds[-1][-1] == "paddlenlp==2.8.0"


def test_the_suite_environment_has_every_package_the_conformance_extra_names() -> None:
    # cmd: rows run the suite from the _suite environment: a package the
    # conformance extra needs and the environment lacks (jsonschema, which
    # validates command answers) would make every command row fail to start.
    with (Path(envs.REPO) / "pyproject.toml").open("rb") as file:
        extra = tomllib.load(file)["project"]["optional-dependencies"]["conformance"]
    needed = {re.split(r"[<>=~!;\[ ]", spec, maxsplit=1)[0].lower() for spec in extra}
    needed.discard("pytest-xdist")  # the matrix runs one process per row
    pinned = {spec.split("==")[0].lower() for spec in (*SUITE_PINS, *COMMAND_PINS)}
    assert needed <= pinned, f"not installed in _suite: {sorted(needed - pinned)}"
