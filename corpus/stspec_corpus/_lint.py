"""Corpus lint: manifest, files, reproducibility, reader agreement, coverage.

Every check returns a list of problems (strings); an empty list is a pass.
The project's tests call these functions one by one; ``lint()`` runs them all
for ``python -m stspec_corpus lint``.
"""

from __future__ import annotations

import hashlib
import json
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Final

import stspec
from stspec.rules import RULES, RULES_BY_ID
from stspec_corpus._generate import FILES, SCHEMA, SUFFIX, check
from stspec_corpus._model import ID_PATTERN, VERDICTS, Case
from stspec_corpus._paths import MANIFEST, default_dir
from stspec_corpus._recipes import HASH_LIMIT, run
from stspec_corpus._registry import all_cases

if TYPE_CHECKING:
    from collections.abc import Iterable, Sequence

MIN_CASES: Final = 200
MAX_COMMITTED: Final = 5 * 1024 * 1024
MAX_DESCRIPTION: Final = 100
READER_RULES: Final = tuple(rule for rule in RULES if rule.scope == "reader")


# --- coverage ----------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class CoverageRow:
    """How the corpus covers one reader rule."""

    rule: str
    level: str
    breaking: tuple[str, ...]  # n_ (MUST) or i_ (MAY) cases breaking only this rule
    boundary: tuple[str, ...]  # y_ cases at the rule's boundary
    also: tuple[str, ...]  # i_ cases breaking it together with other MAY rules

    @property
    def gap(self) -> bool:
        """Whether the rule lacks a breaking case or a boundary case."""
        return not self.breaking or not self.boundary


def coverage(cases: Sequence[Case] | None = None) -> list[CoverageRow]:
    """Return the rule-coverage rows, one per reader rule, in registry order."""
    cases = all_cases() if cases is None else cases
    rows = []
    for rule in READER_RULES:
        breaker = "n" if rule.level == "MUST" else "i"
        rows.append(
            CoverageRow(
                rule.id,
                rule.level,
                tuple(
                    c.id for c in cases if c.id[0] == breaker and c.rules == (rule.id,)
                ),
                tuple(c.id for c in cases if c.id[0] == "y" and rule.id in c.rules),
                tuple(
                    c.id
                    for c in cases
                    if c.id[0] == "i" and rule.id in c.rules and len(c.rules) > 1
                ),
            )
        )
    return rows


def coverage_gaps(rows: Iterable[CoverageRow] | None = None) -> list[str]:
    """One problem per rule without a breaking case or a boundary case."""
    rows = coverage() if rows is None else rows
    problems = []
    for row in rows:
        kind = "n_" if row.level == "MUST" else "i_"
        if not row.breaking:
            problems.append(f"{row.rule}: no {kind} case breaks only this rule")
        if not row.boundary:
            problems.append(f"{row.rule}: no y_ case at its boundary")
    return problems


def coverage_table(rows: Iterable[CoverageRow] | None = None) -> str:
    """Return the coverage table as aligned text (the `coverage` command prints it)."""
    rows = list(coverage() if rows is None else rows)
    lines = [f"{'rule':<18} {'level':<5} {'breaking':>8} {'boundary':>8}  example"]
    for row in rows:
        mark = "  <-- GAP" if row.gap else ""
        sample = row.breaking[0] if row.breaking else "-"
        lines.append(
            f"{row.rule:<18} {row.level:<5} {len(row.breaking):>8} "
            f"{len(row.boundary):>8}  {sample}{mark}"
        )
    lines.append(
        f"{len(rows)} reader rules, {sum(r.gap for r in rows)} with a gap; "
        "breaking = n_ (MUST) or i_ (MAY) cases breaking only the rule, "
        "boundary = y_ cases listing it"
    )
    return "\n".join(lines)


# --- manifest and files ------------------------------------------------------


def _load(directory: Path) -> tuple[dict[str, object], list[dict[str, object]]]:
    data = json.loads((directory / MANIFEST).read_text(encoding="utf-8"))
    return data, list(data["cases"])


def lint_schema(directory: Path | None = None) -> list[str]:
    """Check the schema (Draft 2020-12) and the manifest against it."""
    from jsonschema import (  # type: ignore[import-untyped]  # noqa: PLC0415
        Draft202012Validator,  # a dev dependency, needed only here
    )

    root = default_dir() if directory is None else directory
    schema = json.loads((root / SCHEMA).read_text(encoding="utf-8"))
    Draft202012Validator.check_schema(schema)
    data, _ = _load(root)
    validator = Draft202012Validator(schema)
    return [
        f"manifest {'/'.join(str(p) for p in error.absolute_path)}: "
        f"{error.message[:200]}"
        for error in validator.iter_errors(data)
    ]


def lint_entries(directory: Path | None = None) -> list[str]:
    """Check that ids, verdicts, rules and files agree with each other."""
    root = default_dir() if directory is None else directory
    _, entries = _load(root)
    problems: list[str] = []
    seen: set[str] = set()
    for entry in entries:
        case_id = str(entry["id"])
        if case_id in seen:
            problems.append(f"{case_id}: duplicate id")
        seen.add(case_id)
        problems += [f"{case_id}: {p}" for p in _entry_problems(root, entry)]
    listed = {str(e["file"]) for e in entries if "file" in e}
    problems += [
        f"{FILES}/{path.name}: not listed in the manifest"
        for path in sorted((root / FILES).glob("*"))
        if f"{FILES}/{path.name}" not in listed
    ]
    return problems


def _entry_problems(root: Path, entry: dict[str, object]) -> list[str]:
    case_id = str(entry["id"])
    problems = []
    if not ID_PATTERN.match(case_id):
        problems.append("id does not match ^[ynix]_[a-z0-9]+(_[a-z0-9]+)*$")
    verdict = VERDICTS.get(case_id[0])
    if entry["verdict"] != verdict:
        problems.append(f"verdict {entry['verdict']} disagrees with the prefix")
    rules = [str(r) for r in entry["rules"]]  # type: ignore[attr-defined]
    problems += _rule_problems(case_id, verdict, rules)
    further = [str(r) for r in entry.get("also_breaks", [])]  # type: ignore[attr-defined]
    if further and (verdict != "invalid" or set(further) & set(rules)):
        problems.append(f"also_breaks {further} on a {verdict} case or repeating rules")
    if "file" in entry:
        problems += _file_problems(root, case_id, entry)
    elif "recipe" not in entry:
        problems.append("has neither file nor recipe")
    return problems


def _rule_problems(case_id: str, verdict: str | None, rules: list[str]) -> list[str]:
    unknown = [
        r for r in rules if r not in RULES_BY_ID or RULES_BY_ID[r].scope != "reader"
    ]
    levels = [RULES_BY_ID[r].level for r in rules if not unknown]
    if unknown:
        return [f"not reader rule ids: {unknown}"]
    if not rules:
        return ["lists no rules"]
    if case_id[0] == "n" and levels != ["MUST"]:
        return [f"an n_ case must name exactly one MUST rule, has {rules}"]
    if case_id[0] == "x" and (len(rules) < 2 or set(levels) != {"MUST"}):
        return [f"an x_ case must name two or more MUST rules, has {rules}"]
    if verdict == "tolerated" and set(levels) != {"MAY"}:
        return [f"an i_ case may break only MAY rules, has {rules}"]
    return []


def _file_problems(root: Path, case_id: str, entry: dict[str, object]) -> list[str]:
    if entry["file"] != f"{FILES}/{case_id}{SUFFIX}":
        return [f"file {entry['file']} is not {FILES}/{case_id}{SUFFIX}"]
    path = root / str(entry["file"])
    if not path.is_file():
        return [f"{entry['file']} does not exist"]
    data = path.read_bytes()
    problems = []
    if len(data) != entry["size"]:
        problems.append(f"size {entry['size']} but the file has {len(data)} bytes")
    if hashlib.sha256(data).hexdigest() != entry.get("sha256"):
        problems.append("sha256 does not match the file")
    return problems


def lint_totals(directory: Path | None = None) -> list[str]:
    """Check totals (200+ cases, < 5 MB) and that no two files or descriptions agree."""
    root = default_dir() if directory is None else directory
    _, entries = _load(root)
    problems = []
    if len(entries) < MIN_CASES:
        problems.append(f"only {len(entries)} cases, at least {MIN_CASES} wanted")
    paths = [root / MANIFEST, root / SCHEMA, *sorted((root / FILES).glob("*"))]
    total = sum(p.stat().st_size for p in paths)
    if total >= MAX_COMMITTED:
        problems.append(
            f"the committed corpus is {total:,} bytes, limit {MAX_COMMITTED:,}"
        )
    described: dict[str, str] = {}
    for entry in entries:
        text = str(entry["description"])
        if text in described:
            problems.append(f"{entry['id']}: same description as {described[text]}")
        described[text] = str(entry["id"])
        if len(text) > MAX_DESCRIPTION or "should" in text.lower():
            problems.append(f"{entry['id']}: description too long or says 'should'")
    digests: dict[str, str] = {}
    for entry in entries:
        sha = entry.get("sha256")
        if isinstance(sha, str):
            if sha in digests:
                problems.append(f"{entry['id']}: same bytes as {digests[sha]}")
            digests[sha] = str(entry["id"])
    return problems


def committed_size(directory: Path | None = None) -> int:
    """Total bytes of the committed corpus (files, manifest and schema)."""
    root = default_dir() if directory is None else directory
    paths = [root / MANIFEST, root / SCHEMA, *(root / FILES).glob("*")]
    return sum(p.stat().st_size for p in paths if p.is_file())


def lint_regeneration(directory: Path | None = None) -> list[str]:
    """Check that the committed corpus equals a fresh generation."""
    return check(directory)


# --- agreement with the strict reference reader --------------------------------


def lint_case(  # noqa: PLR0911 - one return per verdict and outcome
    case: Case, path: Path, *, check_read: bool = True
) -> list[str]:
    """Check that the reference reader agrees with one case.

    A y_ case must validate and load with exactly its expected content; an n_
    or i_ case must make ``validate`` report exactly its declared rules (and
    ``read`` fail with one of them, unless ``check_read`` is false).  An i_
    case's expected content is checked with a lenient reading (Python's json).
    """
    errors = stspec.validate(path)
    found = sorted({e.rule for e in errors})
    if case.verdict == "valid":
        if errors:
            return [f"{case.id}: the reference rejects a y_ case: {errors[0]}"]
        return _content_problems(case, path)
    if found != sorted(case.rules):
        shown = "; ".join(str(e) for e in errors[:3])
        return [
            f"{case.id}: validate reports {found}, declared {list(case.rules)}: {shown}"
        ]
    if case.verdict == "tolerated":
        return _lenient_problems(case, path)
    if not check_read:
        return []
    try:
        stspec.read(path).close()
    except stspec.SafetensorsError as exc:
        if exc.rule not in case.rules:
            return [
                f"{case.id}: read fails with {exc.rule}, declared {list(case.rules)}"
            ]
        return []
    return [f"{case.id}: read accepts a case that validate rejects"]


def _content_problems(case: Case, path: Path) -> list[str]:
    expected = case.expected
    if expected is None:
        return [f"{case.id}: no expected content"]
    problems = []
    with stspec.read(path) as loaded:
        if loaded.metadata != (
            None if expected.metadata is None else dict(expected.metadata)
        ):
            problems.append(
                f"metadata {loaded.metadata!r:.80} != {expected.metadata!r:.80}"
            )
        if set(loaded.tensors) != set(expected.tensors):
            problems.append("the tensor names differ from the expected ones")
        for name, want in expected.tensors.items():
            info = loaded.tensors.get(name)
            if info is None:
                continue
            if (info.dtype, tuple(info.shape), info.nbytes) != (
                want.dtype,
                want.shape,
                want.nbytes,
            ):
                problems.append(
                    f"tensor {name!r:.40}: {info.dtype}{list(info.shape)} "
                    f"{info.nbytes} "
                    f"bytes, expected {want.dtype}{list(want.shape)} {want.nbytes}"
                )
            elif want.nbytes <= HASH_LIMIT:
                data = loaded.tensor_bytes(name)
                if hashlib.sha256(data).hexdigest() != want.sha256:
                    problems.append(f"tensor {name!r:.40}: sha256 differs")
                if want.values is not None:
                    problems += _value_problems(
                        name, want.dtype, want.shape, bytes(data), want.values
                    )
    return [f"{case.id}: {p}" for p in problems]


def _lenient_problems(case: Case, path: Path) -> list[str]:
    """Compare an i_ case's expectation with what a lenient reader sees."""
    expected = case.expected
    if expected is None:
        return [f"{case.id}: no expected content"]
    data = path.read_bytes()
    length = int.from_bytes(data[:8], "little")
    header = json.loads(data[8 : 8 + length].decode("utf-8"))
    metadata = header.pop("__metadata__", None)
    problems = []
    if metadata != (None if expected.metadata is None else dict(expected.metadata)):
        problems.append(f"metadata {metadata!r:.80} != {expected.metadata!r:.80}")
    if set(header) != set(expected.tensors):
        problems.append("the tensor names differ from the expected ones")
    for name, want in expected.tensors.items():
        entry = header.get(name, {})
        begin, end = entry.get("data_offsets", (0, 0))
        got = hashlib.sha256(data[8 + length + begin : 8 + length + end]).hexdigest()
        if (entry.get("dtype"), tuple(entry.get("shape", ())), end - begin, got) != (
            want.dtype,
            want.shape,
            want.nbytes,
            want.sha256,
        ):
            problems.append(f"tensor {name!r:.40} differs from the expected one")
    return [f"{case.id}: {p}" for p in problems]


def _value_problems(
    name: str, dtype: str, shape: tuple[int, ...], data: bytes, values: Sequence[object]
) -> list[str]:
    try:
        from stspec_corpus._decode import decode  # noqa: PLC0415 - needs numpy
    except ImportError:  # pragma: no cover - numpy and ml_dtypes are dev dependencies
        return []
    decoded = decode(dtype, shape, data)
    if decoded != list(values):
        shown = f"values decode to {decoded}, manifest lists {list(values)}"
        return [f"tensor {name!r:.40}: {shown}"]
    return []


def lint_reader(
    cases: Sequence[Case] | None = None, directory: Path | None = None
) -> list[str]:
    """Check every committed case against the reference reader."""
    root = default_dir() if directory is None else directory
    problems = []
    for case in all_cases() if cases is None else cases:
        if case.data is not None:
            problems += lint_case(case, root / FILES / f"{case.id}{SUFFIX}")
    return problems


def lint_recipes(cases: Sequence[Case] | None = None) -> list[str]:
    """Check that every recipe materialises as declared and agrees with the reader."""
    problems = []
    with tempfile.TemporaryDirectory(prefix="stspec-recipes-") as tmp:
        for case in all_cases() if cases is None else cases:
            if case.recipe is None:
                continue
            path = Path(tmp) / f"{case.id}{SUFFIX}"
            output = run(case.recipe.name, case.recipe.params)
            output.write(path)
            if path.stat().st_size != case.size:
                problems.append(f"{case.id}: materialised {path.stat().st_size} bytes")
            if case.sha256 is not None and output.sha256() != case.sha256:
                problems.append(f"{case.id}: materialised bytes differ from sha256")
            problems += lint_case(case, path, check_read=False)
            path.unlink()
    return problems


def lint(directory: Path | str | None = None, *, recipes: bool = True) -> list[str]:
    """Run every check; return all problems."""
    root = default_dir() if directory is None else Path(directory)
    problems = [
        *lint_schema(root),
        *lint_entries(root),
        *lint_totals(root),
        *lint_regeneration(root),
        *coverage_gaps(),
        *lint_reader(directory=root),
    ]
    if recipes:
        problems += lint_recipes()
    return problems
