"""Rule coverage and the command line of stspec_corpus."""

from __future__ import annotations

import importlib
import json
import sys
from pathlib import Path

import pytest

import stspec_corpus
from stspec.rules import RULES
from stspec_corpus import _lint
from stspec_corpus._cli import main

CORPUS = Path(__file__).resolve().parents[2] / "corpus"


def test_every_reader_rule_is_covered() -> None:
    rows = stspec_corpus.coverage()
    assert [row.rule for row in rows] == [r.id for r in RULES if r.scope == "reader"]
    assert stspec_corpus.coverage_gaps(rows) == []
    for row in rows:
        prefix = "n_" if row.level == "MUST" else "i_"
        assert all(case_id.startswith(prefix) for case_id in row.breaking)
        assert all(case_id.startswith("y_") for case_id in row.boundary)


def test_a_gap_is_reported() -> None:
    cases = [c for c in stspec_corpus.all_cases() if "LAYOUT-HOLE" not in c.rules]
    gaps = stspec_corpus.coverage_gaps(stspec_corpus.coverage(cases))
    assert "LAYOUT-HOLE: no n_ case breaks only this rule" in gaps
    assert "LAYOUT-HOLE: no y_ case at its boundary" in gaps
    assert "<-- GAP" in stspec_corpus.coverage_table(stspec_corpus.coverage(cases))


def test_coverage_command(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["coverage"]) == 0
    out = capsys.readouterr().out
    for rule in RULES:
        assert (rule.id in out) == (rule.scope == "reader")
    assert "0 with a gap" in out


def test_generate_check_and_lint_commands(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["generate", "--out", str(tmp_path)]) == 0
    assert "manifest entries" in capsys.readouterr().out
    assert main(["check", "--dir", str(tmp_path)]) == 0
    (tmp_path / "files" / "y_prefix_smallest_file.safetensors").write_bytes(b"")
    assert main(["check", "--dir", str(tmp_path)]) == 1
    assert "y_prefix_smallest_file" in capsys.readouterr().out
    assert main(["lint", "--dir", str(CORPUS), "--no-recipes"]) == 0
    assert "no problems" in capsys.readouterr().out


def test_lint_finds_problems(tmp_path: Path) -> None:
    stspec_corpus.generate(tmp_path)
    manifest = json.loads((tmp_path / "manifest.json").read_text("utf-8"))
    manifest["cases"][0]["verdict"] = "valid"
    (tmp_path / "manifest.json").write_text(json.dumps(manifest), "utf-8")
    (tmp_path / "files" / "unlisted.bin").write_bytes(b"")
    problems = stspec_corpus.lint(tmp_path, recipes=False)
    first = manifest["cases"][0]["id"]
    assert f"{first}: verdict valid disagrees with the prefix" in problems
    assert "files/unlisted.bin: not listed in the manifest" in problems
    assert "manifest.json: differs from a fresh generation" in problems
    assert any(p.startswith("manifest cases/0") for p in problems)
    assert _lint.lint_entries(tmp_path)


def test_materialise_and_expected_commands(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["materialise", "n_prefix_header_over_limit", str(tmp_path)]) == 0
    made = Path(capsys.readouterr().out.strip())
    assert made.stat().st_size == 100_000_009
    assert main(["expected", "y_dtype_f4_values"]) == 0
    shown = json.loads(capsys.readouterr().out)
    assert shown["tensors"]["t"]["values"][:3] == ["0.0", "0.5", "1.0"]
    assert main(["materialise", "n_nope", str(tmp_path)]) == 2
    assert main(["expected", "n_nope"]) == 2
    assert "n_nope" in capsys.readouterr().err


def test_module_entry_point(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(sys, "argv", ["stspec_corpus", "coverage"])
    monkeypatch.delitem(sys.modules, "stspec_corpus.__main__", raising=False)
    # what `python -m stspec_corpus` runs, imported: pytest's assertion rewriter
    # gives runpy no code object for the package's modules
    with pytest.raises(SystemExit) as caught:
        importlib.import_module("stspec_corpus.__main__")
    assert caught.value.code == 0
    assert "FILE-PREFIX" in capsys.readouterr().out
