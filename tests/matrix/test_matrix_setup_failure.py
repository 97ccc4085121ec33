"""An implementation whose set-up fails keeps its row, with the reason, no score."""

import json
from pathlib import Path

import pytest
from matrix import __main__ as cli
from matrix import envs, render


def test_a_failed_setup_is_a_row_with_its_reason_never_a_score(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def refuse(impl: object) -> None:
        message = f"npm ERR! 404 for {impl.name}"  # type: ignore[attr-defined]
        raise RuntimeError(message)

    monkeypatch.setattr(envs, "setup", refuse)
    status = cli.main(
        [
            "setup",
            "--only",
            "npm-safetensors",
            "--keep-going",
            "--results",
            str(tmp_path),
        ]
    )
    assert status == 1
    record = json.loads((tmp_path / "npm-safetensors.json").read_text())
    assert "404" in record["setup_error"]
    assert record["implementation"]["name"] == "npm-safetensors"
    render.render_dir(tmp_path)
    table = (tmp_path / "matrix.md").read_text()
    row = next(line for line in table.splitlines() if "npm safetensors 0.0.1" in line)
    assert "set-up failed: RuntimeError: npm ERR! 404" in row
    assert "/245" not in row  # no score
    assert "/91" not in row
    page = (tmp_path / "index.html").read_text()
    assert "set-up failed: RuntimeError: npm ERR! 404" in page
    assert not (tmp_path / "badges" / "npm-safetensors.json").exists()
