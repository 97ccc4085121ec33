"""Write the generated parts of the documentation from the data they come from.

    python docs/generate_pages.py           # rewrite every generated part
    python docs/generate_pages.py --check   # exit 1 and name each part that differs

A generated part of a Markdown page (README.md or docs/**/*.md) sits between
``<!-- generated: NAME -->`` and ``<!-- end: NAME -->``, as lines of their own
or, for a number inside a sentence, on one line.  NAME is a generator below
(``rules``, ``suite-options``, ...), ``table PATH`` for a table kept as data in
docs/data/PATH.json, ``count NAME`` for a number (``COUNTS``), ``figure NAME`` for a
ratio or share computed from data (``FIGURES``); from the rows of results/*.json,
``count cases OUTCOMES ROW`` and ``count failed ROW`` for how often a row had an
outcome class (``crashed,exception``: either; ``resource:reserved``: one memory
kind) or failed, ``rows OUTCOMES [CASE]``
and ``rows raising EXCEPTION CASE`` for the rows that did, ``outcome ROW CASE`` for
one row's class and ``loaded CASE`` for what the accepting rows loaded, grouped;
``output NAME`` for what a run
recorded in bench/results/NAME.json printed, or ``file PATH``
for a file of the repository shown whole (a workflow the tests lint: GitHub
shows a page's source, where an include directive is a line of code).  No number on
a page is typed by hand: scores and the size of the matrix come from
results/*.json, deviations from the shipped baselines, benchmark ratios from
bench/results/*.json, fuzzing counts and command timings from docs/data/.
"""

from __future__ import annotations

import argparse
import ast
import functools
import importlib
import json
import os
import re
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final, NamedTuple

import stspec
from stspec.audit.cli import parser as cli_parser
from stspec_conformance._capabilities import Capabilities
from stspec_conformance._options import pytest_addoption
from stspec_conformance._outcomes import MEMORY_KINDS, OUTCOMES

if TYPE_CHECKING:
    from collections.abc import Callable, Iterator

ROOT: Final = Path(__file__).resolve().parent.parent
DATA: Final = ROOT / "docs" / "data"
REGION: Final = re.compile(
    r"(<!-- generated: (?P<name>[^>]+?) -->\n?)(?P<body>.*?)(<!-- end: (?P=name) -->)",
    re.DOTALL,
)


def _cell(value: object) -> str:
    """A table cell: numbers with thousands separators, a list as a sum."""
    if isinstance(value, bool) or value is None:
        return "" if value is None else str(value).lower()
    if isinstance(value, int):
        return f"{value:,}"
    if isinstance(value, float):
        return f"{value:,.1f}" if value < 1000 else f"{value:,.0f}"
    if isinstance(value, list):
        return " + ".join(_cell(item) for item in value)
    return str(value).replace("|", "\\|").replace("\n", " ")


def _total(value: object) -> float:
    if isinstance(value, list):
        return sum(_total(item) for item in value)
    return value if isinstance(value, int | float) else 0


def markdown_table(columns: list[str], rows: list[list[object]]) -> str:
    """A GitHub-flavoured Markdown table."""
    lines = ["| " + " | ".join(columns) + " |", "|" + "---|" * len(columns)]
    lines += ["| " + " | ".join(_cell(value) for value in row) + " |" for row in rows]
    return "\n".join(lines) + "\n"


def data_table(name: str) -> str:
    """A table kept as data: docs/data/NAME.json (columns, rows, optional sums)."""
    table = json.loads((DATA / f"{name}.json").read_text(encoding="utf-8"))
    rows: list[list[object]] = [list(row) for row in table["rows"]]
    if summed := table.get("sum"):
        total: list[object] = [f"**{table.get('total_label', 'total')}**"]
        for index in range(1, len(table["columns"])):
            column = table["columns"][index]
            value = sum(_total(row[index]) for row in table["rows"])
            total.append(f"**{_cell(int(value))}**" if column in summed else "")
        rows.append(total)
    text = markdown_table(table["columns"], rows)
    if note := table.get("note"):
        text += f"\n{note}\n"
    return text


def rules() -> str:
    """The rule registry (stspec.RULES), each rule linked to its anchor in SPEC."""
    rows: list[list[object]] = [
        [
            f"[{rule.id}](../spec/SPEC.md#rule-{rule.id.lower()})",
            rule.level,
            rule.scope,
            rule.family,
            rule.statement,
        ]
        for rule in stspec.RULES
    ]
    return markdown_table(["rule", "level", "applies to", "family", "statement"], rows)


class _Options:
    """Collects what pytest_addoption registers, as pytest's parser would."""

    def __init__(self) -> None:
        self.options: list[tuple[list[str], dict[str, Any]]] = []

    def getgroup(self, *_args: object) -> _Options:
        return self

    def addoption(self, *names: str, **spec: Any) -> None:  # noqa: ANN401
        self.options.append((list(names), spec))


def suite_options() -> str:
    """The conformance suite's own options, from its pytest_addoption."""
    collected = _Options()
    pytest_addoption(collected)  # type: ignore[arg-type]  # duck-typed parser
    rows: list[list[object]] = []
    for names, spec in collected.options:
        value = "" if spec.get("action") == "store_true" else "=VALUE"
        rows.append([" ".join(f"`{name}{value}`" for name in names), spec["help"]])
    return markdown_table(["option", "meaning"], rows)


# What each declaration key means; a key the suite adds without a meaning here
# stops the generator (KeyError), so the page cannot fall behind.
CAPABILITY_MEANINGS: Final = {
    "read_dtypes": "a valid file with another dtype may be rejected, or raise a "
    "managed runtime's exception (not applicable); "
    "property tests draw only these",
    "header_only": "validates headers and returns dtypes and shapes only (Python: "
    "`(dtype, shape)` or `(dtype, shape, None)`; command: no `sha256`/`hex`)",
    "metadata_presence": "`false`: an absent `__metadata__` and `{}` are the same "
    "to it",
    "metadata": "`false`: it does not read `__metadata__` at all and answers `None` "
    "(below)",
    "write": "commands: `--write` exists; Python: the presence of `save` (the key may "
    "only confirm it)",
    "write_dtypes": "what the writer supports; writer tests of other dtypes are not "
    "applicable",
    "canonical": "the writer claims the *canonical writer* class (SPEC.md §1.5): the "
    "tests comparing its output with the canonical bytes apply only then (for other "
    "writers `WRITE-CANONICAL` is a SHOULD, so they are not applicable); the "
    "reference and the built-in HF adapter declare it",
}
OUTCOME_MEANINGS: Final = {
    "accepted": "loaded the file (or wrote the request); with the expected content "
    "for a valid file",
    "rejected": "refused the file or the request, as a judgement on it",
    "crashed": "a native crash: a signal, a panic (Go, Rust, also through pyo3's "
    "`PanicException`), an abort, a runtime's fatal error, or an exit without an "
    "answer that says nothing known",
    "exception": "an unexpected exception in a managed runtime: a Python exception "
    "outside `REJECTS`, an uncaught JavaScript or Java exception; the code broke, "
    "its process did not",
    "hung": "ran past its CPU time (or the wall-clock backstop)",
    "resource": "went over its memory allowance, `reserved` (an allocation beyond it "
    "was refused: address space asked for, not shown to be used) or `resident` "
    "(resident memory measured past it); also processes left running. A failure, "
    "never counted as a wrong verdict",
    "wrong-content": "accepted a valid file but returned other tensors or metadata",
    "invalid-output": "answered in a malformed way; on an invalid file this counts as "
    "accepting it",
    "fail-open": "answered success on a file it said it could not judge (a scanner "
    'exiting 0 with "could not parse"): a failure on every case',
    "not-applicable": "the test needs something the declaration says the "
    "implementation does not do",
}


def capabilities() -> str:
    """The declaration keys, their types and defaults, from the suite's Capabilities."""
    rows: list[list[object]] = []
    for key, value in Capabilities().as_json().items():
        if isinstance(value, list):
            kind, shown = "list of spec dtype names", f"all {len(value)}"
        else:
            kind, shown = "bool", f"`{json.dumps(value)}`"
        rows.append([f"`{key}`", kind, shown, CAPABILITY_MEANINGS[key]])
    return markdown_table(["key", "type", "default", "meaning"], rows)


def outcomes() -> str:
    """The outcome classes a test records, in the suite's order."""
    rows: list[list[object]] = [
        [f"`{name}`", OUTCOME_MEANINGS[name]] for name in OUTCOMES
    ]
    return markdown_table(["outcome", "what the implementation did"], rows)


def _argument(action: argparse.Action) -> str:
    """How an argument is written: ``-j JOBS, --jobs JOBS`` or ``PATH``."""
    if not action.option_strings:
        return f"`{action.metavar or action.dest}`"
    value = "" if action.nargs == 0 else f" {action.metavar or action.dest.upper()}"
    return ", ".join(f"`{option}{value}`" for option in action.option_strings)


def cli() -> str:
    """The ``stspec`` command's usage and options, from its argparse parser."""
    os.environ["COLUMNS"] = "90"  # the parser sizes its help to the terminal
    parser = cli_parser()
    out = ["```text", parser.format_usage().strip(), "```", ""]
    subparsers = next(
        a for a in parser._actions if isinstance(a, argparse._SubParsersAction)
    )  # argparse keeps its subcommands only there
    for name, sub in subparsers.choices.items():
        description = (sub.description or "").replace("*", "\\*")
        out += [f"## `stspec {name}`", "", description, ""]
        out += ["```text", sub.format_usage().strip(), "```", ""]
        rows: list[list[object]] = [
            [_argument(action), (action.help or "").replace("*", "\\*")]
            for action in sub._actions
            if not isinstance(action, argparse._HelpAction)
        ]
        out += [markdown_table(["argument", "meaning"], rows)]
        if sub.epilog:
            out += [sub.epilog[0].upper() + sub.epilog[1:] + ".", ""]
    return "\n".join(out)


def _schema_type(spec: dict[str, Any]) -> str:
    if "$ref" in spec:
        return str(spec["$ref"]).rsplit("/", 1)[-1]
    if "enum" in spec and len(spec["enum"]) > 6:
        return f"one of {len(spec['enum'])} names (see the schema)"
    if "enum" in spec:
        return " / ".join(f"`{json.dumps(value)}`" for value in spec["enum"])
    if spec.get("type") == "array" and "items" in spec:
        return f"array of {_schema_type(spec['items'])}"
    kind = spec.get("type", "")
    return " or ".join(kind) if isinstance(kind, list) else str(kind or "see schema")


def manifest_schema() -> str:
    """The corpus manifest's objects and fields, from its JSON Schema."""
    schema = json.loads(
        (ROOT / "corpus" / "manifest.schema.json").read_text(encoding="utf-8")
    )
    out = []
    objects = {"manifest": schema, **schema["$defs"]}
    for name, spec in objects.items():
        fields = spec.get("properties", {})
        if not fields:
            continue
        required = set(spec.get("required", []))
        rows: list[list[object]] = [
            [
                f"`{field}`",
                _schema_type(value),
                "yes" if field in required else "",
                value.get("description", value.get("items", {}).get("description", "")),
            ]
            for field, value in fields.items()
        ]
        out += [
            f"`{name}`"
            + (
                f": {spec['description']}"
                if "description" in spec and name != "manifest"
                else ""
            ),
            "",
        ]
        out += [markdown_table(["field", "type", "required", "description"], rows)]
    return "\n".join(out)


def _baseline_groups(path: Path) -> Iterator[tuple[str, list[str]]]:
    """(reason, tests) for each commented group of a baseline file."""
    comment: list[str] = []
    tests: list[str] = []
    for line in [*path.read_text(encoding="utf-8").splitlines(), ""]:
        if line.startswith("#"):
            if tests:
                yield " ".join(comment), tests
                comment, tests = [], []
            comment.append(line.lstrip("# "))
        elif line.strip():
            tests.append(line.strip())
        elif tests:
            yield " ".join(comment), tests
            comment, tests = [], []
        elif comment and not tests:
            comment = []  # the file's own header, not a group's reason


def hf_deviations() -> str:
    """The shipped baseline of HF safetensors 0.8.0, one row per reason."""
    path = ROOT / "conformance" / "baselines" / "safetensors-0.8.0.txt"
    rows: list[list[object]] = []
    count = 0
    for reason, tests in _baseline_groups(path):
        rule, _, why = reason.partition(": ")
        why = re.sub(r"(?<!`)(__metadata__|\{\"F32\": null\})(?!`)", r"`\1`", why)
        rows.append([rule, why, ", ".join(f"`{test}`" for test in tests)])
        count += len(tests)
    return (
        f"The baseline holds {count} tests in {len(rows)} groups:\n\n"
        + markdown_table(["rule", "why HF 0.8.0 fails it", "tests"], rows)
    )


def benchmarks() -> str:
    """The ratios recorded in bench/results/*.json, with the machine and load."""
    rows: list[list[object]] = []
    for path in sorted((ROOT / "bench" / "results").glob("*.json")):
        record = json.loads(path.read_text(encoding="utf-8"))
        if "ratios" not in record:
            continue  # not a run kept by bench/record.py
        machine = record["machine"]
        load = record["load_average_before"][0], record["load_average_after"][0]
        command = " ".join(part for part in record["command"][1:])
        where = (
            f"{machine['cpus']} × {machine['cpu_model']}, Python {machine['python']}"
        )
        rows += [
            [path.stem, f"`{command}`", ratio, where, f"{load[0]:.1f} → {load[1]:.1f}"]
            for ratio in record["ratios"]
        ]
    return markdown_table(
        ["record", "benchmark", "ratio", "machine", "load (1 min) before → after"],
        rows,
    )


# The goals bench/bench_hostile.py measures against: stspec / HF.  Where
# the least any reader that checks the MUST rules does (the family's floor,
# CHILD["names"]) is itself above the time goal, the goal is this much of
# the floor instead: HF skips that check, and no reader can go below it.
HOSTILE_GOALS: Final = {"time": 2.0, "memory": 1.5, "floor": 1.2}


def _family_docs() -> dict[str, str]:
    """Each family of bench/bench_hostile.py: the first line of its docstring."""
    tree = ast.parse((ROOT / "bench" / "bench_hostile.py").read_text(encoding="utf-8"))
    return {
        node.name: (ast.get_docstring(node) or "").split("\n")[0]
        for node in tree.body
        if isinstance(node, ast.FunctionDef)
        and node.args.args
        and node.args.args[0].arg == "size"
    }


def _hostile_rows(name: str) -> dict[str, list[list[str]]]:
    """The rows of a bench_hostile.py record, split into cells, by family."""
    record = json.loads((ROOT / "bench" / "results" / name).read_text(encoding="utf-8"))
    docs = _family_docs()
    rows = {}
    for line in record["output"]:
        cells = [cell.split() for cell in line.split("|")]
        if len(cells) >= 5 and cells[0][0] in docs:
            rows[cells[0][0]] = cells
    return rows


class _Floor(NamedTuple):
    """A floor line of a bench_hostile.py record (see its CHILD["names"])."""

    cpu: str  # seconds
    rss: str  # MB
    time_x: float  # of HF's
    memory_x: float
    reader_x: float  # stspec's time / the floor's


def _hostile_floor_lines(record: dict[str, Any]) -> dict[str, _Floor]:
    """The floor lines of a bench_hostile.py record, by family."""
    floors = {}
    for line in record["output"]:
        family, marker, rest = line.partition(" floor: ")
        if not marker:
            continue
        measured, to_hf, to_floor = rest.split("|")
        *_, cpu, _, rss, _ = measured.split()
        time_x, memory_x, _ = to_hf.split()
        _, reader_x, _, _ = to_floor.split()
        floors[family.strip()] = _Floor(
            cpu, rss, float(time_x[:-1]), float(memory_x[:-1]), float(reader_x[:-1])
        )
    return floors


def _hostile_floors(floors: dict[str, _Floor]) -> str:
    """What the floor lines of a record say, as a paragraph."""
    if not floors:
        return ""
    said = [
        f"`{family}` {floor.cpu} s / {floor.rss} MB, {floor.time_x:.2f}× HF's time"
        f" and {floor.memory_x:.2f}× its memory; the reader takes"
        f" {floor.reader_x:.2f}× the floor's time"
        for family, floor in floors.items()
    ]
    return (
        "\nThe floor: the least any reader that reports a repeated member name "
        "(KEY-UNIQUE) among names in no order does in CPython, checking nothing "
        "else, measured in the same run (read the file, decode the header, split "
        "it once at the piece between two names, hold the names in one set): "
        + "; ".join(said)
        + ".\n"
    )


def _within(time_x: float, memory_x: float, floor: _Floor | None) -> str:
    """The goal cell of a family: see HOSTILE_GOALS."""
    if memory_x > HOSTILE_GOALS["memory"]:
        return "**no**"
    if time_x <= HOSTILE_GOALS["time"]:
        return "yes"
    if (
        floor is not None
        and floor.time_x > HOSTILE_GOALS["time"]
        and floor.reader_x <= HOSTILE_GOALS["floor"]
    ):
        return "yes, at the floor"
    return "**no**"


def hostile() -> str:
    """The families of bench/bench_hostile.py, from bench/results/hostile.json.

    The reader before the changes that made the slow families fast is
    bench/results/hostile-before.json, the same run with --stspec-path.
    """
    record = json.loads(
        (ROOT / "bench" / "results" / "hostile.json").read_text(encoding="utf-8")
    )
    docs = _family_docs()
    before = _hostile_rows("hostile-before.json")
    floors = _hostile_floor_lines(record)
    rows: list[list[object]] = []
    for family, cells in _hostile_rows("hostile.json").items():
        (_, header_mb), (st_cpu, st_mb), (hf_cpu, hf_mb), ratios = cells[:4]
        time_x, memory_x = (float(ratio.rstrip("x")) for ratio in ratios)
        earlier = before.get(family)
        was = "" if earlier is None else " (".join(earlier[3]) + ")"
        within = _within(time_x, memory_x, floors.get(family))
        rows.append(
            [
                f"`{family}`: {docs[family]}",
                f"{header_mb} MB",
                was,
                f"{st_cpu} s / {int(st_mb):,} MB",
                f"{hf_cpu} s / {int(hf_mb):,} MB",
                f"{time_x:.2f}",
                f"{memory_x:.2f}",
                within,
                " / ".join(" ".join(part) for part in cells[4:]),
            ]
        )
    load = record["load_average_before"][0], record["load_average_after"][0]
    machine = record["machine"]
    return (
        f"`{' '.join(record['command'][1:])}`, {machine['cpus']} × "
        f"{machine['cpu_model']}, Python {machine['python']}, load average "
        f"{load[0]:.1f} → {load[1]:.1f}; goal: at most "
        f"{HOSTILE_GOALS['time']:g}× HF's CPU time and "
        f"{HOSTILE_GOALS['memory']:g}× its peak memory, or, for a family whose "
        f"floor (below) is above that time, at most {HOSTILE_GOALS['floor']:g}× the "
        "floor's time. Before: the same families "
        "with `--stspec-path` on the reader as it was before runs of unknown "
        "members, escaped metadata values and entries in any field order got "
        "their own shortcuts (bench/results/hostile-before.json).\n\n"
        + markdown_table(
            [
                "family",
                "header",
                "before: time × (memory ×)",
                "stspec CPU / peak",
                "HF 0.8.0 CPU / peak",
                "time ×",
                "memory ×",
                "within goal",
                "verdicts (stspec / HF)",
            ],
            rows,
        )
        + _hostile_floors(floors)
    )


# A section heading of bench/bench_folder.py: "1. per file, one process: 50
# files of 144 tensors (16,704-byte headers), ..."; section 2 reuses section 1's folder.
_FOLDER = re.compile(r"(\d+) files of (\d+) tensors \(([\d,]+)-byte headers\)")
_PER_FILE = re.compile(r"  (.+?)\s+([\d.]+) ms CPU per file\s+ratio to HF ([\d.]+)x")
_COMMAND = re.compile(r"  (.+?)\s+wall median\s+([\d.]+) ms .*cpu\s+([\d.]+) ms")
_SPEED_UP = re.compile(r"speed-up -j (\d+) over -j 1: median ([\d.]+)x")


def folder_sections(record: dict[str, Any]) -> list[dict[str, Any]]:
    """The measured sections of a bench/bench_folder.py record, in order."""
    sections: list[dict[str, Any]] = []
    section: dict[str, Any] = {}
    folder = ""
    for line in record["output"]:
        if re.match(r"\d\. ", line):
            if found := _FOLDER.search(line):
                files, tensors, header = found.groups()
                count = f"{int(tensors):,} tensor" + "s" * (tensors != "1")
                folder = f"{files} files of {count} ({header}-byte headers)"
            section = {"folder": folder, "per_file": "per file" in line, "rows": {}}
            sections.append(section)
        elif found := _PER_FILE.match(line):
            section["rows"][found[1]] = (float(found[2]), found[3])
        elif found := _COMMAND.match(line):
            section["rows"][found[1]] = (float(found[2]), float(found[3]))
        elif found := _SPEED_UP.search(line):
            section["jobs"], section["speed_up"] = found.groups()
    return sections


def folder_records() -> list[tuple[str, dict[str, Any]]]:
    """The records of bench/bench_folder.py runs: bench/results/folder-*.json."""
    return [
        (path.stem, json.loads(path.read_text(encoding="utf-8")))
        for path in sorted((ROOT / "bench" / "results").glob("folder-*.json"))
    ]


def _record_line(name: str, record: dict[str, Any]) -> str:
    machine, load = record["machine"], record["load_average_before"][0]
    return (
        f"`{name}`: `{' '.join(record['command'][1:])}`, {machine['cpus']} × "
        f"{machine['cpu_model']}, Python {machine['python']}, load average {load:.1f}"
    )


def bench_folder() -> str:
    """Per-file CPU of `check` and HF's header read (bench/results/folder-*.json)."""
    rows: list[list[object]] = []
    for name, record in folder_records():
        for section in folder_sections(record):
            if not section["per_file"]:
                continue
            measured = section["rows"]
            hf, _ = measured.pop("HF safe_open + keys + metadata")
            cells = [f"{ms:.3f} ms ({ratio}×)" for ms, ratio in measured.values()]
            rows.append([section["folder"], f"{hf:.3f} ms", *cells, f"`{name}`"])
    return markdown_table(
        [
            "folder",
            "HF `safe_open` + `keys()` + `metadata()`",
            "`check` (`check_file`)",
            "`stspec.read(mapped=False)`",
            "record",
        ],
        rows,
    )


def bench_folder_commands() -> str:
    """Whole `stspec check` commands against HF's script (folder-*.json)."""
    rows: list[list[object]] = []
    lines = []
    for name, record in folder_records():
        lines.append(f"- {_record_line(name, record)}")
        for section in folder_sections(record):
            if section["per_file"]:
                continue
            jobs, measured = section["jobs"], section["rows"]
            one_wall, one_cpu = measured["stspec check -j 1"]
            many_cpu = measured[f"stspec check -j {jobs}"][1]
            hf_wall, hf_cpu = measured["HF script (safe_open)"]
            rows.append(
                [
                    section["folder"],
                    f"{one_cpu:,.0f} ms / {one_wall:,.0f} ms",
                    f"{hf_cpu:,.0f} ms / {hf_wall:,.0f} ms",
                    f"{one_cpu / hf_cpu:.2f}×; {one_wall / hf_wall:.2f}×",
                    f"{many_cpu - one_cpu:,.0f} ms ({many_cpu / one_cpu:.2f}×)",
                    f"{section['speed_up']}×",
                    f"`{name}`",
                ]
            )
    return (
        markdown_table(
            [
                "folder",
                "`check -j 1`: CPU / wall",
                "HF script: CPU / wall",
                "`-j 1` / HF: CPU; wall",
                "CPU `-j 2` adds to `-j 1` (ratio)",
                "speed-up of `-j 2` (wall)",
                "record",
            ],
            rows,
        )
        + "\n"
        + "\n".join(lines)
        + "\n"
    )


# The goal bench/bench_startup.py measures against: `stspec check` / argparse.
STARTUP_GOAL: Final = 1.2


def _startup_record() -> dict[str, Any]:
    return json.loads(  # type: ignore[no-any-return]
        (ROOT / "bench" / "results" / "startup.json").read_text(encoding="utf-8")
    )


def _startup_sections(record: dict[str, Any], heading: str) -> dict[str, list[str]]:
    """The lines of each section of the run headed ``HEADING SETTING (...)``."""
    sections: dict[str, list[str]] = {}
    setting = ""
    for line in record["output"]:
        if line.startswith(heading):
            setting = line.removeprefix(heading).rsplit(" (", 1)[0]
            sections[setting] = []
        elif not line.strip():
            setting = ""
        elif setting:
            sections[setting].append(line.strip())
    return sections


def _startup_counts(record: dict[str, Any]) -> dict[str, dict[str, tuple[str, str]]]:
    """Command -> setting -> (instructions in millions, ratio to argparse alone)."""
    counts: dict[str, dict[str, tuple[str, str]]] = {}
    for setting, lines in _startup_sections(record, "instructions, ").items():
        for line in lines:
            name, count, _, ratio, _ = line.rsplit(maxsplit=4)
            counts.setdefault(name.strip(), {})[setting] = (count, ratio.rstrip("x"))
    return counts


def startup() -> str:
    """Instruction counts of the start-up commands (bench/results/startup.json)."""
    record = _startup_record()
    counts = _startup_counts(record)
    settings = list(dict.fromkeys(where for row in counts.values() for where in row))
    rows: list[list[object]] = [
        [f"`{name}`", *(f"{row[s][0]} M ({row[s][1]}×)" for s in settings)]
        for name, row in counts.items()
    ]
    machine = record["machine"]
    return (
        f"`{' '.join(record['command'][1:])}`, {machine['cpus']} × "
        f"{machine['cpu_model']}, Python {machine['python']}: user-space "
        "instructions (valgrind's cachegrind), and in brackets the ratio to argparse "
        f"alone; goal: `stspec check` at most {STARTUP_GOAL:g}× argparse alone.\n\n"
        + markdown_table(["command", *settings], rows)
    )


def startup_parts() -> str:
    """What each part of a check adds, and what the goal leaves for the auditor."""
    record = _startup_record()
    sections = _startup_sections(record, "where a check's instructions go, ")
    parts: dict[str, dict[str, str]] = {}
    for setting, lines in sections.items():
        for line in lines:
            if not line.startswith("goal:"):
                name, value = re.split(r"\s{2,}", line, maxsplit=1)
                parts.setdefault(name, {})[setting] = value.split(" (")[0]
    settings = list(sections)
    rows: list[list[object]] = [
        [name, *(row[s] for s in settings)] for name, row in parts.items()
    ]
    counts = _startup_counts(record)
    clean = settings[0]

    def millions(name: str) -> float:
        return float(counts[name][clean][0])

    goal = STARTUP_GOAL * millions("argparse alone (see ARGPARSE)")
    least = millions("+ the reader's modules for a small file")
    auditor = millions("+ the auditor's modules") - least
    check = millions("stspec check small.safetensors")
    ratio = check / millions("argparse alone (see ARGPARSE)")
    verdict = "met" if ratio <= STARTUP_GOAL else "not met"
    return (
        markdown_table(["part of a check", *settings], rows)
        + f"\nIn the {clean}, the goal is {goal:.1f} M instructions. argparse, the "
        f"command's parser and the reader's modules a small file needs take "
        f"{least:.1f} M ({least / goal * STARTUP_GOAL:.2f}× argparse alone), which "
        f"leaves {goal - least:.1f} M for the auditor's modules; they take "
        f"{auditor:.1f} M. The check takes {check:.1f} M, {ratio:.2f}× argparse "
        f"alone: **the goal is {verdict}**.\n"
    )


def reader_sizes() -> str:
    """The reader's parts in lines and statements (bench/results/reader-sizes.json)."""
    sizes = json.loads(
        (ROOT / "bench" / "results" / "reader-sizes.json").read_text(encoding="utf-8")
    )
    rows: list[list[object]] = [
        [
            part,
            ", ".join(f"`{name}`" for name in sizes["part_modules"][part]),
            size["lines"],
            size["statements"],
        ]
        for part, size in sizes["parts"].items()
    ]
    return markdown_table(["part", "modules", "lines", "statements"], rows)


def reader_lines() -> int:
    """The lines of reference/stspec/reader/ (bench/results/reader-sizes.json)."""
    sizes = json.loads(
        (ROOT / "bench" / "results" / "reader-sizes.json").read_text(encoding="utf-8")
    )
    return sum(size["lines"] for size in sizes["parts"].values())


def checkout_commands() -> str:
    """The checkout commands, with the durations measured (docs/data/timings.json).

    docs/measure_timings.py writes the file.  Wall time depends on what else
    the machine runs; CPU time (user + system of the command and its
    children) much less, so both are shown, CPU first, with the load when
    other work shared the cores.
    """
    timings = json.loads((DATA / "timings.json").read_text(encoding="utf-8"))
    cores = timings["machine"]["cpus"]
    lines = []
    for entry in timings["commands"]:
        steps = entry["steps"]
        wall = sum(step["wall_seconds"] for step in steps) / 60
        cpu = sum(step["cpu_seconds"] for step in steps) / 60
        load = max(max(step["load_average"]) for step in steps)
        where = (
            f"{cores} quiet cores"
            if load <= cores
            else f"{cores} cores at load {load:.0f}"
        )
        lines += [
            entry["command"],
            f"    # {cpu:.1f} min of CPU time, {wall:.1f} min of wall time on {where}",
        ]
    return "```sh\n" + "\n".join(lines) + "\n```\n"


def _results() -> list[dict[str, Any]]:
    """The runs of the results matrix: results/*.json whose set-up worked.

    A page asks for them in every part that names a row or a case (hundreds
    of parts), and parsing the files is nearly all of a regeneration's CPU
    time: they are parsed once per version of the files (name, size, mtime).
    """
    paths = sorted((ROOT / "results").glob("*.json"))
    versions = tuple((str(p), p.stat().st_size, p.stat().st_mtime_ns) for p in paths)
    return list(_parsed_results(versions))


@functools.cache
def _parsed_results(
    versions: tuple[tuple[str, int, int], ...],
) -> tuple[dict[str, Any], ...]:
    rows = [json.loads(Path(path).read_text(encoding="utf-8")) for path, *_ in versions]
    return tuple(
        row for row in rows if "implementation" in row and "setup_error" not in row
    )


def implementations() -> int:
    """The implementations of the results matrix: results/*.json that ran."""
    return len(_results())


def differentials() -> int:
    """The files two implementations of the matrix accept but load differently."""
    if str(ROOT) not in sys.path:
        sys.path.insert(0, str(ROOT))  # matrix/ is a folder of the checkout
    from matrix.render_diff import differentials as found  # noqa: PLC0415

    return len(found(_results()))


def _matrix_module(name: str) -> Any:  # noqa: ANN401  # a module of matrix/
    if str(ROOT) not in sys.path:
        sys.path.insert(0, str(ROOT))  # matrix/ is a folder of the checkout
    return importlib.import_module(f"matrix.{name}")


def _valid_cases() -> list[dict[str, Any]]:
    """The corpus's valid (y_) cases, from its manifest."""
    manifest = json.loads((ROOT / "corpus" / "manifest.json").read_text("utf-8"))
    return [case for case in manifest["cases"] if case["verdict"] == "valid"]


def _valid_differentials() -> list[tuple[str, list[str]]]:
    """(case, rows that loaded other than it states) per valid-file differential."""
    right = _matrix_module("render_diff").as_stated(_valid_cases())
    found = _matrix_module("render_diff").differentials(_results())
    return [
        (case_id, [name for names, answer in groups if not right(case_id, answer)
                   for name in names])
        for case_id, _, groups in found
        if any(right(case_id, answer) for _, answer in groups)
    ]  # fmt: skip


def valid_differentials() -> int:
    """The differentials on valid files (a group loaded what the file states)."""
    return len(_valid_differentials())


def valid_differential_rows() -> str:
    """Each valid-file differential with the rows that loaded something else."""
    return "; ".join(
        f"`{case_id}` ({_names(rows)})" for case_id, rows in _valid_differentials()
    )


def _names(names: list[str]) -> str:
    """``a``, ``a and b``, ``a, b and c``; ``none`` for no name."""
    if not names:
        return "none"
    return names[0] if len(names) == 1 else f"{', '.join(names[:-1])} and {names[-1]}"


def _outcome_words(words: str) -> set[str]:
    """Outcome classes written ``crashed,exception``; an unknown word stops.

    ``resource:reserved`` (or ``resident``) is one memory kind of ``resource``.
    """
    wanted = set(words.split(","))
    for word in wanted:
        outcome, _, memory = word.partition(":")
        if outcome not in OUTCOMES or (memory and memory not in MEMORY_KINDS):
            raise KeyError(f"unknown outcome {word}")
    return wanted


def _had(record: dict[str, Any], wanted: set[str]) -> bool:
    """Whether a case's record has one of the outcome words."""
    outcome = record.get("outcome")
    return outcome in wanted or f"{outcome}:{record.get('memory')}" in wanted


def _case_of(row: dict[str, Any], case_id: str) -> dict[str, Any]:
    """A row's record of one corpus case; a case no row ran is a typo, and stops."""
    if not any(case_id in other["cases"] for other in _results()):
        raise KeyError(f"no row ran the corpus case {case_id}")
    case: dict[str, Any] = row["cases"].get(case_id, {})
    return case


def case_rows(spec: str) -> str:
    """``rows OUTCOMES [CASE]``: the rows with one of OUTCOMES on CASE (or any case).

    ``rows raising NAME CASE``: the rows whose record of CASE names the
    exception NAME (whatever outcome class it was given).
    """
    words = spec.split()
    if words[0] == "raising":
        name, case_id = words[1:]
        return _names([
            row["implementation"]["name"]
            for row in _results()
            if f"({name})" in _case_of(row, case_id).get("detail", "")
        ])  # fmt: skip
    wanted = _outcome_words(words[0])
    if len(words) == 1:
        return _names([
            row["implementation"]["name"]
            for row in _results()
            if any(_had(case, wanted) for case in row["cases"].values())
        ])  # fmt: skip
    (case_id,) = words[1:]
    return _names([
        row["implementation"]["name"]
        for row in _results()
        if _had(_case_of(row, case_id), wanted)
    ])  # fmt: skip


def case_count(spec: str) -> int:
    """``cases OUTCOMES ROW``: the corpus cases on which ROW had one of OUTCOMES."""
    words, row_name = spec.split()
    wanted = _outcome_words(words)
    (row,) = [r for r in _results() if r["implementation"]["name"] == row_name]
    return sum(_had(case, wanted) for case in row["cases"].values())


def case_outcome(spec: str) -> str:
    """``outcome ROW CASE``: the outcome class ROW recorded for a corpus case."""
    row_name, case_id = spec.split()
    (row,) = [r for r in _results() if r["implementation"]["name"] == row_name]
    return str(_case_of(row, case_id).get("outcome", "not run"))


def failed(row_name: str) -> int:
    """``failed ROW``: the corpus cases and suite tests ROW failed."""
    (row,) = [r for r in _results() if r["implementation"]["name"] == row_name]
    records = [*row["cases"].values(), *row["tests"].values()]
    return sum(not record["ok"] for record in records)


def _shown(answer: dict[str, Any]) -> str:
    """What a reader loaded: each tensor's name (escaped), dtype and shape."""
    tensors = answer.get("tensors") or {}
    return (
        "; ".join(
            f"{name!a} {dtype}[{', '.join(str(dim) for dim in shape)}]"
            for name, (dtype, shape, _) in tensors.items()
        )
        or "no tensors"
    )


def loaded(case_id: str) -> str:
    """``loaded CASE``: what the rows that accept CASE load, grouped."""
    differs = _matrix_module("probe").differs
    found: list[tuple[list[str], dict[str, Any]]] = []
    for row in _results():
        answer = row.get("probe", {}).get(case_id) or {}
        if answer.get("result") != "accepted":
            continue
        name = row["implementation"]["name"]
        same = next((names for names, a in found if not differs(a, answer)), None)
        if same is None:
            found.append(([name], answer))
        else:
            same.append(name)
    if not found:
        return "no row accepts it"
    return "; ".join(
        f"`{_shown(answer)}` in {_names(names)}" for names, answer in found
    )


def _grid() -> dict[str, Any]:
    """The committed interop grid, results/interop/grid.json."""
    path = ROOT / "results" / "interop" / "grid.json"
    grid: dict[str, Any] = json.loads(path.read_text("utf-8"))
    return grid


def interop_grid() -> str:
    """The interop grid per writer and per reader, from results/interop/grid.json."""
    if str(ROOT) not in sys.path:
        sys.path.insert(0, str(ROOT))  # matrix/ is a folder of the checkout
    from matrix.grid_report import overview  # noqa: PLC0415

    return overview(_grid())


def grid_writers() -> int:
    """The interop grid's writers, gold writers included."""
    return len(_grid()["writers"])


def grid_readers() -> int:
    """The interop grid's readers."""
    return len(_grid()["readers"])


def grid_files() -> int:
    """The files the interop grid's readers read (every writer's written file)."""
    return sum(
        outcome["result"] == "written"
        for outcomes in _grid()["writers"].values()
        for outcome in outcomes.values()
    )


def gold_files() -> int:
    """The archival gold files kept in matrix/gold/ (its manifest's entries)."""
    manifest = ROOT / "matrix" / "gold" / "manifest.json"
    return len(json.loads(manifest.read_text("utf-8"))["files"])


def tolerated_cases() -> int:
    """The corpus's tolerated (i_) cases."""
    manifest = json.loads((ROOT / "corpus" / "manifest.json").read_text("utf-8"))
    return sum(case["verdict"] == "tolerated" for case in manifest["cases"])


def _execution_profile() -> tuple[list[int], list[int]]:
    """The CPU columns of docs/data/fuzz/execution-profile.json.

    Instrumented, then plain; the reader's own four runs are the first rows.
    """
    table = json.loads((DATA / "fuzz" / "execution-profile.json").read_text("utf-8"))
    return [row[1] for row in table["rows"]], [row[2] for row in table["rows"]]


def fuzz_reader_share() -> str:
    """The share of an instrumented execution the reader's own four runs take."""
    instrumented, _ = _execution_profile()
    return f"{sum(instrumented[:4]) / sum(instrumented):.0%}".replace("%", " %")


def fuzz_instrumentation() -> str:
    """How much slower atheris's instrumentation makes the reader's four runs."""
    instrumented, plain = _execution_profile()
    return f"{sum(instrumented[:4]) / sum(plain[:4]):.1f} ×"


# figures (a ratio, a share) a sentence states, as ``<!-- generated: figure NAME -->``
FIGURES: Final[dict[str, Callable[[], str]]] = {
    "fuzz reader share": fuzz_reader_share,
    "fuzz instrumentation": fuzz_instrumentation,
}


# numbers a sentence states, as ``<!-- generated: count NAME -->``
COUNTS: Final[dict[str, Callable[[], int]]] = {
    "implementations": implementations,
    "differentials": differentials,
    "valid differentials": valid_differentials,
    "tolerated cases": tolerated_cases,
    "reader lines": reader_lines,
    "grid writers": grid_writers,
    "grid readers": grid_readers,
    "grid files": grid_files,
    "gold files": gold_files,
}


GENERATORS: Final[dict[str, Callable[[], str]]] = {
    "rules": rules,
    "cli": cli,
    "suite-options": suite_options,
    "capabilities": capabilities,
    "outcomes": outcomes,
    "manifest-schema": manifest_schema,
    "hf-deviations": hf_deviations,
    "benchmarks": benchmarks,
    "reader-sizes": reader_sizes,
    "bench-hostile": hostile,
    "bench-folder": bench_folder,
    "bench-folder-commands": bench_folder_commands,
    "startup": startup,
    "startup-parts": startup_parts,
    "checkout-commands": checkout_commands,
    "interop-overview": interop_grid,
    "valid-differential-rows": valid_differential_rows,
}


def file_block(path: str) -> str:
    """A file of the repository as a fenced code block (its suffix names the language).

    GitHub shows a page's Markdown source as it is, where an include directive
    is a line of code: a generated copy shows the file on GitHub and on the site.
    """
    source = (ROOT / path).resolve()
    if not source.is_relative_to(ROOT):
        raise ValueError(f"file {path}: outside the repository")
    language = {".yml": "yaml", ".yaml": "yaml", ".py": "python"}.get(source.suffix, "")
    return f"```{language}\n{source.read_text(encoding='utf-8')}```\n"


def record_output(name: str) -> str:
    """What a recorded run printed (bench/results/NAME.json), as a text block."""
    path = (ROOT / "bench" / "results" / f"{name}.json").resolve()
    if not path.is_relative_to(ROOT / "bench" / "results"):
        raise ValueError(f"output {name}: not a record of bench/results/")
    record = json.loads(path.read_text(encoding="utf-8"))
    lines = [line for line in record["output"] if line.strip()]
    machine = record["machine"]
    return (
        f"`{' '.join(record['command'][1:])}`, {machine['cpus']} × "
        f"{machine['cpu_model']}, Python {machine['python']}:\n\n"
        "```text\n" + "\n".join(lines) + "\n```\n"
    )


# parts whose marker carries an argument, ``PREFIX ARGUMENT``; a longer prefix
# comes before its start ("count cases" before "count")
PARAMETERISED: Final[dict[str, Callable[[str], str]]] = {
    "table": data_table,
    "file": file_block,
    "output": record_output,
    "count cases": lambda spec: f"{case_count(spec):,}",
    "count failed": lambda spec: f"{failed(spec):,}",
    "count": lambda spec: f"{COUNTS[spec]():,}",
    "figure": lambda spec: FIGURES[spec](),
    "rows": case_rows,
    "outcome": case_outcome,
    "loaded": loaded,
}


def generate(name: str) -> str:
    """The text of the generated part NAME."""
    for prefix, make in PARAMETERISED.items():
        if name.startswith(f"{prefix} "):
            return make(name.removeprefix(f"{prefix} "))
    return GENERATORS[name]()


def pages() -> list[Path]:
    """Every Markdown page that may hold generated parts."""
    docs = [p for p in (ROOT / "docs").rglob("*.md") if "_build" not in p.parts]
    return [ROOT / "README.md", *sorted(docs)]


def regenerate(text: str) -> str:
    """The page with each generated part rewritten."""
    return REGION.sub(
        lambda m: f"{m.group(1)}{generate(m.group('name'))}{m.group(4)}", text
    )


def main(argv: list[str] | None = None) -> int:
    """Rewrite, or with --check compare, every generated part."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="only compare")
    args = parser.parse_args(argv)
    stale = []
    for page in pages():
        text = page.read_text(encoding="utf-8")
        new = regenerate(text)
        if new != text:
            stale.append(page.relative_to(ROOT).as_posix())
            if not args.check:
                page.write_text(new, encoding="utf-8")
    if args.check and stale:
        print(
            f"generated parts differ from their data in: {', '.join(stale)} "
            "(run python docs/generate_pages.py)",
            file=sys.stderr,
        )
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
