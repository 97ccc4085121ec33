"""What changed since the previous published run of the matrix, and why.

``matrix/notes.toml`` holds, per implementation, a fingerprint of the
previous published run's outcomes (``[previous.NAME]``: a SHA-256 over its
``id outcome/pass|fail`` lines) and one ``[[change]]`` per case or test whose
outcome differs now, with the rule and the reason; a case or test the run no
longer has is ``not run`` now.  Ids the previous run did not have (cases and
tests added to the corpus or the suite since) are listed under ``new`` and are
new, not changed.  Undoing every
change on today's ``results/NAME.json`` must give back the fingerprint, so a
changed outcome without a note (or a note that says something else than the
run) is found without keeping the old run a second time: it is in git history.

``python -m matrix.notes OLD.json NEW.json`` prints what differs between two
runs of one implementation and the ``[previous.NAME]`` entry for OLD.
"""

from __future__ import annotations

import hashlib
import html
import json
import sys
import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final

from matrix import envs

if TYPE_CHECKING:
    from collections.abc import Iterable, Mapping

__all__ = [
    "DATA",
    "NOT_RUN",
    "Change",
    "Group",
    "Notes",
    "fingerprint",
    "groups",
    "html_section",
    "load",
    "main",
    "markdown_section",
    "outcomes",
    "problems",
]

DATA: Final = envs.REPO / "matrix" / "notes.toml"
# the outcome of a case or test a run does not have
NOT_RUN: Final = "not run"


@dataclass(frozen=True, slots=True)
class Change:
    """One outcome that differs from the previous published run."""

    impl: str
    id: str  # a corpus case id or a suite test name
    before: str  # outcome/pass or outcome/fail, or NOT_RUN
    after: str
    rule: str
    why: str


@dataclass(frozen=True, slots=True)
class Notes:
    """The contents of notes.toml."""

    changes: tuple[Change, ...]
    # implementation -> (fingerprint of the previous run, ids it did not have)
    previous: dict[str, tuple[str, frozenset[str]]]
    shared_new: frozenset[str]  # the ids most previous runs did not have


def outcomes(result: Mapping[str, Any]) -> dict[str, str]:
    """``id -> outcome/pass|fail`` for every case and test of one run."""
    out: dict[str, str] = {}
    for part in ("cases", "tests"):
        for key, entry in (result.get(part) or {}).items():
            verdict = "pass" if entry.get("ok") else "fail"
            out[str(key)] = f"{entry.get('outcome')}/{verdict}"
    return out


def fingerprint(got: Mapping[str, str]) -> str:
    """SHA-256 over the sorted ``id outcome`` lines."""
    lines = "".join(f"{key} {got[key]}\n" for key in sorted(got))
    return hashlib.sha256(lines.encode("utf-8", "surrogatepass")).hexdigest()


def load(path: Path = DATA) -> Notes:
    """Read notes.toml."""
    data: dict[str, Any] = tomllib.loads(path.read_text(encoding="utf-8"))
    shared = frozenset(str(key) for key in data.get("new", []))
    previous = {
        str(name): (
            str(entry["outcomes"]),
            frozenset(str(k) for k in entry["new"]) if "new" in entry else shared,
        )
        for name, entry in data.get("previous", {}).items()
    }
    changes = tuple(
        Change(
            impl=str(c["impl"]),
            id=str(c["id"]),
            before=str(c["before"]),
            after=str(c["after"]),
            rule=str(c.get("rule", "")),
            why=" ".join(str(c["why"]).split()),
        )
        for c in data.get("change", [])
    )
    return Notes(changes, previous, shared)


def _undo(
    name: str, got: dict[str, str], notes: Notes, new: frozenset[str]
) -> tuple[dict[str, str], list[str]]:
    """The previous run's outcomes as the notes tell them, and the notes' errors."""
    errors = []
    before = {key: value for key, value in got.items() if key not in new}
    for change in notes.changes:
        if change.impl != name:
            continue
        now = got.get(change.id, NOT_RUN)
        if now != change.after:
            errors.append(
                f"{name}: the note on {change.id} says it is now {change.after}, "
                f"results/{name}.json has {now}"
            )
        if change.before == change.after:
            errors.append(f"{name}: the note on {change.id} changes nothing")
        if change.before == NOT_RUN:  # the previous run did not reach it
            before.pop(change.id, None)
        else:
            before[change.id] = change.before
    return before, errors


def problems(notes: Notes, results: Iterable[Mapping[str, Any]]) -> list[str]:
    """Every way the notes and the runs in ``results`` disagree (empty: none)."""
    errors: list[str] = []
    runs = {str(r["implementation"]["name"]): r for r in results}
    for change in notes.changes:
        if change.impl not in notes.previous:
            errors.append(
                f"the note on {change.impl} {change.id} has no [previous.{change.impl}]"
            )
        if not change.why or not change.rule:
            errors.append(f"the note on {change.impl} {change.id} needs a rule and why")
    for name, (wanted, new) in sorted(notes.previous.items()):
        if name not in runs:
            errors.append(f"[previous.{name}] names no results/{name}.json")
            continue
        got = outcomes(runs[name])
        before, found = _undo(name, got, notes, new)
        errors += found
        if fingerprint(before) != wanted:
            errors.append(
                f"{name}: results/{name}.json differs from the previous published "
                "run in an outcome no [[change]] in matrix/notes.toml explains "
                f"(python -m matrix.notes OLD.json results/{name}.json lists them)"
            )
    return errors


_TITLE: Final = "Changes since the previous published run"
_HEADS: Final = ("implementations", "outcomes", "rules", "why")


@dataclass(frozen=True, slots=True)
class Group:
    """The changes that share one reason."""

    why: str
    changes: tuple[Change, ...]

    @property
    def impls(self) -> list[str]:
        """The implementations, in the order of the notes."""
        return list(dict.fromkeys(c.impl for c in self.changes))

    @property
    def rules(self) -> list[str]:
        """The rules of the changed cases and tests, sorted."""
        return sorted({c.rule for c in self.changes})

    def moves(self) -> str:
        """``before -> after`` with a count for each distinct move, most first."""
        counted: dict[tuple[str, str], int] = {}
        for c in self.changes:
            counted[c.before, c.after] = counted.get((c.before, c.after), 0) + 1
        ordered = sorted(counted.items(), key=lambda item: (-item[1], item[0]))
        return ", ".join(f"{n} {before} → {after}" for (before, after), n in ordered)


def groups(notes: Notes, names: Iterable[str]) -> list[Group]:
    """The changes of the implementations ``names``, one group per reason.

    A rerun often changes many outcomes for one reason (a wrapper fixed, a
    suite rule changed): the pages give that reason once, with the count.
    """
    present = set(names)
    by_why: dict[str, list[Change]] = {}
    for change in notes.changes:
        if change.impl in present:
            by_why.setdefault(change.why, []).append(change)
    return [Group(why, tuple(found)) for why, found in by_why.items()]


def _intro(notes: Notes, names: Iterable[str], shown: list[Group]) -> str:
    compared = [name for name in names if name in notes.previous]
    total = sum(len(g.changes) for g in shown)
    return (
        f"Every outcome ({total}) that differs from the previous published "
        "run of the same implementation, one line per reason "
        f"({len(shown)}), with the rules of the cases and tests it changed "
        "(`matrix/notes.toml`; tests/matrix/test_matrix_notes.py holds it to "
        "`results/*.json`). An outcome is the outcome class and whether the "
        "suite counted it a pass (not run: that run has no outcome for the case or "
        "test). The cases and tests added to the corpus and "
        f"the suite since then ({len(notes.shared_new)}) are new, not changed. "
        f"Compared: {', '.join(compared) or 'none'}."
    )


def markdown_section(notes: Notes, names: Iterable[str]) -> list[str]:
    """The Markdown lines of the changes of the implementations ``names``."""
    names = list(names)
    shown = groups(notes, names)
    lines = ["", f"## {_TITLE}", "", _intro(notes, names, shown), ""]
    lines += ["| " + " | ".join(_HEADS) + " |", "|---" * len(_HEADS) + "|"]
    lines += [
        f"| {', '.join(g.impls)} | {g.moves()} | {', '.join(g.rules)} | "
        + g.why.replace("|", "\\|")
        + " |"
        for g in shown
    ]
    return lines


def _ids_html(group: Group) -> str:
    ids = ", ".join(html.escape(c.id) for c in group.changes)
    if len(group.changes) == 1:
        return f"<span class=id>{ids}</span>"
    return (
        f"<details><summary>{len(group.changes)} cases and tests</summary>"
        f"<span class=id>{ids}</span></details>"
    )


def html_section(notes: Notes, names: Iterable[str]) -> list[str]:
    """The HTML of the same section, each group's ids folded away."""
    names = list(names)
    shown = groups(notes, names)
    intro = html.escape(_intro(notes, names, shown).replace("`", ""))
    out = [f'<h2 id="changes">{_TITLE}</h2>', f"<p>{intro}</p>"]
    out.append('<table id="changes-table"><tr>')
    out.append("".join(f"<th>{h}</th>" for h in _HEADS) + "</tr>")
    out += [
        f"<tr class=change><td>{html.escape(', '.join(g.impls))}</td>"
        f"<td>{html.escape(g.moves())}<br>{_ids_html(g)}</td>"
        f"<td>{html.escape(', '.join(g.rules))}</td><td>{html.escape(g.why)}</td></tr>"
        for g in shown
    ]
    out.append("</table>")
    return out


def _diff(old: dict[str, str], new: dict[str, str]) -> list[str]:
    lines = [
        f"changed {key}: {old[key]} -> {new.get(key, NOT_RUN)}"
        for key in sorted(old)
        if old[key] != new.get(key, NOT_RUN)
    ]
    added = sorted(new.keys() - old.keys())
    lines.append(f"new ({len(added)}): {' '.join(added)}")
    return lines


def main(argv: list[str] | None = None) -> int:
    """``OLD.json NEW.json``: the differences, then OLD's [previous] entry."""
    args = sys.argv[1:] if argv is None else argv
    if len(args) != 2:
        print("usage: python -m matrix.notes OLD.json NEW.json", file=sys.stderr)
        return 2
    old, new = (json.loads(Path(a).read_text(encoding="utf-8")) for a in args)
    before, after = outcomes(old), outcomes(new)
    print("\n".join(_diff(before, after)))
    name = old["implementation"]["name"]
    print(f'[previous."{name}"]\noutcomes = "{fingerprint(before)}"')
    added = after.keys() - before.keys()
    if not DATA.exists() or added != load().shared_new:
        print(f"new = {json.dumps(sorted(added))}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
