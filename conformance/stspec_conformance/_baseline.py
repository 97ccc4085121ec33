"""Baselines: known deviations, read as strict xfails and written from a run."""

from __future__ import annotations

import warnings
from typing import TYPE_CHECKING

import pytest

from stspec_conformance._collect import suffix_of

if TYPE_CHECKING:
    from pathlib import Path

    from stspec_conformance._state import Record, SuiteState

__all__ = ["WRONG_RESULTS", "apply_baseline", "read_baseline", "write_baseline"]

# results a baseline lists (a test that ran and did not pass)
WRONG_RESULTS = frozenset({"failed", "error", "crashed", "xfailed"})


def read_baseline(path: Path) -> dict[str, str]:
    """Parse a baseline file: one node-id suffix per line, ``#`` comments."""
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except OSError as exc:
        raise pytest.UsageError(f"--baseline {path}: {exc}") from None
    entries: dict[str, str] = {}
    comment: list[str] = []
    in_comment = False
    for raw in lines:
        line = raw.strip()
        if line.startswith("#"):
            if not in_comment:
                comment = []
            comment.append(line.lstrip("# "))
            in_comment = True
            continue
        in_comment = False
        if not line:
            continue
        entry, _, trailing = line.partition(" #")
        entries[entry.strip()] = trailing.strip() or " ".join(c for c in comment if c)
    return entries


def _entry_for(baseline: dict[str, str], nodeid: str, name: str) -> str | None:
    if name in baseline:
        return name
    for entry in baseline:
        if nodeid.endswith(("/" + entry, "::" + entry)):
            return entry
    return None


def apply_baseline(items: list[pytest.Item], state: SuiteState) -> None:
    """Mark the listed tests as strict xfails; warn about entries matching none."""
    if state.baseline is None:
        return
    matched: set[str] = set()
    for item in items:
        entry = _entry_for(state.baseline, item.nodeid, suffix_of(item.nodeid))
        if entry is not None:
            matched.add(entry)
            reason = state.baseline[entry] or "listed in the baseline"
            item.add_marker(
                pytest.mark.xfail(strict=True, reason=f"baseline: {reason}")
            )
    unmatched = sorted(set(state.baseline) - matched)
    if unmatched:
        warnings.warn(
            pytest.PytestWarning(
                f"--baseline {state.baseline_path}: {len(unmatched)} entries match "
                f"no test: {', '.join(unmatched[:20])}"
            ),
            stacklevel=1,
        )


def _comment(message: str) -> str:
    """A failure line as a baseline comment, without the case block.

    The case block names this machine's paths, which would make every
    regenerated baseline differ.
    """
    text = message.removeprefix("baseline: ")
    return text.split(" case: ", 1)[0].rstrip()


def write_baseline(path: Path, state: SuiteState, records: list[Record]) -> None:
    """Write every test that did not pass, each under its failure line."""
    lines = [
        f"# Known deviations of {state.adapter.name} {state.adapter.version} from the",
        "# safetensors conformance suite (written by --write-baseline; pass it back",
        "# with --baseline so these become strict expected failures).",
    ]
    for record in records:
        if record.result in WRONG_RESULTS:
            message = _comment(record.message)
            lines += ["", f"# {message}" if message else "#", record.name]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
