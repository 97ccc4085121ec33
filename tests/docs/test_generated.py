"""Every table of numbers on a page is what its generator makes from the data.

docs/generate_pages.py rewrites the generated parts of README.md and docs/ from
committed files; a hand edit, or data changed without regenerating, fails here.
The results matrix's own pages (results/matrix.md, included in the site, and
results/index.html) are held to ``python -m matrix render`` by
tests/matrix/test_matrix_badges.py.
"""

from __future__ import annotations

import importlib.util
import json
import re
import subprocess
import sys
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

if TYPE_CHECKING:
    from types import ModuleType

ROOT = Path(__file__).resolve().parents[2]


def _generator() -> ModuleType:
    spec = importlib.util.spec_from_file_location(
        "generate_pages", ROOT / "docs" / "generate_pages.py"
    )
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


GENERATOR = _generator()


def test_every_generated_part_is_up_to_date() -> None:
    stale = [
        page.relative_to(ROOT).as_posix()
        for page in GENERATOR.pages()
        if GENERATOR.regenerate(text := page.read_text(encoding="utf-8")) != text
    ]
    assert stale == [], f"run python docs/generate_pages.py: {stale} differ"


def test_the_pages_hold_generated_tables() -> None:
    names = {
        match.group("name")
        for page in GENERATOR.pages()
        for match in GENERATOR.REGION.finditer(page.read_text(encoding="utf-8"))
    }
    assert set(GENERATOR.GENERATORS) <= names
    tables = {
        path.relative_to(GENERATOR.DATA).with_suffix("").as_posix()
        for path in GENERATOR.DATA.rglob("*.json")
        if path.name != "timings.json"  # the README's commands, not a table
    }
    assert {f"table {name}" for name in tables} <= names


@pytest.mark.parametrize(
    ("page", "pattern"),
    [
        ("docs/explanation/fuzzing-findings.md", r"\*\*(\d)"),  # a total
        ("docs/explanation/hf-deviations.md", r"holds (\d)"),
        ("docs/reference/rules.md", r"\[KEY-UNIQUE(\])"),
        (
            "docs/explanation/check-performance.md",
            r"ms \((\d)\.\d+\N{MULTIPLICATION SIGN}\)",
        ),
        ("docs/howto/fuzz-in-ci.md", r"figure fuzz instrumentation -->(\d)"),
        ("docs/explanation/reference-reader.md", r"SIGKILL\s+x(\d)"),
    ],
)
def test_a_hand_edit_of_a_generated_table_is_found(page: str, pattern: str) -> None:
    text = (ROOT / page).read_text(encoding="utf-8")
    found = re.search(pattern, text)
    assert found is not None
    edited = text[: found.start(1)] + "7" + text[found.start(1) :]
    assert edited != text
    assert GENERATOR.regenerate(edited) == text


def test_the_check_command_fails_on_a_stale_page(tmp_path: Path) -> None:
    page = tmp_path / "page.md"
    page.write_text("<!-- generated: rules -->\n| stale |\n<!-- end: rules -->\n")
    assert "| stale |" not in GENERATOR.regenerate(page.read_text())
    done = subprocess.run(
        [sys.executable, str(ROOT / "docs" / "generate_pages.py"), "--check"],
        capture_output=True, text=True, check=False, cwd=ROOT,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr


def test_the_reader_sizes_are_measured_from_this_tree(tmp_path: Path) -> None:
    """bench/results/reader-sizes.json (shown on the design page) is current."""
    fresh = tmp_path / "sizes.json"
    subprocess.run(
        [sys.executable, str(ROOT / "bench" / "reader_sizes.py"), str(fresh)],
        check=True, capture_output=True, timeout=120,
    )  # fmt: skip
    committed = ROOT / "bench" / "results" / "reader-sizes.json"
    assert json.loads(fresh.read_text()) == json.loads(committed.read_text()), (
        "run python bench/reader_sizes.py, then python docs/generate_pages.py"
    )


NUMBER_WORDS = {
    word: value
    for value, word in enumerate((
        "zero", "one", "two", "three", "four", "five", "six", "seven", "eight",
        "nine", "ten", "eleven", "twelve", "thirteen", "fourteen", "fifteen",
        "sixteen", "seventeen", "eighteen", "nineteen", "twenty",
    ))
}  # fmt: skip
COUNT = "<!-- generated: count implementations -->{}<!-- end: count implementations -->"
# "<number> [real|third-party|other] implementations|rows|environments": a
# count of the results matrix; "two implementations both accept" compares
HAND_COUNT = re.compile(
    r"\b(?P<number>\d[\d,]*|" + "|".join(NUMBER_WORDS) + r")\s+"
    r"(?:(?:real|third-party|other)\s+)?(?:implementations|rows|environments)\b",
    re.IGNORECASE,
)


def hand_counts(text: str) -> list[tuple[int, str]]:
    """(number, phrase) of each count of 3 or more outside the generated parts."""
    found = []
    for match in HAND_COUNT.finditer(GENERATOR.REGION.sub("", text)):
        word = match.group("number").lower().replace(",", "")
        number = int(word) if word.isdigit() else NUMBER_WORDS[word]
        if number >= 3:
            found.append((number, match.group(0)))
    return found


def test_no_page_states_the_size_of_the_matrix_by_hand() -> None:
    """A count of the matrix is generated (``count implementations``), never typed."""
    rows = GENERATOR.implementations()
    typed = [
        f"{page.relative_to(ROOT).as_posix()}: {phrase!r} (results/ has {rows})"
        for page in GENERATOR.pages()
        for number, phrase in hand_counts(page.read_text(encoding="utf-8"))
    ]
    assert typed == [], "write <!-- generated: count implementations -->: " + (
        "; ".join(typed)
    )


@pytest.mark.parametrize(
    ("text", "found"),
    [
        ("the results matrix of 15 real implementations.", [15]),
        ("shows what fifteen implementations do", [15]),
        ("all 39 rows", [39]),
        ("files that two implementations both accept", []),
        (f"of {COUNT.format(39)} implementations", []),
    ],
)
def test_a_hand_written_count_is_found(text: str, found: list[int]) -> None:
    assert [number for number, _ in hand_counts(text)] == found


def test_the_count_of_implementations_is_the_rows_that_ran() -> None:
    rows = [
        json.loads(path.read_text(encoding="utf-8"))
        for path in (ROOT / "results").glob("*.json")
    ]
    ran = [row for row in rows if "setup_error" not in row]
    assert GENERATOR.implementations() == len(ran) > 0
    text = f"of {COUNT.format(7)} implementations"
    assert GENERATOR.regenerate(text) == f"of {COUNT.format(len(ran))} implementations"


def test_the_rows_are_read_again_when_a_results_file_changes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The parsed results/*.json are kept per version of the files: a row
    added, changed or removed is seen by the next part generated."""
    results = tmp_path / "results"
    results.mkdir()
    monkeypatch.setattr(GENERATOR, "ROOT", tmp_path)
    row = {"implementation": {"name": "a"}, "cases": {}, "tests": {}}
    (results / "a.json").write_text(json.dumps(row), encoding="utf-8")
    assert GENERATOR.implementations() == 1
    (results / "b.json").write_text(json.dumps({"setup_error": "x"}), "utf-8")
    assert GENERATOR.implementations() == 1  # a row whose set-up failed
    (results / "b.json").write_text(json.dumps(row), encoding="utf-8")
    assert GENERATOR.implementations() == 2
    (results / "a.json").unlink()
    assert GENERATOR.implementations() == 1


def test_a_generated_number_never_starts_a_line() -> None:
    """Markdown reads a line that starts with ``<!--`` as a block of raw HTML,
    which would cut the sentence around a generated number or list in two."""
    starts = [
        f"{page.relative_to(ROOT).as_posix()}:{number}"
        for page in GENERATOR.pages()
        for number, line in enumerate(page.read_text("utf-8").splitlines(), 1)
        if re.match(r"\s*<!-- generated: [^>]+ -->.", line)  # inline, not a block
    ]
    assert starts == []


# A measured ratio or share typed into a sentence: a decimal before x or the
# multiplication sign, "2x HF", "five times as long", "40 % of the time".  A
# formula (64 times H bytes, four times the file's length) or a threshold (at
# least 98 %) is no measurement and does not match.  What a command prints, in
# fenced blocks, is held to the command by tests/docs/test_page_commands.py.
TIMES = "\N{MULTIPLICATION SIGN}"
_HOW_MANY = r"(?:\d+|two|three|four|five|six|seven|eight|nine|ten)"
HAND_RATIO = re.compile(
    r"(?<![\w.])\d+\.\d+\s?[x\N{MULTIPLICATION SIGN}](?!\w)"
    r"|(?<![\w.])\d+\s?[x\N{MULTIPLICATION SIGN}]\s+(?:HF|faster|slower)\b"
    rf"|\b{_HOW_MANY}\s+times\s+(?:faster|slower|as\s+(?:long|fast|slow|much|many)"
    r"|the\s+(?:CPU|time|memory|executions|instructions))\b"
    r"|(?<![\w.])\d+(?:\.\d+)?\s?%\s+of\s+(?:it|the|its|inputs|CPU)\b",
    re.IGNORECASE,
)
FENCED = re.compile(r"^(```|~~~).*?^\1", re.MULTILINE | re.DOTALL)


def _in_prose(pattern: re.Pattern[str], text: str) -> list[str]:
    """Each match of pattern outside the generated parts and fenced blocks."""
    prose = FENCED.sub("", GENERATOR.REGION.sub("", text))
    return [" ".join(match.group(0).split()) for match in pattern.finditer(prose)]


def _on_pages(pattern: re.Pattern[str]) -> list[str]:
    """``page: 'phrase'`` for each match of pattern in the prose of every page."""
    return [
        f"{page.relative_to(ROOT).as_posix()}: {phrase!r}"
        for page in GENERATOR.pages()
        for phrase in _in_prose(pattern, page.read_text(encoding="utf-8"))
    ]


def hand_ratios(text: str) -> list[str]:
    """Each measured ratio or share stated outside the generated parts."""
    return _in_prose(HAND_RATIO, text)


def test_no_page_states_a_measured_ratio_by_hand() -> None:
    """A ratio comes from a recorded run (bench/results/) or from data (docs/data/)
    through a generator; typed by hand it goes stale when the code changes."""
    typed = _on_pages(HAND_RATIO)
    assert typed == [], "generate these from recorded runs: " + "; ".join(typed)


@pytest.mark.parametrize(
    ("text", "found"),
    [
        ("the docs' 1.41x (unknown members)", ["1.41x"]),
        (f"makes them 3.9 {TIMES} slower", [f"3.9 {TIMES}"]),
        ("is 2x HF on one file", ["2x HF"]),
        ("takes five\ntimes as long", ["five times as long"]),
        ("costs about three times the CPU of the others", ["three times the CPU"]),
        ("the costliest inputs take 40 % of the time", ["40 % of the"]),
        (f"64 {TIMES} H + 3 {TIMES} (L - H) bytes", []),
        ("plus four times the file's length", []),
        ("green: at least 98 %", []),
        ("```\nratio to HF 1.16x\n```\n", []),
        (
            f"<!-- generated: a -->\n| 1.16{TIMES} |\n<!-- end: a -->",
            [],
        ),
        (f"<!-- generated: figure x -->4.4 {TIMES}<!-- end: figure x --> slower", []),
    ],
)
def test_a_hand_written_ratio_is_found(text: str, found: list[str]) -> None:
    assert hand_ratios(text) == found


def test_the_folder_tables_hold_every_recorded_ratio() -> None:
    """Each bench/results/folder-*.json run is parsed whole: a change to what
    bench/bench_folder.py prints fails here, not as a table missing a row."""
    records = GENERATOR.folder_records()
    assert {name for name, _ in records} >= {"folder-shard", "folder-one-tensor"}
    per_file, commands = GENERATOR.bench_folder(), GENERATOR.bench_folder_commands()
    for name, record in records:
        sections = GENERATOR.folder_sections(record)
        assert [section["per_file"] for section in sections] == [True, False, False]
        for section in sections[1:]:
            assert len(section["rows"]) == 3, (name, section)
            assert f"{section['speed_up']}{TIMES}" in commands
        printed = [
            float(ratio)
            for line in record["output"]
            for ratio in re.findall(r"ratio to HF ([\d.]+)x", line)
        ]
        shown = [
            float(ratio)
            for line in per_file.splitlines()
            if f"`{name}`" in line
            for ratio in re.findall(rf"\(([\d.]+){TIMES}\)", line)
        ]
        assert printed[1:] == shown, name  # the first is HF against itself


# A count of what the matrix's rows did, typed into a sentence: "Six of them are
# valid files", "9 corpus files crash it", "five corpus files run it out of ...".
# A count of a file's own bytes or entries (1,000 tensors, a 10-byte file) is a
# fact about the corpus and does not match.
_RESULT_NUMBER = r"(?:\d[\d,]*|" + "|".join(NUMBER_WORDS) + r")"
HAND_RESULT_COUNT = re.compile(
    rf"(?<![\w.-]){_RESULT_NUMBER}\s+of\s+them\s+(?:are|is|crash|load|fail)\b"
    rf"|(?<![\w.-]){_RESULT_NUMBER}\s+(?:corpus\s+|valid\s+|invalid\s+)?"
    r"(?:files|cases)\s+(?:crash|run|load|fail|hang|time|go|are\s+(?:rejected|"
    r"accepted|refused))",
    re.IGNORECASE,
)


def hand_result_counts(text: str) -> list[str]:
    """Each count of the matrix's outcomes stated outside the generated parts."""
    return _in_prose(HAND_RESULT_COUNT, text)


def test_no_page_counts_outcomes_by_hand() -> None:
    """How many files a row crashes on or rejects comes from results/*.json
    (``count cases OUTCOMES ROW``, ``count valid differentials``), never typed."""
    typed = _on_pages(HAND_RESULT_COUNT)
    assert typed == [], "generate these from results/*.json: " + "; ".join(typed)


@pytest.mark.parametrize(
    ("text", "found"),
    [
        ("list is on the page. Six of them are valid files", ["Six of them are"]),
        ("(9 corpus files crash it: the only", ["9 corpus files crash"]),
        ("and five corpus\nfiles run it out of memory", ["five corpus files run"]),
        ("1,000 tensors aliasing the same 1,000 bytes", []),
        ("a 10-byte file makes it ask for 1 GiB", []),
        ("two files with the same content", []),
        (
            (
                "(<!-- generated: count cases crashed x -->9<!-- end: count cases "
                "crashed x --> corpus files crash it"
            ),
            [],
        ),
    ],
)
def test_a_hand_written_outcome_count_is_found(text: str, found: list[str]) -> None:
    assert hand_result_counts(text) == found


def _row(
    name: str, cases: dict[str, str], probe: dict[str, object]
) -> dict[str, object]:
    return {
        "implementation": {"name": name},
        "cases": {
            case: {"outcome": outcome, "ok": outcome in {"accepted", "rejected"}}
            for case, outcome in cases.items()
        },
        "tests": {"test_a": {"outcome": "rejected", "ok": False}},
        "probe": probe,
    }


def test_row_lists_and_counts_follow_the_outcome_words(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The lists and counts a sentence shows are computed from each row's
    outcome classes: a row added, or its outcome renamed, changes the page."""
    rows = [
        _row("a", {"n_x": "crashed", "n_y": "exception"}, {}),
        _row("b", {"n_x": "exception", "n_y": "accepted"}, {}),
        _row("c", {"n_x": "fail-open", "n_y": "resource"}, {}),
    ]
    rows[2]["cases"]["n_y"]["memory"] = "reserved"  # type: ignore[index]
    monkeypatch.setattr(GENERATOR, "_results", lambda: rows)
    assert GENERATOR.generate("rows crashed") == "a"
    assert GENERATOR.generate("rows crashed,exception n_x") == "a and b"
    assert GENERATOR.generate("rows exception") == "a and b"
    assert GENERATOR.generate("rows fail-open n_x") == "c"
    assert GENERATOR.generate("rows hung") == "none"
    assert GENERATOR.generate("count cases exception a") == "1"
    assert GENERATOR.generate("count cases crashed,exception a") == "2"
    assert GENERATOR.generate("outcome c n_y") == "resource"
    assert GENERATOR.generate("count failed b") == "2"  # n_x and test_a
    assert GENERATOR.generate("count cases resource:reserved c") == "1"
    assert GENERATOR.generate("count cases resource:resident c") == "0"
    assert GENERATOR.generate("rows resource:reserved") == "c"
    rows.append(_row("d", {"n_x": "crashed"}, {}))
    assert GENERATOR.generate("rows crashed n_x") == "a and d"
    with pytest.raises(KeyError, match="unknown outcome"):
        GENERATOR.generate("rows crash n_x")  # not an outcome class
    with pytest.raises(KeyError, match="unknown outcome"):
        GENERATOR.generate("rows resource:virtual n_y")  # not a memory kind
    with pytest.raises(KeyError, match="n_z"):
        GENERATOR.generate("rows crashed n_z")  # no row ran it


def test_what_rows_load_is_grouped_from_their_probe_answers(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    def answer(shape: list[object]) -> dict[str, object]:
        return {"result": "accepted", "tensors": {"a": ["F32", shape, None]}}

    rows = [
        _row("p", {"n_x": "accepted"}, {"n_x": answer([2])}),
        _row("q", {"n_x": "accepted"}, {"n_x": answer([])}),
        _row("r", {"n_x": "accepted"}, {"n_x": answer([2])}),
        _row("s", {"n_x": "rejected"}, {"n_x": {"result": "rejected"}}),
    ]
    monkeypatch.setattr(GENERATOR, "_results", lambda: rows)
    assert (
        GENERATOR.generate("loaded n_x") == "`'a' F32[2]` in p and r; `'a' F32[]` in q"
    )
