"""The generated parts of spec/SPEC.md: contents, corpus cases per rule, rule index.

SPEC.md is written by hand except for three parts that restate data held
elsewhere and would drift if typed: the table of contents (the headings), the
"Corpus cases:" paragraph closing each rule definition (the manifest's cases
citing the rule) and the rule index of Appendix B (the rule registry).
``render`` rewrites exactly those parts and leaves every other byte alone, so
``render(text) == text`` is the check that SPEC.md is up to date.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Final

from stspec.rules import RULES, Rule

if TYPE_CHECKING:
    from collections.abc import Sequence

    from stspec_corpus._model import Case

__all__ = ["anchor", "render", "slug"]

CONTENTS: Final = ("<!-- contents:start -->", "<!-- contents:end -->")
INDEX: Final = ("<!-- rule-index:start -->", "<!-- rule-index:end -->")
CASES_LEAD: Final = "Corpus cases:"
_HEADING: Final = re.compile(r"^(##|###) (.+)$", re.MULTILINE)
_SECTION: Final = re.compile(r"^## (\d+|Appendix [A-Z])\b", re.MULTILINE)
_NOT_SLUG: Final = re.compile(r"[^\w\- ]", re.UNICODE)
_KINDS: Final = (
    ("n", "breaking it"),
    ("i", "tolerated"),
    ("y", "valid at its boundary"),
)


def slug(heading: str) -> str:
    """Return the anchor GitHub gives a heading: lower case, punctuation dropped."""
    return _NOT_SLUG.sub("", heading.strip().lower()).replace(" ", "-")


def anchor(rule_id: str) -> str:
    """Return the anchor of a rule or check definition (its id in lower case)."""
    return rule_id.lower()


def render(text: str, cases: Sequence[Case]) -> str:
    """Return ``text`` with its three generated parts rebuilt."""
    text = _replace_between(text, CONTENTS, _contents(text))
    for rule in RULES:
        text = _with_cases(text, rule, cases)
    return _replace_between(text, INDEX, _index(text, cases))


def _replace_between(text: str, markers: tuple[str, str], body: str) -> str:
    start, end = markers
    head, found, rest = text.partition(start + "\n")
    if not found or end not in rest:
        raise ValueError(f"SPEC.md lacks the markers {start} ... {end}")
    return head + start + "\n" + body + rest[rest.index(end) :]


def _contents(text: str) -> str:
    after = text.partition(CONTENTS[1])[2]
    lines = []
    for level, title in _HEADING.findall(after):
        indent = "" if level == "##" else "  "
        lines.append(f"{indent}- [{title}](#{slug(title)})")
    return "\n".join(lines) + "\n"


_WITHOUT_CASES: Final = {
    "READ-VERDICT": "all of them: every `y_` case is to be accepted with its "
    "stated content and every `n_` case rejected (Appendix B counts them per rule)",
    "READ-OUTCOME": "none of its own: every case exercises it, and the suite records "
    "a crash, a hang or a resource failure as an outcome of its own, never as a "
    "verdict",
    "READ-UNSUPPORTED": "none: the suite marks the cases outside a reader's declared "
    "dtypes not applicable, and reads a rejection's reason only as information",
    "READ-PRECEDENCE": "every `n_` case: the manifest names the one MUST rule it "
    "breaks in its first precedence group, which the suite's `--check-rules` option "
    "compares with the rule a reader names",
    "writer": "none, as for every writer rule: the suite's writer tests check it",
}


def _cited(rule: Rule, cases: Sequence[Case]) -> str:
    if rule.id == "READ-TOLERATED":
        # Every tolerated case: an accepting reader must load its stated content.
        ids = sorted(c.id for c in cases if c.id[0] == "i")
        return f"{CASES_LEAD} tolerated " + ", ".join(f"`{i}`" for i in ids) + "."
    fixed = _WITHOUT_CASES.get(rule.id, _WITHOUT_CASES.get(rule.scope))
    if fixed is not None:
        return f"{CASES_LEAD} {fixed}."
    parts = []
    for prefix, what in _KINDS:
        ids = [c.id for c in cases if c.id[0] == prefix and rule.id in c.rules]
        if ids:
            parts.append(what + " " + ", ".join(f"`{i}`" for i in sorted(ids)))
    return f"{CASES_LEAD} " + ("; ".join(parts) if parts else "none") + "."


def _with_cases(text: str, rule: Rule, cases: Sequence[Case]) -> str:
    definition = text.index(f"\n**{rule.id}** (") + 1
    source = text.index("\nSource: ", definition) + 1
    paragraph_end = text.index("\n\n", source) + 2
    paragraph = _cited(rule, cases) + "\n\n"
    if text.startswith(CASES_LEAD, paragraph_end):
        old_end = text.index("\n\n", paragraph_end) + 2
        return text[:paragraph_end] + paragraph + text[old_end:]
    return text[:paragraph_end] + paragraph + text[paragraph_end:]


def _index(text: str, cases: Sequence[Case]) -> str:
    sections = {}
    current = ""
    for line in text.splitlines():
        heading = _SECTION.match(line)
        if heading:
            current = heading.group(1)
        for rule in RULES:
            if line.startswith(f"**{rule.id}** ("):
                sections[rule.id] = current
    rows = [
        "| id | level | scope | family | section | corpus cases |",
        "|---|---|---|---|---|---|",
    ]
    for rule in RULES:
        count = sum(rule.id in c.rules for c in cases)
        rows.append(
            f"| [`{rule.id}`](#{anchor(rule.id)}) | {rule.level} | {rule.scope} "
            f"| {rule.family} | §{sections[rule.id]} | {count} |"
        )
    return "\n".join(rows) + "\n"
