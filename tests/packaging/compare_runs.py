"""Compare two conformance runs of one implementation (.ci/wheel uses it).

    python compare_runs.py CHECKOUT_DIR INSTALLED_DIR

Each directory holds what one run left: ``out.txt`` (the terminal output),
``report.json``, ``report.md`` and ``baseline.txt``.  The score section, every
test's result and outcome, the reports and the baseline's entries must be the
same.  What may differ: the corpus directory (the checkout's corpus/ or the
installed copy) in messages, node ids (relative to different root
directories), and the failure texts of property tests, which name
hypothesis' shrunk examples (the wheel runs on the oldest hypothesis allowed).
"""

from __future__ import annotations

import difflib
import json
import sys
from pathlib import Path
from typing import Any

_HEADER = "safetensors conformance:"


def score_section(output: str) -> list[str]:
    """The terminal summary: from its header line to the next ==== line."""
    lines = output.splitlines()
    start = next(i for i, line in enumerate(lines) if _HEADER in line)
    end = next(
        (i for i in range(start + 1, len(lines)) if lines[i].startswith("=")),
        len(lines),
    )
    return lines[start:end]


def _cut(text: str, corpus: str) -> str:
    """Cut a message where the corpus path starts.

    Messages are clipped to a fixed length, so a longer corpus path moves the
    clip: only the text before the path is comparable.
    """
    at = text.find(corpus[:8])
    return text if at < 0 else text[:at] + "<corpus>"


def _test(entry: dict[str, Any], corpus: str) -> dict[str, Any]:
    plain = {k: v for k, v in entry.items() if k != "nodeid"}
    if plain.get("case") is None:
        # hypothesis' wording and shrunk examples differ between its releases
        # (the wheel runs on the oldest the package allows): results only
        plain.pop("message", None)
    elif isinstance(plain.get("message"), str):
        plain["message"] = _cut(plain["message"], corpus)
    return plain


def _md(text: str, corpus: str) -> list[str]:
    lines = []
    for line in text.splitlines():
        property_row = line.startswith("| `test_") and "[" not in line.split("`")[1]
        shown = "|".join(line.split("|")[:3]) + "| (property test) |"
        lines.append(_cut(shown if property_row else line, corpus))
    return lines


def normalised(directory: Path) -> dict[str, list[str]]:
    """Everything of one run that must match, paths and example texts aside."""
    report = json.loads((directory / "report.json").read_text("utf-8"))
    corpus = str(report.pop("corpus"))
    report["tests"] = [_test(entry, corpus) for entry in report["tests"]]
    baseline = (directory / "baseline.txt").read_text("utf-8").splitlines()
    return {
        "score": score_section((directory / "out.txt").read_text("utf-8")),
        "report.json": json.dumps(report, indent=1, sort_keys=True).splitlines(),
        "report.md": _md((directory / "report.md").read_text("utf-8"), corpus),
        "baseline.txt": [line for line in baseline if not line.startswith("#")],
    }


def main(argv: list[str]) -> int:
    """Print the differences; return 1 if there are any."""
    checkout, installed = (normalised(Path(arg)) for arg in argv)
    status = 0
    for name, lines in checkout.items():
        diff = list(difflib.unified_diff(lines, installed[name], "checkout", "wheel"))
        if diff:
            print(f"{name} differs:", *diff, sep="\n")  # noqa: T201
            status = 1
    tests = len(json.loads("\n".join(checkout["report.json"]))["tests"])
    score = next((s for s in checkout["score"] if s.startswith("SCORE")), "no score")
    verdict = "agree" if status == 0 else "differ"
    print(f"checkout and installed runs {verdict}: {tests} tests, {score}")  # noqa: T201
    return status


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
