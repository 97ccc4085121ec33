"""The history of matrix runs: recorded once per result, seeded from git, its views."""

from __future__ import annotations

import json
import subprocess
import sys
from typing import TYPE_CHECKING, Any

import matrix.__main__ as matrix_main
import pytest
from matrix import envs, history, render_history, runner, schedule
from matrix.impls import by_name

if TYPE_CHECKING:
    from pathlib import Path


def _result(
    outcomes: dict[str, tuple[bool, str]], version: str = "1.0"
) -> dict[str, Any]:
    return {
        "implementation": {"title": "x", "described": {"version": version}},
        "environment": {"pins": {"pip": [f"x=={version}"]}},
        "suite": {"commit": "c" * 40},
        "inputs": {"suite": "d" * 64},
        "run": {"complete": True},
        "cases": {k: {"ok": ok, "outcome": o} for k, (ok, o) in outcomes.items()},
    }


@pytest.fixture
def readers(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> list[str]:
    data = tmp_path / "interop.toml"
    data.write_text(
        '[headline]\nreaders = ["a", "b", "c"]\n[lines]\n"L" = ["a", "b"]\n'
    )
    monkeypatch.setattr(history, "DATA", data)
    return ["a", "b", "c"]


def test_a_row_entry_counts_each_group_from_the_cases() -> None:
    result = _result(
        {
            "y_one": (True, "accepted"),
            "y_two": (False, "rejected"),
            "n_one": (True, "rejected"),
            "x_one": (False, "accepted"),  # a multi-fault file is invalid too
            "i_one": (True, "accepted"),
        }
    )
    entry = history.row_entry("x", result, "f" * 64, "2026-01-01T00:00:00+00:00")
    assert (entry["valid"], entry["invalid"], entry["tolerated"]) == (
        [1, 2],
        [1, 2],
        [1, 1],
    )
    assert (entry["version"], entry["suite_digest"]) == ("1.0", "d" * 64)


@pytest.mark.usefixtures("readers")
def test_the_headline_counts_a_case_only_when_every_reader_agrees() -> None:
    good = {
        "y_1": (True, "accepted"),
        "y_2": (True, "accepted"),
        "n_1": (True, "rejected"),
        "x_1": (True, "rejected"),
        "x_2": (True, "rejected"),
    }
    # b loads y_2 wrongly and accepts n_1 and x_2: none is interoperable; the
    # multi-fault x_ files count among the invalid cases
    bad = {
        "y_1": (True, "accepted"),
        "y_2": (False, "wrong-content"),
        "n_1": (False, "accepted"),
        "x_1": (True, "rejected"),
        "x_2": (False, "accepted"),
    }
    rows = {"a": _result(good), "b": _result(bad), "other": _result(bad)}
    entry = history.interop_entry(rows, {"a": "1", "b": "2", "other": "3"}, "d")
    assert entry is not None
    assert (entry["valid_same"], entry["invalid_refused"]) == ([1, 2], [1, 3])
    assert (entry["readers"], entry["missing"]) == (["a", "b"], ["c"])


@pytest.mark.usefixtures("readers")
def test_a_reader_missing_a_case_does_not_agree_on_it() -> None:
    rows = {
        "a": _result({"y_1": (True, "accepted")}),
        "b": _result({"y_2": (True, "accepted")}),
    }
    entry = history.interop_entry(rows, {"a": "1", "b": "2"}, "d")
    assert entry is not None
    assert entry["valid_same"] == [0, 2]


@pytest.mark.usefixtures("readers")
def test_recording_twice_adds_nothing_and_a_new_result_adds_its_line(
    tmp_path: Path,
) -> None:
    results = tmp_path / "results"
    results.mkdir()
    (results / "a.json").write_text(json.dumps(_result({"y_1": (True, "accepted")})))
    (results / "b.json").write_text(json.dumps(_result({"y_1": (True, "accepted")})))
    assert history.record(results, date="2026-01-01") == 3  # two rows, one headline
    assert history.record(results, date="2026-01-02") == 0
    (results / "b.json").write_text(
        json.dumps(_result({"y_1": (False, "rejected")}, "2"))
    )
    assert history.record(results, ["b"], date="2026-01-03") == 2
    lines = history.read(results / history.FILE)
    assert [(e["kind"], e.get("row"), e["date"]) for e in lines[-2:]] == [
        ("row", "b", "2026-01-03"),
        ("interop", None, "2026-01-03"),
    ]
    assert lines[-1]["valid_same"] == [0, 1]


@pytest.mark.usefixtures("readers")
def test_seeding_reads_every_committed_version_dated_by_its_commit(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    repo = tmp_path / "repo"
    (repo / "results").mkdir(parents=True)

    def git(*args: str, date: str = "2026-01-01T00:00:00+00:00") -> None:
        env = {
            "GIT_COMMITTER_DATE": date,
            "GIT_AUTHOR_DATE": date,
            "HOME": str(tmp_path),
        }
        subprocess.run(
            ["git", "-c", "user.name=t", "-c", "user.email=t@t", *args],  # noqa: S607
            cwd=repo, check=True, capture_output=True, env=env,
        )  # fmt: skip

    git("init", "-q")
    (repo / "results" / "a.json").write_text(
        json.dumps(_result({"y_1": (True, "accepted")}))
    )
    git("add", "-A")
    git("commit", "-qm", "one", date="2026-01-01T00:00:00+00:00")
    (repo / "results" / "a.json").write_text(
        json.dumps(_result({"y_1": (False, "rejected")}, "2"))
    )
    (repo / "results" / "b.json").write_text(
        json.dumps(_result({"y_1": (True, "accepted")}))
    )
    git("add", "-A")
    git("commit", "-qm", "two", date="2026-02-01T00:00:00+00:00")
    monkeypatch.setattr(envs, "REPO", repo)
    out = tmp_path / "history.jsonl"
    assert history.seed_from_git(out) == 5
    lines = history.read(out)
    rows = [
        (e["row"], e["date"][:10], e["version"]) for e in lines if e["kind"] == "row"
    ]
    assert rows == [
        ("a", "2026-01-01", "1.0"),
        ("a", "2026-02-01", "2"),
        ("b", "2026-02-01", "1.0"),
    ]
    headlines = [
        (e["readers"], e["valid_same"]) for e in lines if e["kind"] == "interop"
    ]
    assert headlines == [(["a"], [1, 1]), (["a", "b"], [0, 1])]


def test_the_readers_and_lines_named_in_the_data_are_rows_of_the_matrix() -> None:
    for name in history.headline_readers():
        by_name(name)
    for rows in history.lines().values():
        for name in rows:
            by_name(name)


def _row(name: str, date: str, valid: list[int], invalid: list[int]) -> dict[str, Any]:
    return {
        "kind": "row", "row": name, "date": date, "version": f"0.{ord(name) - 96}",
        "valid": valid, "invalid": invalid, "tolerated": [1, 1],
    }  # fmt: skip


@pytest.mark.usefixtures("readers")
def test_the_views_show_the_latest_headline_each_trend_and_the_version_line() -> None:
    entries = [
        _row("b", "2026-01-02", [2, 4], [3, 4]),
        _row("a", "2026-01-01", [1, 4], [2, 4]),
        _row("a", "2026-01-03", [4, 4], [4, 4]),
        {"kind": "interop", "date": "2026-01-01", "readers": ["a"],
         "missing": ["b", "c"], "valid_same": [1, 4], "invalid_refused": [2, 4]},
        {"kind": "interop", "date": "2026-01-03", "readers": ["a", "b"],
         "missing": ["c"], "valid_same": [2, 4], "invalid_refused": [3, 4]},
    ]  # fmt: skip
    sentence = render_history.headline_sentence(entries)
    assert sentence.startswith("Interop: 2/4 (50%) of the valid corpus cases")
    assert "3/4 (75%) of the invalid cases" in sentence
    assert sentence.endswith("Not in that run: c.")
    text = render_history.history_markdown(entries)
    assert "| a | 2 | 2026-01-01: valid 1/4 (25%), invalid 2/4 (50%) " in text
    assert "| 2/4 → 4/4 |" in text
    # the line "L" names a then b (interop.toml order), each at its latest run
    line = text[text.index("## L, version by version") :]
    assert line.index("| 0.1 | 4/4 (100%)") < line.index("| 0.2 | 2/4 (50%)")
    page = "".join(render_history.history_html(entries))
    assert '<h2 id="history">' in page
    assert "<td>2026-01-03</td><td>2</td><td>2/4 (50%)</td>" in page


def test_no_history_is_no_section() -> None:
    assert render_history.history_html([]) == []
    assert render_history.headline_sentence([]) == ""


@pytest.mark.parametrize(("extra", "recorded"), [([], True), (["-k", "writer"], False)])
def test_a_complete_run_is_recorded_and_a_partial_one_is_not(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, extra: list[str], recorded: bool
) -> None:
    def run_rows(rows: list[Any], results: Path, *_: object) -> list[str]:
        for impl in rows:
            result = _result({"y_1": (True, "accepted")})
            (results / f"{impl.name}.json").write_text(json.dumps(result))
        return []

    monkeypatch.setattr(schedule, "run_rows", run_rows)
    monkeypatch.setattr(runner, "pass_sigint", lambda: None)
    argv = ["run", "--only", "reference", "--python", sys.executable]
    assert matrix_main.main([*argv, "--results", str(tmp_path), *extra]) == 0
    lines = history.read(tmp_path / history.FILE)
    assert [e["row"] for e in lines if e["kind"] == "row"] == (
        ["reference"] if recorded else []
    )
