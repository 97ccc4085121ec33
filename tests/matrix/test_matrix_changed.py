"""``python -m matrix --changed``: rerun only what changed since its results."""

import json
from dataclasses import replace
from pathlib import Path

import pytest
from matrix import __main__ as cli
from matrix import envs, inputs, runner
from matrix.impls import Impl, by_name


@pytest.fixture
def ran(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Names runner.run was called with; each call writes a complete result."""
    calls: list[str] = []

    def run(impl: Impl, results: Path, **_: object) -> Path:
        calls.append(impl.name)
        out = results / f"{impl.name}.json"
        record = {"run": {"complete": True}, "inputs": inputs.inputs(impl)}
        out.write_text(json.dumps(record))
        return out

    monkeypatch.setattr(envs, "setup", lambda _: None)
    monkeypatch.setattr(runner, "run", run)
    suite = tmp_path / "suite"
    suite.mkdir()
    (suite / "case.safetensors").write_bytes(b"one")
    monkeypatch.setattr(inputs, "SUITE_DIRS", (str(suite),))
    return calls


def _impls(tmp_path: Path, **pins: tuple[str, ...]) -> tuple[Impl, ...]:
    made = []
    for name in ("a", "b"):
        wrapper = tmp_path / f"{name}.mjs"  # absolute: replaces matrix/wrappers/
        if not wrapper.exists():
            wrapper.write_text(f"// {name}\n")
        base = replace(by_name("npm-safetensors"), name=name, wrapper=str(wrapper))
        made.append(replace(base, npm=pins.get(name, base.npm)))
    return tuple(made)


def _run_changed(results: Path) -> int:
    return cli.main(["run", "--changed", "--results", str(results)])


def test_changed_reruns_only_what_changed_since_its_results(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, ran: list[str]
) -> None:
    results = tmp_path / "results"
    results.mkdir()
    monkeypatch.setattr(cli, "IMPLS", _impls(tmp_path))
    assert _run_changed(results) == 0
    assert ran == ["a", "b"]  # no results yet
    assert _run_changed(results) == 0
    assert ran == ["a", "b"]  # nothing changed: nothing reruns

    (tmp_path / "a.mjs").write_text("// a, edited\n")
    _run_changed(results)
    assert ran[2:] == ["a"]  # its wrapper

    monkeypatch.setattr(cli, "IMPLS", _impls(tmp_path, b=("safetensors@0.0.2",)))
    _run_changed(results)
    assert ran[3:] == ["b"]  # its pin

    (tmp_path / "suite" / "case.safetensors").write_bytes(b"two")
    _run_changed(results)
    assert ran[4:] == ["a", "b"]  # the corpus/suite: every row


def test_a_result_without_inputs_or_incomplete_is_rerun(tmp_path: Path) -> None:
    impl = by_name("npm-safetensors")
    path = tmp_path / "npm-safetensors.json"
    assert inputs.changed(impl, tmp_path) == ["no results"]
    path.write_text(json.dumps({"run": {"complete": True}}))
    assert inputs.changed(impl, tmp_path) == ["no inputs recorded"]
    current = inputs.inputs(impl)
    path.write_text(json.dumps({"run": {"complete": False}, "inputs": current}))
    assert inputs.changed(impl, tmp_path) == ["its last run is incomplete"]
    path.write_text(json.dumps({"run": {"complete": True}, "inputs": current}))
    assert inputs.changed(impl, tmp_path) == []
    stale = {**current, "build": "0" * 64}
    path.write_text(json.dumps({"run": {"complete": True}, "inputs": stale}))
    assert inputs.changed(impl, tmp_path) == ["build changed"]


def test_a_note_is_no_change_but_a_limit_is() -> None:
    impl = by_name("npm-safetensors")
    before = inputs.inputs(impl)
    assert inputs.inputs(replace(impl, note="reworded")) == before
    # what a row says about itself, and its place in the table, rerun nothing
    cosmetic = replace(impl, tracker="https://example.org", api="x()", order=1)
    assert inputs.inputs(cosmetic) == before
    assert inputs.inputs(replace(impl, case_timeout_s=99.0))["impl"] != before["impl"]


def test_a_run_records_the_inputs_it_ran_against(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(runner, "_run_suite", lambda *_: (0, 0.0))
    monkeypatch.setattr(runner, "describe", lambda *_: {})
    monkeypatch.setattr(runner, "_probe", lambda _: {})
    monkeypatch.setenv("STSPEC_MATRIX_DIR", str(tmp_path / "envs"))
    impl = by_name("npm-safetensors")
    out = runner.run(impl, tmp_path)
    assert json.loads(out.read_text())["inputs"] == inputs.inputs(impl)


@pytest.mark.parametrize(
    ("given", "kept"),
    [
        ("6f0c2a9d1e3b4c5d", "6f0c2a9d1e3b4c5d"),
        ("rep1", "rep1"),
        ("", None),
        ("x" * 65, None),
        ("a\nb", None),
        ("\x1b[2J", None),
        (12, None),
        (None, None),
    ],
)
def test_only_a_seed_the_suite_could_make_is_recorded(
    given: object, kept: object
) -> None:
    assert runner.corpus_seed({"corpus_seed": given}) == kept
