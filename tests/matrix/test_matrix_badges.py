"""Scores and badges: what the results say, in a form shields.io and people read."""

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import jsonschema  # type: ignore[import-untyped]
import pytest
from matrix import badges, render, render_data
from matrix.scores import Score, not_the_library, score

REPO = Path(__file__).resolve().parents[2]
SCHEMA = json.loads((REPO / "matrix" / badges.BADGE_SCHEMA).read_text("utf-8"))


def _score(**changes: int) -> Score:
    fields = {
        "valid_right": 91, "valid_total": 91, "invalid_rejected": 245,
        "invalid_total": 245, "crashes": 0, "differentials": 0,
        "tests_passed": 76, "tests_total": 76, "not_applicable": 0,
    }  # fmt: skip
    return Score(**{**fields, **changes})


def test_score_counts_each_outcome_class() -> None:
    classes = [
        ("valid", "ok-accept"), ("valid", "wrong-content"),
        ("valid", "not-applicable"), ("invalid", "ok-reject"),
        ("invalid", "should-reject"), ("invalid", "crashed"),
        ("tolerated", "i-accept"), ("tolerated", "hung"),
    ]  # fmt: skip
    tests = {
        "a": {"ok": True, "outcome": "accepted"},
        "b": {"ok": False, "outcome": "accepted"},
        "c": {"ok": True, "outcome": "not-applicable"},
    }
    got = score({"tests": tests}, classes, differentials=3)
    assert (got.valid_right, got.valid_total) == (1, 2)
    assert (got.invalid_rejected, got.invalid_total) == (1, 3)
    assert got.crashes == 2  # a crash and a hang
    assert (got.tests_passed, got.tests_total) == (1, 2)
    assert got.not_applicable == 2
    assert got.differentials == 3
    assert got.dangerous


@pytest.mark.parametrize(
    ("changes", "message", "colour"),
    [
        ({}, "412/412 (100%)", "brightgreen"),
        ({"tests_passed": 75}, "411/412 (99.7%)", "green"),
        # one crash: the share is still 100 % of answers, the colour is capped
        ({"crashes": 1}, "412/412 (100%)", "orange"),
        ({"invalid_rejected": 244}, "411/412 (99.7%)", "orange"),
        ({"invalid_rejected": 100}, "267/412 (64.8%)", "red"),
        ({"valid_right": 0, "invalid_rejected": 0, "tests_passed": 0},
         "0/412 (0%)", "red"),
    ],
)  # fmt: skip
def test_badge_message_and_colour(
    changes: dict[str, int], message: str, colour: str
) -> None:
    made = badges.badge(_score(**changes))
    jsonschema.validate(made, SCHEMA)
    assert made["message"] == message
    assert made["color"] == colour


def test_badge_never_rounds_up_to_full_marks() -> None:
    # 9,999 of 10,000 is 99.99 %: shown as 99.9 %, never as 100 %
    made = badges.badge(_score(tests_passed=9_999 - 336, tests_total=10_000 - 336))
    assert made["message"] == "9999/10000 (99.9%)"


def test_schema_refuses_what_shields_refuses() -> None:
    for bad in (
        {"label": "x", "message": "y"},  # no schemaVersion
        {"schemaVersion": 2, "label": "x", "message": "y"},
        {"schemaVersion": 1, "label": "x", "message": ""},
        {"schemaVersion": 1, "label": "x", "message": "y", "colour": "red"},
    ):
        with pytest.raises(jsonschema.ValidationError):
            jsonschema.validate(bad, SCHEMA)


def _published(folder: Path) -> dict[str, bytes]:
    """Every file ``python -m matrix render`` writes: the pages, badges, findings."""
    return {
        path.relative_to(folder).as_posix(): path.read_bytes()
        for path in sorted(folder.rglob("*"))
        if path.is_file()
        and (
            path.parent.name in {"badges", "findings"}
            or (path.parent == folder and path.suffix in {".md", ".html"})
        )
    }


def test_committed_results_are_what_render_makes(tmp_path: Path) -> None:
    """results/ (page, table, badges, findings) is what the command makes from
    the runs alone: a hand edit, or a page made by other code, fails here."""
    out = tmp_path / "results"
    out.mkdir()
    for run in (REPO / "results").glob("*.json"):
        shutil.copy(run, out / run.name)
    # the page's history and interop sections come from these
    shutil.copy(REPO / "results" / "history.jsonl", out / "history.jsonl")
    (out / "interop").mkdir()
    shutil.copy(
        REPO / "results" / "interop" / "grid.json", out / "interop" / "grid.json"
    )
    subprocess.run(
        [sys.executable, "-m", "matrix", "render", "--results", str(out)],
        check=True, cwd=REPO, capture_output=True, timeout=300,
    )  # fmt: skip
    made, committed = _published(out), _published(REPO / "results")
    assert sorted(made) == sorted(committed)
    stale = [name for name in made if made[name] != committed[name]]
    # a change to the corpus, the scores or the pages changes them all
    assert stale == [], f"run python -m matrix render; these differ: {stale}"
    for name in made:
        if name.startswith("badges/"):
            jsonschema.validate(json.loads(made[name]), SCHEMA)
    # and again, in this process: the same bytes
    render.render_dir(out)
    assert _published(out) == made


def test_stale_badges_are_removed(tmp_path: Path) -> None:
    (tmp_path / "badges").mkdir()
    (tmp_path / "badges" / "gone.json").write_text("{}")
    badges.write_badges(tmp_path, {"kept": _score()})
    assert [p.name for p in (tmp_path / "badges").iterdir()] == ["kept.json"]


def test_snippet_links_the_badge_to_the_results_page() -> None:
    text = badges.snippet("hf-0.8.0")
    assert text.startswith(
        "[![safetensors conformance](https://img.shields.io/endpoint?url="
    )
    assert f"{badges.SITE}/results/badges/hf-0.8.0.json)" in text
    assert text.endswith(f"({badges.SITE}/results/index.html)")


def test_the_site_serves_every_badge() -> None:
    """The published site holds results/badges/NAME.json, as the snippet links."""
    built = os.environ.get("STSPEC_DOCS_BUILT")
    if not built:
        message = "the docs site is not built (python docs/build_site.py OUT)"
        if os.environ.get("CI"):
            pytest.fail(message + "; .ci/run sets STSPEC_DOCS_BUILT")
        pytest.skip(message)
    served = Path(built) / "results" / "badges"
    committed = sorted((REPO / "results" / "badges").glob("*.json"))
    assert committed
    for badge in committed:
        assert (served / badge.name).read_bytes() == badge.read_bytes(), badge.name


_WRAPPERS_HANG = "y_layout_50000_tensors"


def _row(name: str, outcome: str) -> dict[str, object]:
    crashed = {"outcome": outcome, "ok": outcome == "accepted"}
    return {
        "implementation": {"name": name},
        "cases": {
            _WRAPPERS_HANG: crashed,
            "y_example_readme_metadata": {"outcome": "accepted", "ok": True},
        },
        "tests": {},
    }


def test_a_case_the_wrapper_caused_counts_in_no_score_and_no_badge() -> None:
    # findings.toml records georefine-verify's hang on y_layout_50000_tensors
    # as the wrapper's doing (its loopback server shared the CPU time)
    assert _WRAPPERS_HANG in not_the_library("georefine-verify")
    cases = [
        {"id": _WRAPPERS_HANG, "verdict": "valid"},
        {"id": "y_example_readme_metadata", "verdict": "valid"},
    ]
    # the same failure in a row without that record counts against it
    got = render_data.scores(
        [_row("georefine-verify", "crashed"), _row("other", "crashed")], cases
    )
    ours, other = got["georefine-verify"], got["other"]
    assert (ours.crashes, ours.valid_right, ours.valid_total) == (0, 1, 1)
    assert (other.crashes, other.valid_right, other.valid_total) == (1, 1, 2)
    assert not ours.dangerous
    assert badges.badge(ours)["message"] == "1/1 (100%)"
    assert badges.badge(other)["color"] != "brightgreen"
