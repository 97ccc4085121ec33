"""results/*.json -> matrix.md and index.html: classes, bytes, determinism."""

import html
import json
import re
from pathlib import Path

import pytest
from matrix import (
    findings,
    history,
    inputs,
    render,
    render_data,
    render_dump,
    render_html,
    render_md,
    render_safety,
    render_suite,
    scrub,
)
from matrix.impls import UNAVAILABLE

REPO = Path(__file__).resolve().parents[2]


def _result(name: str, cases: dict[str, dict[str, object]]) -> dict[str, object]:
    return {
        "implementation": {
            "name": name,
            "title": f"{name} 1.0",
            "language": "Python",
            "described": {
                "capabilities": {"header_only": name == "b", "read_dtypes": ["F32"]}
            },
        },
        "run": {"seconds": 1, "complete": True},
        "cases": cases,
        "tests": {"test_writer_dtype[F32]": {"outcome": "passed", "ok": True}},
    }


@pytest.mark.parametrize(
    ("verdict", "entry", "expected"),
    [
        ("valid", {"outcome": "accepted", "ok": True}, "ok-accept"),
        ("valid", {"outcome": "accepted", "ok": False}, "wrong-content"),
        ("valid", {"outcome": "rejected", "ok": False}, "should-accept"),
        ("invalid", {"outcome": "rejected", "ok": True}, "ok-reject"),
        ("invalid", {"outcome": "accepted", "ok": False}, "should-reject"),
        ("invalid", {"outcome": "wrong-content", "ok": False}, "should-reject"),
        ("tolerated", {"outcome": "accepted", "ok": True}, "i-accept"),
        ("tolerated", {"outcome": "accepted", "ok": False}, "wrong-content"),
        ("tolerated", {"outcome": "rejected", "ok": True}, "i-reject"),
        ("invalid", {"outcome": "crashed", "ok": False}, "crashed"),
        ("valid", {"outcome": "hung", "ok": False}, "hung"),
        ("valid", {"outcome": "resource", "ok": False}, "resource"),
        ("valid", {"outcome": "not-applicable", "ok": False}, "not-applicable"),
        ("valid", None, "missing"),
    ],
)
def test_cell_class(
    verdict: str, entry: dict[str, object] | None, expected: str
) -> None:
    assert render_data.cell_class(verdict, entry) == expected


def test_bytes_show_the_header_as_text_and_mark_non_printables() -> None:
    header = b'{"a\x00":{"dtype":"U8","shape":[1],"data_offsets":[0,1]}}\xff'
    data = len(header).to_bytes(8, "little") + header + b"\x07"
    shown = render_dump.dump_bytes(data)
    assert f"N={len(header)}" in shown
    assert "&quot;dtype&quot;:&quot;U8&quot;" in shown
    assert '<span class="np">&lt;00&gt;</span>' in shown
    assert '<span class="np">&lt;FF&gt;</span>' in shown
    assert "data: 07" in shown


def test_bytes_of_a_short_or_truncated_file() -> None:
    assert "shorter than 8 bytes" in render_dump.dump_bytes(b"\x01\x02")
    claims_more = (100).to_bytes(8, "little") + b"{}"
    assert "file is 10 bytes" in render_dump.dump_bytes(claims_more)


@pytest.fixture
def results_dir(tmp_path: Path) -> Path:
    cases_a = {
        "y_dtype_f32_values": {"outcome": "accepted", "ok": True},
        "n_layout_hole_between_tensors": {"outcome": "accepted", "ok": False},
    }
    cases_b = {
        "y_dtype_f32_values": {"outcome": "rejected", "ok": False},
        "n_layout_hole_between_tensors": {
            "outcome": "crashed",
            "ok": False,
            "crash": "signal 11",
        },
    }
    for name, cases in (("a", cases_a), ("b", cases_b)):
        (tmp_path / f"{name}.json").write_text(json.dumps(_result(name, cases)))
    return tmp_path


def test_render_is_deterministic_and_complete(results_dir: Path) -> None:
    render.render_dir(results_dir)
    page = (results_dir / "index.html").read_text()
    table = (results_dir / "matrix.md").read_text()
    render.render_dir(results_dir)
    assert (results_dir / "index.html").read_text() == page
    assert (results_dir / "matrix.md").read_text() == table
    manifest = json.loads((REPO / "corpus" / "manifest.json").read_text())
    # every case but the on-request dense header, which no sample result ran
    assert page.count('class="case"') == len(manifest["cases"]) - 1
    assert 'href="../spec/SPEC.md#layout-hole"' in page
    assert "signal 11" in page
    assert "http" not in page.split("<body>")[0]  # no external assets in the head
    # the summary row of "a": one y_ ok, one n_ accepted
    row = next(line for line in table.splitlines() if line.startswith("| a 1.0"))
    assert "| header-only" not in row
    assert "`n_layout_hole_between_tensors` | LAYOUT-HOLE | ACC | CRASH |" in table


def test_pruned_view_groups_identical_outcomes(results_dir: Path) -> None:
    render.render_dir(results_dir)
    page = (results_dir / "index.html").read_text()
    pruned = page.split('id="pruned-table"')[1].split("</table>")[0]
    groups = pruned.count('class="group"')
    # the two cases with results differ; every other case is one "missing" group
    # per verdict (valid, invalid, tolerated)
    assert groups == 5
    first = pruned.split('class="group"')[1]
    assert "n_layout_hole_between_tensors" in first  # the dangerous group leads


@pytest.mark.parametrize(
    ("caps", "shown"),
    [
        ({}, "?"),
        ({"header_only": True, "read_dtypes": ["U8"] * 22}, "header-only"),
        (
            {"read_dtypes": ["U8"] * 15, "write": True, "write_dtypes": ["U8"] * 12},
            "reads bytes; reads 15 dtypes; writer (12 dtypes)",
        ),
        (
            {"read_dtypes": ["U8"] * 22, "write": True, "canonical": True,
             "write_dtypes": ["U8"] * 22, "metadata_presence": False},
            "reads bytes; absent metadata = {}; canonical writer",
        ),
    ],
)  # fmt: skip
def test_the_declaration_in_words(caps: dict[str, object], shown: str) -> None:
    assert render_data.declaration(caps) == shown


def test_implementations_the_matrix_cannot_run_are_listed_with_why(
    results_dir: Path,
) -> None:
    render.render_dir(results_dir)
    page = (results_dir / "index.html").read_text()
    table = (results_dir / "matrix.md").read_text()
    assert "## Not in the matrix" in table
    for missing in UNAVAILABLE:
        assert f"| {missing.title} | {missing.language} | {missing.reason} |" in table
        assert html.escape(missing.reason) in page


def test_a_case_run_only_on_request_is_a_column_only_when_run() -> None:
    cases = [{"id": "y_layout_dense_header_at_limit"}, {"id": "y_prefix_smallest_file"}]
    unrequested = [{"cases": {"y_prefix_smallest_file": {"outcome": "accepted"}}}]
    assert render_data.ran(cases, unrequested) == [{"id": "y_prefix_smallest_file"}]
    requested = [
        *unrequested,
        {"cases": {"y_layout_dense_header_at_limit": {"outcome": "accepted"}}},
    ]
    assert render_data.ran(cases, requested) == cases
    # any other case keeps its column, "no result" where a run did not reach it
    assert render_data.ran(cases[1:], []) == cases[1:]


def test_the_page_answers_safe_on_untrusted_files_first(results_dir: Path) -> None:
    render.render_dir(results_dir)
    page = (results_dir / "index.html").read_text()
    table = (results_dir / "matrix.md").read_text()
    # "b" crashed on a file (a dangerous finding); "a" accepted a file with a
    # hole, a wrong verdict but no danger to the reading process
    assert "Safe on untrusted files (1 of 2):</strong>" in page
    assert page.index("Safe on untrusted files") < page.index('id="scores"')
    rows = page.split('id="scores"')[1].split("</table>")[0].split("<tr")
    row_a = next(r for r in rows if ">a 1.0<" in r)
    row_b = next(r for r in rows if ">b 1.0<" in r)
    assert "<td class=safe>yes: no dangerous finding</td>" in row_a
    assert "<td class=unsafe>no: crashes (1)" in row_b
    assert html.escape(render_safety.report_url("b")) in row_b
    assert "**Safe on untrusted files (1 of 2):** a." in table
    line = next(x for x in table.splitlines() if x.startswith("| b 1.0"))
    assert f"| no: crashes (1) ([report]({render_safety.report_url('b')})) |" in line


def test_a_case_the_wrapper_caused_does_not_make_a_row_unsafe(
    results_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # as matrix/findings.toml's [b.not_the_library] would record it
    ours = {"b": frozenset({"n_layout_hole_between_tensors"})}
    monkeypatch.setattr(
        render_safety, "not_the_library", lambda name: ours.get(name, frozenset())
    )
    results = render_data.load_results(results_dir)
    answers = render_safety.safety(results, render_data.manifest())
    assert answers["b"].safe
    assert answers["b"].words() == "yes: no dangerous finding"


def test_an_incomplete_run_is_not_called_safe() -> None:
    result = {"implementation": {"name": "c"}, "run": {"complete": False}}
    (answer,) = render_safety.safety([result], []).values()
    assert not answer.safe
    assert answer.words() == "not known: the run is incomplete"


def _ran(name: str, commit: str, digest: str) -> dict[str, object]:
    return {
        "implementation": {"name": name},
        "suite": {"commit": commit},
        "inputs": {"suite": digest},
    }


def test_the_pages_say_which_suite_produced_the_rows() -> None:
    one = [_ran("a", "c" * 40, "d" * 64), _ran("b", "c" * 40, "d" * 64)]
    said = render_suite.statement(one)
    assert said == (
        f"All 2 rows come from one run of the suite (commit {'c' * 12}, "
        f"suite digest {'d' * 12}, matrix/inputs.py)."
    )
    mixed = [*one, _ran("z", "e" * 40, "f" * 64)]
    assert render_suite.runs(mixed)[1] == render_suite.Run(
        "f" * 64, ("e" * 40,), ("z",)
    )
    assert "2 different suites" in render_suite.statement(mixed)
    # a row rerun at a later commit that changed no file of the suite
    later = [*one, _ran("y", "e" * 40, "d" * 64)]
    assert render_suite.statement(later).startswith(
        f"All 3 rows come from one run of the suite (commits {'c' * 12}, {'e' * 12}, "
    )
    page = render_html.render_html(one, [])
    assert html.escape(said) in page
    # the documentation names no commits: the Markdown table gives the digest
    table = render_md.render_markdown(one, [])
    assert render_suite.statement(one, commit=False) in table
    assert "c" * 12 not in table


def test_the_site_says_whether_its_suite_produced_the_rows() -> None:
    now = inputs.suite_digest()
    same = render_suite.tree_status([_ran("a", "c" * 40, now)])
    assert "is the one that produced these results" in same
    other = render_suite.tree_status([_ran("a", "c" * 40, "0" * 64)])
    assert f"(digest {now[:12]}) differs" in other


@pytest.mark.parametrize(
    ("text", "published"),
    [
        (
            "crashed (ScanFailed): /tmp/stspec-6f5hgxp2/input.safetensors (x)",
            "crashed (ScanFailed): input.safetensors (x)",
        ),
        (
            (
                "RangeError: Offset is outside the bounds of the DataView\n"
                "    at DataView.getBigUint64 (<anonymous>)\n"
                "    at async serve (file:///w/matrix/wrappers/_protocol.mjs:79:13)"
            ),
            "RangeError: Offset is outside the bounds of the DataView",
        ),
        ('File "/home/u/venv/lib/x.py", line 3', 'File "x.py", line 3'),
        # a path the suite's message was cut off in
        ("(balanced) file: /wor...", "(balanced) file: ..."),
        ("RangeError: x at parseSingleFile (fu...", "RangeError: x..."),
        (
            "RangeError: x\\x0a at new i (s.umd.js:1:3)\\x0a at rea...",
            ("RangeError: x\\x0a at new i (s.umd.js:1:3)\\x0a..."),
        ),
        ("it stopped at end... and went on", "it stopped at end... and went on"),
        (
            "read/write of 1/2 [0,1], valid/invalid",
            "read/write of 1/2 [0,1], valid/invalid",
        ),
    ],
)
def test_published_text_holds_no_machine_path_or_wrapper_frame(
    text: str, published: str
) -> None:
    assert scrub.scrub(text) == published


def test_no_rendered_page_holds_a_machine_path(results_dir: Path) -> None:
    entry = {
        "outcome": "crashed",
        "ok": False,
        "detail": "crashed: /tmp/pytest-of-root/pytest-9/n_x.safetensors",
    }
    data = json.loads((results_dir / "a.json").read_text())
    data["cases"]["n_layout_hole_between_tensors"] = entry
    (results_dir / "a.json").write_text(json.dumps(data))
    render.render_dir(results_dir)
    for name in ("index.html", "matrix.md"):
        text = (results_dir / name).read_text()
        assert "pytest-of-root" not in text, name
    assert "crashed: n_x.safetensors" in (results_dir / "index.html").read_text()


# an absolute path of a build machine, or a file URL (a wrapper's stack frame)
MACHINE_PATH = re.compile(r"(?<![\w.~-])/(?:tmp|work|home|root|usr|var|opt)/|file:/")


# what python -m matrix render writes; the runs themselves (results/NAME.json)
# hold the suite's messages as the runner kept them
RENDERED = sorted(
    path.relative_to(REPO / "results").as_posix()
    for path in (REPO / "results").rglob("*")
    if path.parent.name in {"badges", "findings"}
    or path.name in {"index.html", "matrix.md"}
)


@pytest.mark.parametrize("name", RENDERED)
def test_no_rendered_file_holds_a_machine_path(name: str) -> None:
    """Pages, badges and findings name files, never where a machine kept them."""
    text = (REPO / "results" / name).read_text("utf-8")
    assert MACHINE_PATH.findall(text) == []


def test_a_machine_path_would_be_found() -> None:
    assert MACHINE_PATH.findall("file: /tmp/pytest-of-root/x (file:///w/a.mjs:1)")
    assert not MACHINE_PATH.findall("read/write 1/2 corpus/files/n_x.safetensors")


def test_the_meaning_of_safe_names_every_kind_of_dangerous_finding() -> None:
    said = render_safety.meaning()
    assert all(kind.title in said for kind in findings.KINDS)


@pytest.mark.parametrize("outcome", ["exception", "fail-open"])
def test_an_outcome_without_a_verdict_is_shown_and_counted(
    results_dir: Path, outcome: str
) -> None:
    data = json.loads((results_dir / "a.json").read_text())
    data["cases"]["n_layout_hole_between_tensors"] = {"outcome": outcome, "ok": False}
    (results_dir / "a.json").write_text(json.dumps(data))
    render.render_dir(results_dir)
    page = (results_dir / "index.html").read_text()
    row = page.split('id="n_layout_hole_between_tensors"')[1].split("</tr>")[0]
    assert f'class="c {outcome}"' in row
    table = (results_dir / "matrix.md").read_text()
    counts = table.split("Counts of the corpus cases by outcome:")[1]
    heads = next(x for x in counts.splitlines() if x.startswith("| implementation"))
    line = next(x for x in counts.splitlines() if x.startswith("| a 1.0"))
    column = heads.split(" | ").index(outcome)
    assert line.split(" | ")[column] == "1"
    # a kind of dangerous finding: "a" is no longer safe
    assert "Safe on untrusted files (0 of 2)" in page


def test_the_page_shows_the_history_and_the_interop_grid_when_present(
    results_dir: Path,
) -> None:
    render.render_dir(results_dir)
    assert 'id="history"' not in (results_dir / "index.html").read_text()
    assert not (results_dir / "history.md").exists()
    history.record(results_dir, date="2026-01-01T00:00:00+00:00")
    (results_dir / "interop").mkdir()
    cells = {"one": {"verdict": "same", "detail": ""},
             "two": {"verdict": "different", "detail": "'t' bytes differ"}}  # fmt: skip
    grid = {
        "requests": ["one", "two"], "readers": ["a", "b"],
        "writers": {"w": {"one": {"result": "written", "fault": ""},
                          "two": {"result": "written", "fault": ""}}},
        "cells": {"w": {"a": cells, "b": {"one": cells["one"]}}},
    }  # fmt: skip
    (results_dir / "interop" / "grid.json").write_text(json.dumps(grid))
    render.render_dir(results_dir)
    page = (results_dir / "index.html").read_text()
    assert page.index('id="differentials"') < page.index('id="history"')
    assert page.index('id="history"') < page.index('id="interop"')
    assert "<td>a</td><td>1</td><td>2026-01-01: valid 1/1 (100%)" in page
    assert 'title="two: different &#x27;t&#x27; bytes differ">1/2</td>' in page
    assert '<td class=safe title="">1/1</td>' in page
    assert (
        (results_dir / "history.md").read_text().startswith("# The results matrix over")
    )


def test_a_row_of_the_matrix_shows_its_api_and_links_its_tracker(
    tmp_path: Path,
) -> None:
    # a result of a real row ("mlx") and one of a row no file describes ("gone")
    for name in ("mlx", "gone"):
        (tmp_path / f"{name}.json").write_text(json.dumps(_result(name, {})))
    render.render_dir(tmp_path)
    page = (tmp_path / "index.html").read_text()
    mlx = page.split('id="impl-mlx"')[1].split("</tr>")[0]
    assert "<code>mx.load(path, return_metadata=True)" in mlx
    assert '<a href="https://github.com/ml-explore/mlx/issues">' in mlx
    gone = page.split('id="impl-gone"')[1].split("</tr>")[0]
    assert "API:" not in gone
    assert "issue tracker" not in gone
