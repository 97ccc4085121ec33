"""matrix.envs: when an environment is rebuilt."""

from dataclasses import replace
from pathlib import Path

import pytest
from matrix import envs
from matrix.impls import by_name


def test_a_changed_wrapper_source_rebuilds_a_built_program(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("STSPEC_MATRIX_DIR", str(tmp_path / "envs"))
    builds: list[list[str]] = []
    monkeypatch.setattr(envs, "_check", lambda argv, **_: builds.append(argv))
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
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("STSPEC_MATRIX_DIR", str(tmp_path / "envs"))
    builds: list[list[str]] = []
    monkeypatch.setattr(envs, "_check", lambda argv, **_: builds.append(argv))
    impl = replace(by_name("go-nlpodyssey"), name="built")
    envs._build(impl)
    assert builds[-1][-1] == "go_nlpodyssey"
    assert builds[-1][-2] == str(tmp_path / "envs" / "built")
    envs._build(replace(impl, build_args=("other",)))
    assert len(builds) == 2
    assert builds[-1][-1] == "other"
