"""matrix/notes.toml explains every outcome that changed since the previous run."""

import json
from pathlib import Path

import pytest
from matrix import notes, render_data, render_html, render_md

REPO = Path(__file__).resolve().parents[2]


def _run(name: str, got: dict[str, tuple[str, bool]]) -> dict[str, object]:
    entries = {key: {"outcome": o, "ok": ok} for key, (o, ok) in got.items()}
    return {
        "implementation": {"name": name},
        "cases": {k: v for k, v in entries.items() if not k.startswith("test_")},
        "tests": {k: v for k, v in entries.items() if k.startswith("test_")},
    }


OLD = {
    "n_bomb": ("rejected", True),
    "y_one": ("accepted", True),
    "test_writer": ("passed", True),
}
NEW = {
    "n_bomb": ("accepted", False),
    "y_one": ("accepted", True),
    "test_writer": ("passed", True),
    "n_added": ("rejected", True),
}


def _notes(tmp_path: Path, changes: str, new: str = '["n_added"]') -> notes.Notes:
    old = notes.fingerprint(notes.outcomes(_run("x", OLD)))
    text = f'new = {new}\n[previous."x"]\noutcomes = "{old}"\n{changes}'
    path = tmp_path / "notes.toml"
    path.write_text(text, encoding="utf-8")
    return notes.load(path)


NOTE = """
[[change]]
impl = "x"
id = "n_bomb"
before = "rejected/pass"
after = "%s"
rule = "JSON-DEPTH"
why = "the wrapper no longer decides"
"""


def test_the_committed_notes_explain_every_changed_outcome() -> None:
    found = notes.problems(notes.load(), render_data.load_results(REPO / "results"))
    assert found == []


def test_every_note_names_its_rule_and_says_why() -> None:
    for change in notes.load().changes:
        assert change.rule, change
        assert len(change.why) > 20, change


def test_a_change_without_a_note_is_found(tmp_path: Path) -> None:
    found = notes.problems(_notes(tmp_path, ""), [_run("x", NEW)])
    assert len(found) == 1
    assert "x: results/x.json differs from the previous published run" in found[0]


def test_a_noted_change_and_a_new_case_pass(tmp_path: Path) -> None:
    explained = _notes(tmp_path, NOTE % "accepted/fail")
    assert notes.problems(explained, [_run("x", NEW)]) == []


def test_a_case_not_listed_as_new_is_a_change(tmp_path: Path) -> None:
    explained = _notes(tmp_path, NOTE % "accepted/fail", new="[]")
    assert len(notes.problems(explained, [_run("x", NEW)])) == 1


def test_a_case_no_longer_run_needs_a_note(tmp_path: Path) -> None:
    old = {**OLD, "y_dense": ("hung", False)}
    path = tmp_path / "notes.toml"
    fingerprint = notes.fingerprint(notes.outcomes(_run("x", old)))
    path.write_text(
        f'new = ["n_added"]\n[previous."x"]\noutcomes = "{fingerprint}"\n'
        + NOTE % "accepted/fail",
        encoding="utf-8",
    )
    assert len(notes.problems(notes.load(path), [_run("x", NEW)])) == 1
    gone = NOTE.replace("n_bomb", "y_dense").replace("rejected/pass", "hung/fail")
    path.write_text(path.read_text() + gone % notes.NOT_RUN, encoding="utf-8")
    assert notes.problems(notes.load(path), [_run("x", NEW)]) == []


def test_a_case_the_previous_run_did_not_reach_is_a_change(tmp_path: Path) -> None:
    explained = _notes(tmp_path, NOTE % "accepted/fail", new="[]")
    reached = NOTE.replace("n_bomb", "n_added").replace("rejected/pass", "not run")
    path = tmp_path / "notes.toml"
    path.write_text(path.read_text() + reached % "rejected/pass", encoding="utf-8")
    assert notes.problems(explained, [_run("x", NEW)]) != []
    assert notes.problems(notes.load(path), [_run("x", NEW)]) == []


def test_a_note_that_says_another_outcome_is_found(tmp_path: Path) -> None:
    wrong = _notes(tmp_path, NOTE % "crashed/fail")
    found = notes.problems(wrong, [_run("x", NEW)])
    assert (
        "x: the note on n_bomb says it is now crashed/fail, "
        "results/x.json has accepted/fail"
    ) in found


def test_a_note_on_an_implementation_without_a_previous_run_is_found(
    tmp_path: Path,
) -> None:
    path = tmp_path / "notes.toml"
    path.write_text((NOTE % "accepted/fail").replace('"x"', '"y"'), encoding="utf-8")
    found = notes.problems(notes.load(path), [_run("y", NEW)])
    assert found == ["the note on y n_bomb has no [previous.y]"]


def test_the_pages_show_each_change(tmp_path: Path) -> None:
    explained = _notes(tmp_path, NOTE % "accepted/fail")
    results = [_run("x", NEW)]
    table = render_md.render_markdown(results, [], changes=explained)
    assert "## Changes since the previous published run" in table
    row = "| x | 1 rejected/pass → accepted/fail | JSON-DEPTH | the wrapper"
    assert row in table
    page = render_html.render_html(results, [], changes=explained)
    assert "<span class=id>n_bomb</span>" in page
    # a note on an implementation not on the page is not shown
    assert "n_bomb" not in render_md.render_markdown(
        [_run("z", NEW)], [], changes=explained
    )


def test_changes_for_one_reason_are_one_line(tmp_path: Path) -> None:
    """A rerun that moves 41 outcomes for one reason says the reason once."""
    same = "".join(
        NOTE.replace("n_bomb", case) % after
        for case, after in (
            ("n_bomb", "accepted/fail"),
            ("n_two", "accepted/fail"),
            ("n_three", "crashed/fail"),
        )
    )
    other = NOTE.replace("n_bomb", "n_four").replace("the wrapper", "the suite")
    explained = _notes(tmp_path, same + other % "accepted/fail")
    (first, second) = notes.groups(explained, ["x"])
    assert [c.id for c in first.changes] == ["n_bomb", "n_two", "n_three"]
    assert first.moves() == (
        "2 rejected/pass → accepted/fail, 1 rejected/pass → crashed/fail"
    )
    assert [c.id for c in second.changes] == ["n_four"]
    page = render_html.render_html([_run("x", NEW)], [], changes=explained)
    section = page.split('id="changes-table"')[1].split("</table>")[0]
    assert section.count("<tr class=change>") == 2
    assert section.count("the wrapper no longer decides") == 1
    table = render_md.render_markdown([_run("x", NEW)], [], changes=explained)
    assert table.count("the wrapper no longer decides") == 1


def test_the_change_log_comes_below_the_grid(tmp_path: Path) -> None:
    explained = _notes(tmp_path, NOTE % "accepted/fail")
    page = render_html.render_html([_run("x", NEW)], [], changes=explained)
    assert page.index('id="pruned-table"') < page.index('id="changes-table"')
    assert page.index('id="scores"') < page.index('id="pruned-table"')


def test_the_command_lists_changed_and_new_ids(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    old, new = tmp_path / "old.json", tmp_path / "new.json"
    old.write_text(json.dumps(_run("x", OLD)), encoding="utf-8")
    new.write_text(json.dumps(_run("x", NEW)), encoding="utf-8")
    assert notes.main([str(old), str(new)]) == 0
    out = capsys.readouterr().out
    assert "changed n_bomb: rejected/pass -> accepted/fail" in out
    assert "new (1): n_added" in out
    fingerprint = notes.fingerprint(notes.outcomes(_run("x", OLD)))
    assert f'[previous."x"]\noutcomes = "{fingerprint}"' in out
