"""results/*.json -> matrix.md and index.html: classes, bytes, determinism."""

import html
import json
from pathlib import Path

import pytest
from matrix import render, render_data, render_dump
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
