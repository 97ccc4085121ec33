"""The smoke gate: a row whose wrapper works passes, a broken one is stopped."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

import pytest
from matrix import envs, rows, runner, smoke

if TYPE_CHECKING:
    from pathlib import Path

    from matrix.impls import Impl

WORKING: dict[str, Any] = {
    "implementation": {
        "name": "mine",
        "described": {"name": "mine", "capabilities": {"read_dtypes": ["F32"]}},
    },
    "cases": {
        "y_dtype_f32_values": {"outcome": "accepted", "ok": True},
        # the library accepted an invalid file: a finding, not a broken row
        "n_layout_bounds_buffer_short": {"outcome": "accepted", "ok": False},
    },
}


def _broken(**changes: Any) -> dict[str, Any]:
    broken: dict[str, Any] = json.loads(json.dumps(WORKING))
    for key, value in changes.items():
        where, _, field = key.partition("__")
        if where == "case":
            broken["cases"][field] = value
        else:
            broken["implementation"]["described"] = value
    return broken


def test_a_working_wrapper_passes_whatever_the_library_does() -> None:
    assert smoke.gate(WORKING) == []
    crashing = _broken(case__n_layout_bounds_buffer_short={"outcome": "crashed"})
    assert smoke.gate(crashing) == []


@pytest.mark.parametrize(
    ("result", "problem"),
    [
        ({"setup_error": "npm ERR! 404"}, "set-up failed: npm ERR! 404"),
        (
            _broken(described={"error": ["ModuleNotFoundError: No module named 'x'"]}),
            "could not describe the wrapper: ModuleNotFoundError: No module named 'x'",
        ),
        (_broken(described={"name": "mine"}), "could not describe the wrapper"),
        (_broken(case__y_dtype_f32_values=None), "y_dtype_f32_values: did not run"),
        (
            _broken(
                case__y_dtype_f32_values={
                    "outcome": "wrong-content",
                    "ok": False,
                    "detail": "t: bytes differ",
                }
            ),
            "not loaded as the reference loads them (wrong-content: t: bytes differ)",
        ),
        (
            _broken(case__y_dtype_f32_values={"outcome": "rejected", "ok": False}),
            "float32 tensors were not loaded",
        ),
        (
            _broken(
                case__n_layout_bounds_buffer_short={
                    "outcome": "invalid-output",
                    "ok": False,
                }
            ),
            "n_layout_bounds_buffer_short: the wrapper broke the protocol",
        ),
    ],
)
def test_a_broken_row_fails_the_gate_saying_why(
    result: dict[str, Any], problem: str
) -> None:
    assert any(problem in said for said in smoke.gate(result)), smoke.gate(result)


def test_a_row_file_that_fails_its_check_is_neither_set_up_nor_run(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    def refuse(*_: object, **__: object) -> None:
        raise AssertionError("nothing may be set up or run")

    monkeypatch.setattr(envs, "setup", refuse)
    monkeypatch.setattr(runner, "run", refuse)
    row = tmp_path / "mine.toml"
    row.write_text(rows.dumps(rows.load(rows.ROWS / "mlx.toml")))  # named mlx
    assert smoke.main([str(row)]) == 1
    assert "name: 'mlx' is not the file's name" in capsys.readouterr().err


def test_the_gate_judges_the_smoke_cases_of_the_row_it_set_up(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    set_up: list[str] = []
    selected: list[str | None] = []

    def run(impl: Impl, results: Path, **options: Any) -> Path:
        selected.append(options["select"])
        out = results / f"{impl.name}.json"
        out.write_text(json.dumps(_broken(case__y_dtype_f32_values=None)))
        return out

    monkeypatch.setattr(envs, "setup", lambda impl: set_up.append(impl.name))
    monkeypatch.setattr(runner, "run", run)
    assert smoke.main([str(rows.ROWS / "mlx.toml"), "--results", str(tmp_path)]) == 1
    assert set_up == ["mlx"]
    assert selected == ["y_dtype_f32_values or n_layout_bounds_buffer_short"]
    said = capsys.readouterr()
    assert "mlx.toml: y_dtype_f32_values: did not run" in said.err
    assert "mlx.toml: FAILED the smoke gate" in said.out
