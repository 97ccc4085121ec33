"""Write results/findings/NAME.md: dangerous findings, ready for upstream trackers.

``python -m matrix findings`` (also run by ``render`` and ``all``).  The
mechanical parts come from the data: which corpus cases an implementation
crashed, hung, ran out of its allowance on or accepted although they break a
layout or size rule (``results/NAME.json``), the smallest such file (hex and
base64 from ``corpus/files``), the rule's statement (``stspec.rules``) and
the installed version; where the project takes reports and the API the
matrix calls come from its row (``matrix/rows/NAME.toml``).  The hand-written
parts (its reproducer script, the suggested fix per kind of finding, the
statements a reproducer shows on a corpus file that the run's outcomes do
not (``checks``), the upstream status) live in ``matrix/findings.toml``.
Deterministic: no clock, no environment.
"""

from __future__ import annotations

import base64
import json
import re
import sys
import textwrap
import tomllib
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Final

from matrix import envs
from matrix.badges import SITE
from matrix.crash_line import observed_crash
from matrix.impls import IMPLS, LAYERS
from matrix.render_data import load_results
from matrix.runner import corpus_seed
from matrix.scores import FINDINGS_DATA
from matrix.scrub import scrub
from stspec.rules import RULES_BY_ID

if TYPE_CHECKING:
    from collections.abc import Iterable
    from pathlib import Path

__all__ = [
    "DATA",
    "KINDS",
    "Finding",
    "classify",
    "findings_of",
    "memory_of",
    "outcome_of",
    "report",
    "script_of",
    "write_dir",
]

DATA: Final = FINDINGS_DATA
REPO_URL: Final = "https://github.com/safetensors-spec/safetensors-spec"
# Files up to this size are pasted into the report; larger ones are linked.
_PASTED: Final = 2048
_SHOWN_CASES: Final = 12
_ROWS: Final = {impl.name: impl for impl in IMPLS}


@dataclass(frozen=True)
class Kind:
    """One kind of dangerous finding and how a case is recognised as one."""

    key: str
    label: str  # a few words for the report's title
    title: str
    outcomes: frozenset[str]
    rules: frozenset[str] = frozenset()  # accepted invalid files breaking one of these


KINDS: Final = (
    Kind(
        "crash",
        "crashes",
        "crashes (a signal, a panic or an abort) instead of rejecting",
        frozenset({"crashed"}),
    ),
    Kind(
        "fail-open",
        "fails open",
        "answers success on a file it says it could not judge (fails open)",
        frozenset({"fail-open"}),
    ),
    Kind(
        "hang",
        "hangs",
        "hangs (no answer within the CPU-time limit)",
        frozenset({"hung"}),
    ),
    Kind(
        "resource",
        "asks for memory by claimed sizes",
        "asks for memory by sizes the file claims, before comparing them with the file",
        frozenset({"resource"}),
    ),
    Kind(
        "bounds",
        "accepts out-of-bounds ranges",
        "accepts a header or tensor range that lies outside the file",
        frozenset({"accepted"}),
        frozenset({"LAYOUT-BOUNDS", "OFFSETS-ORDER", "HEADER-LIMIT", "HEADER-BOUNDS"}),
    ),
    Kind(
        "size",
        "accepts size mismatches",
        "accepts a tensor whose range does not hold its dtype x shape",
        frozenset({"accepted"}),
        frozenset({"SIZE-MATCH", "SIZE-OVERFLOW"}),
    ),
    Kind(
        "overlap",
        "accepts overlapping tensors",
        "accepts tensors that share bytes",
        frozenset({"accepted"}),
        frozenset({"LAYOUT-OVERLAP"}),
    ),
    Kind(
        "exception",
        "raises unexpected exceptions",
        "raises an unexpected exception instead of its own error",
        frozenset({"exception"}),
    ),
)
# A crash reported as a managed runtime's exception type (results written
# before the suite told ``exception`` from ``crashed``): Python's and Java's
# type names, and the exit status 70 the Node wrappers give for a throw
# that is not the library's refusal.  A pyo3 panic is a native crash.
_MANAGED: Final = re.compile(r"(?:[\w.]*(?:Error|Exception|error)|exit status 70)")
_NATIVE: Final = frozenset({"PanicException"})


@dataclass(frozen=True)
class Finding:
    """One kind of finding of one implementation: its cases, smallest first."""

    kind: Kind
    cases: tuple[dict[str, Any], ...]  # manifest entries


def outcome_of(got: dict[str, Any]) -> str:
    """A case's outcome, with a managed runtime's exception told from a crash."""
    outcome = str(got["outcome"])
    crash = str(got.get("crash", ""))
    if outcome == "crashed" and crash not in _NATIVE and _MANAGED.fullmatch(crash):
        return "exception"
    return outcome


def memory_of(got: dict[str, Any]) -> str:
    """For a ``resource`` outcome: ``reserved``, ``resident`` or "" (not said)."""
    found = re.match(r"resource \((reserved|resident)\)", str(got.get("detail", "")))
    return found.group(1) if found else ""


def classify(case: dict[str, Any], outcome: str) -> Kind | None:
    """The first kind a case's outcome makes it, or None if it is no danger."""
    for kind in KINDS:
        if outcome not in kind.outcomes:
            continue
        if not kind.rules:
            return kind
        if case["verdict"] == "invalid" and kind.rules & set(case["rules"]):
            return kind
    return None


def findings_of(
    result: dict[str, Any],
    manifest: dict[str, Any],
    excluded: Iterable[str] = (),
    variant_only: Iterable[str] = (),
) -> list[Finding]:
    """The dangerous findings in one results/NAME.json, most dangerous first.

    ``excluded`` names cases whose failure is not the library's (its
    wrapper's conversion of what the library returned, say).
    ``variant_only`` names cases whose failure the run's variant of the file
    shows and the committed file does not (it fails there another way): they
    are listed, never shown as a finding's smallest file.
    """
    late = frozenset(variant_only)
    found: dict[str, list[dict[str, Any]]] = {}
    # a record of a failed set-up has no cases: nothing was observed
    for case_id, got in result.get("cases", {}).items():
        case = manifest.get(case_id)
        if got["ok"] or case is None or case_id in excluded:
            continue
        kind = classify(case, outcome_of(got))
        if kind is not None:
            found.setdefault(kind.key, []).append(case)
    return [
        Finding(
            kind,
            tuple(
                sorted(
                    found[kind.key],
                    key=lambda c: (c["id"] in late, c["size"], c["id"]),
                )
            ),
        )
        for kind in KINDS
        if kind.key in found
    ]


def _rule_line(rule_id: str) -> str:
    rule = RULES_BY_ID[rule_id]
    link = f"[{rule_id}]({SITE}/spec/SPEC.html#rule-{rule_id})"
    return f"- {link} ({rule.level}, {rule.scope}): {rule.statement}"


def _observed(case_id: str, got: dict[str, Any], probe: dict[str, Any]) -> str:
    detail = str(got.get("detail", got["outcome"]))
    # the rest repeats the case's description and the suite's temporary paths
    detail = detail.split(" case: ", 1)[0]
    for prefix in (f"{got['outcome']} on {case_id}: ", f"{got['outcome']}: "):
        detail = detail.removeprefix(prefix)
    if got["outcome"] == "crashed" and probe.get("result") == "crashed":
        # the suite quoted a native program's last stderr line, its backtrace
        # hint; the probe ran the same program on the file and kept the panic
        detail = observed_crash(detail, str(probe.get("error", "")))
    detail = scrub(detail)
    loaded = probe.get("tensors") if probe.get("result") == "accepted" else None
    if loaded:
        shown = [f"{name} {t[0]}{t[1]}" for name, t in list(loaded.items())[:4]]
        more = f" and {len(loaded) - 4} more" if len(loaded) > 4 else ""
        detail += f"; it returned {', '.join(shown)}{more}"
    return " ".join(detail.split())


def _expected(case: dict[str, Any]) -> str:
    rules = ", ".join(case["rules"])
    if case["verdict"] == "invalid":
        return f"rejected with the library's own error (the file breaks {rules})"
    if case["verdict"] == "valid":
        return "accepted, every tensor loaded as the file states"
    return "accepted or rejected with the library's own error, never a crash"


def _file_block(case: dict[str, Any]) -> list[str]:
    name = f"{case['id']}.safetensors"
    if "file" not in case:  # a recipe: too large to commit, built on demand
        return [
            (
                f"The file is {case['size']:,} bytes, built by the corpus's recipe "
                f"in a checkout of [safetensors-spec]({REPO_URL}):"
            ),
            "",
            "```sh",
            f"python -m stspec_corpus materialise {case['id']} .",
            "```",
        ]
    data = (envs.REPO / "corpus" / case["file"]).read_bytes()
    if len(data) > _PASTED:
        url = f"{REPO_URL}/raw/main/corpus/{case['file']}"
        return [
            f"The file is {len(data):,} bytes, too large to paste; download it:",
            "",
            "```sh",
            f"curl -L -o {name} {url}",
            "```",
        ]
    hex_lines = textwrap.wrap(data.hex(), 64)
    b64 = base64.b64encode(data).decode("ascii")
    return [
        f"{len(data)} bytes, hex:",
        "",
        "```text",
        *hex_lines,
        "```",
        "",
        "Write it from base64:",
        "",
        "```sh",
        f"echo '{b64}' | base64 -d > {name}",
        "```",
    ]


def _installed(result: dict[str, Any]) -> list[str]:
    environment = result["environment"]
    pins = environment.get("pins", {})
    packages = [p for p in pins.get("pip", []) if not p.startswith("numpy==")]
    layer = environment.get("layer")
    if layer:
        names = {spec.split("==")[0] for spec in LAYERS[layer]}
        packages += [
            spec.split("+")[0]
            for spec in environment.get("installed", [])
            if spec.split("==")[0] in names and not spec.startswith("numpy==")
        ]
    commands = []
    if packages:
        commands.append("pip install " + " ".join(f"'{p}'" for p in packages))
    if pins.get("npm"):
        commands.append("npm install " + " ".join(pins["npm"]))
    return commands


# reproducer suffix -> (code block language, how it is run); a Java one runs
# as a single-file source program with the library's jars on the class path
_LANGUAGES: Final = {
    ".mjs": ("js", "node"),
    ".go": ("go", "go run"),
    ".java": ("java", "java -cp 'lib/*'"),
    ".rs": ("rust", "cargo run --release --quiet --"),
}
# Rust has no single-file runner: the reproducer is the main.rs of the cargo
# project its row's install lines make, run by the project, not by its name
_PROJECT_RUN: Final = frozenset({".rs"})


def script_of(hand: dict[str, Any], kind: str) -> str | None:
    """The reproducer of one kind of finding: its own, else the report's."""
    own: dict[str, str] = hand.get("scripts", {})
    return own.get(kind) or hand.get("script")


def _script(hand: dict[str, Any], kind: str = "") -> tuple[str, str, str]:
    """The reproducer's text, language and how this project runs it."""
    name = script_of(hand, kind)
    if name is None:
        return "", "", "the implementation's loader on"
    path = envs.REPO / "matrix" / "repro" / name
    text = path.read_text("utf-8")
    language, runner = _LANGUAGES.get(path.suffix, ("python", "python"))
    if path.suffix in _PROJECT_RUN:
        return text, language, runner
    return text, language, f"{runner} {path.name}"


_MEMORY_WORDS: Final = {
    "reserved": (
        "reserved: the allocation the claim asked for was refused under the "
        "suite's allowance before its pages were used; address space was asked "
        "for, resident memory was not shown to grow"
    ),
    "resident": "resident: its resident memory grew past the suite's allowance",
}


def _memory_line(finding: Finding, got: dict[str, Any]) -> list[str]:
    memory = memory_of(got) if finding.kind.key == "resource" else ""
    return [f"- Memory: {_MEMORY_WORDS[memory]}"] if memory else []


def _section(
    number: int,
    finding: Finding,
    result: dict[str, Any],
    hand: dict[str, Any],
    run: str,
) -> list[str]:
    smallest = finding.cases[0]
    got = result["cases"][smallest["id"]]
    probe = result.get("probe", {}).get(smallest["id"]) or {}
    ids = [c["id"] for c in finding.cases]
    shown = ", ".join(f"`{i}`" for i in ids[:_SHOWN_CASES])
    if len(ids) > _SHOWN_CASES:
        shown += f" and {len(ids) - _SHOWN_CASES} more"
    rules = sorted({r for c in finding.cases for r in c["rules"]})
    fix = hand.get("fix", {}).get(finding.kind.key)
    own = hand.get("scripts", {}).get(finding.kind.key)
    text, language, run = _script(hand, finding.kind.key) if own else ("", "", run)
    # a finding that needs a measurement has a reproducer of its own
    script = [
        f"`{own}` shows this one by itself:",
        "",
        f"```{language}",
        text.rstrip(),
        "```",
        "",
    ]
    return [
        f"## {number}. It {finding.kind.title}",
        "",
        f"{len(ids)} corpus file{'s' if len(ids) > 1 else ''}: {shown}.",
        "",
        "Rules (safetensors-spec):",
        "",
        *[_rule_line(r) for r in rules],
        "",
        f"### Smallest file: `{smallest['id']}`",
        "",
        f"{smallest['description'][:1].upper()}{smallest['description'][1:]}.",
        "",
        *_file_block(smallest),
        "",
        *(script if own else []),
        "```sh",
        f"{run} {smallest['id']}.safetensors",
        "```",
        "",
        f"- Observed (conformance run): {_observed(smallest['id'], got, probe)}",
        *_memory_line(finding, got),
        f"- Expected: {_expected(smallest)}",
        "",
        "### Suggested fix",
        "",
        (fix or "Not written yet.").strip(),
        "",
    ]


def _checks(hand: dict[str, Any], manifest: dict[str, Any], run: str) -> list[str]:
    """The statements a reproducer shows that no outcome of the run does."""
    checks: list[dict[str, str]] = hand.get("checks", [])
    if not checks:
        return []
    lines = [
        "## Also shown by calling the library directly",
        "",
        (
            "The conformance run does not show these by itself (another failure "
            "comes first there, or it is a measurement); the reproducer does."
        ),
        "",
    ]
    for check in checks:
        case = manifest[check["case"]]
        script = check.get("script")
        text, language, how = _script({"script": script}) if script else ("", "", run)
        shown = [f"`{script}`:", "", f"```{language}", text.rstrip(), "```", ""]
        lines += [
            f"### `{case['id']}`",
            "",
            check["says"].strip(),
            "",
            *_file_block(case),
            "",
            *(shown if script else []),
            "```sh",
            f"{how} {case['id']}.safetensors",
            "```",
            "",
        ]
    return lines


def _variants_line(result: dict[str, Any]) -> list[str]:
    """Say that the run judged per-run variants, and how to repeat them."""
    # the run's record holds the seed as the suite's report does
    seed = corpus_seed(result.get("run") or {})
    if seed is None:
        return []
    name = result["implementation"]["name"]
    return [
        (
            "- Conformance run: the suite hands the library a variant of each "
            "corpus file (new tensor names, member order and padding, and for an "
            "invalid file a moved layout), each checked to break the same rule. "
            "The files below are the committed ones; the smallest file of each "
            "finding is checked against the library directly. "
            f"`STSPEC_CORPUS_SEED={seed} python -m matrix run --only {name}` "
            "repeats the run's variants."
        )
    ]


def report(
    result: dict[str, Any], manifest: dict[str, Any], hand: dict[str, Any]
) -> str:
    """The Markdown report of one implementation's dangerous findings."""
    found = findings_of(
        result,
        manifest,
        hand.get("not_the_library", {}),
        hand.get("variant_only", {}),
    )
    impl = result["implementation"]
    text, language, run = _script(hand)
    kinds = ", ".join(f.kind.label for f in found)
    row = _ROWS.get(impl["name"])
    tracker = row.tracker if row and row.tracker else "not known yet"
    api = [f"- API called: `{row.api}`"] if row and row.api else []
    lines = [
        f"# {impl['title']}: {kinds}",
        "",
        (
            f"Found by the [safetensors-spec]({REPO_URL}) conformance suite, which "
            "runs a corpus of valid and hostile files through each implementation "
            f"([results]({SITE}/results/index.html)). Each finding below names the "
            "rule it breaks, the smallest corpus file that shows it, the command "
            "that reproduces it by calling the library directly, and a suggested fix."
        ),
        "",
        f"- Affected version: {impl['title']}",
        f"- Called as: {impl['note']}",
        *api,
        f"- Where to report: {tracker}",
        *_variants_line(result),
        "",
        "## Reproducer",
        "",
        "```sh",
        *_installed(result),
        # how to get a library no pip or npm pin names (Maven jars, a Go module)
        *hand.get("install", []),
        "```",
        "",
    ]
    if text:
        lines += [
            f"`{hand['script']}`, run on each file below as `{run} FILE`:",
            "",
            f"```{language}",
            text.rstrip(),
            "```",
            "",
        ]
    else:
        lines += ["No reproducer that calls the library directly is written yet.", ""]
    for number, finding in enumerate(found, 1):
        lines += _section(number, finding, result, hand, run)
    lines += _checks(hand, manifest, run)
    more = hand.get("more", [])
    if more:
        lines += [
            "## More",
            "",
            "Further reproducers in safetensors-spec that build their own files:",
            "",
            *[f"- [`{m}`]({REPO_URL}/blob/main/matrix/repro/{m})" for m in more],
            "",
        ]
    return "\n".join(lines).rstrip() + "\n"


def _index(rows: list[tuple[str, dict[str, Any], list[Finding]]]) -> str:
    lines = [
        "# Findings ready to send upstream",
        "",
        (
            "Generated by `python -m matrix findings` from `results/*.json`, the "
            "corpus and `matrix/findings.toml`. One report per implementation with a "
            "dangerous finding; the upstream status is kept in `matrix/findings.toml`."
        ),
        "",
        "| implementation | findings (corpus files) | report | upstream status |",
        "|---|---|---|---|",
    ]
    for name, hand, found in rows:
        kinds = "; ".join(f"{f.kind.key} ({len(f.cases)})" for f in found)
        link = f"[`{name}.md`]({REPO_URL}/blob/main/results/findings/{name}.md)"
        status = hand.get("status", "draft: not written up yet")
        lines.append(f"| {hand.get('project', name)} | {kinds} | {link} | {status} |")
    return "\n".join(lines) + "\n"


def write_dir(results: Path) -> list[str]:
    """Write results/findings/ from results/*.json; the warnings, if any."""
    hands: dict[str, Any] = tomllib.loads(DATA.read_text("utf-8"))
    data = json.loads((envs.REPO / "corpus" / "manifest.json").read_text("utf-8"))
    manifest = {case["id"]: case for case in data["cases"]}
    out = results / "findings"
    out.mkdir(parents=True, exist_ok=True)
    warnings = []
    rows = []
    written = set()
    for result in load_results(results):
        name = result["implementation"]["name"]
        hand = hands.get(name, {})
        found = findings_of(
            result,
            manifest,
            hand.get("not_the_library", {}),
            hand.get("variant_only", {}),
        )
        if not found:
            continue
        if not hand:
            warnings.append(f"{name}: dangerous findings but no entry in {DATA.name}")
        kinds = {f.kind.key for f in found}
        fixes = set(hand.get("fix", {}))
        warnings.extend(
            f"{name}: {DATA.name} has a fix for '{key}', not found"
            for key in sorted(fixes - kinds)
        )
        warnings.extend(
            f"{name}: no suggested fix for '{key}'" for key in sorted(kinds - fixes)
        )
        (out / f"{name}.md").write_text(report(result, manifest, hand), "utf-8")
        written.add(f"{name}.md")
        rows.append((name, hand, found))
    (out / "README.md").write_text(_index(rows), "utf-8")
    for stale in out.glob("*.md"):
        if stale.name not in written | {"README.md"}:
            stale.unlink()
    for warning in warnings:
        print(f"[matrix findings] {warning}", file=sys.stderr)
    return warnings


if __name__ == "__main__":
    raise SystemExit(1 if write_dir(envs.REPO / "results") else 0)
