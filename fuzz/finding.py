#!/usr/bin/env python3
"""Turn a fuzzing finding into a regression file and, for a disagreement, a corpus case.

    python fuzz/finding.py CRASH --harness reader|differential|roundtrip
        [--impl matrix:NAME|safetensors|cmd:...]...  [--name SLUG]
        [--description TEXT] [--write]

1. The failure is replayed and given a signature: for the reader and round
   trip harnesses the exception type and the rule ids its message names; for
   the differential harness, per implementation, the reference's verdict, the
   implementation's answer and whether the content it loaded differs.
2. :mod:`reduce` shrinks the input while the signature stays the same.
3. The reference classifies the result (``validate``: verdict and rules).
4. Without ``--write`` it prints a report; with it, it writes
   ``fuzz/regressions/<harness>/<SLUG>`` and, when implementations disagree
   with the reference, appends a case to ``corpus/stspec_corpus/_fuzzfound.py``
   (provenance ``fuzz``, naming them), which ``python -m stspec_corpus
   generate`` then turns into a file and a manifest entry.  Review the case
   (its description above all) before landing it.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Final

import reduce
import targets

import stspec

if TYPE_CHECKING:
    from collections.abc import Callable

    from matrix_impl import MatrixImpl

    from stspec_conformance.adapters import Adapter

__all__ = ["classify", "corpus_id", "main", "signature"]

ROOT: Final = Path(__file__).resolve().parent.parent
FOUND: Final = ROOT / "corpus" / "stspec_corpus" / "_fuzzfound.py"
END_MARKER: Final = (
    "    # end of the found cases: fuzz/finding.py appends above this line"
)
_RULE: Final = re.compile(r"\[([A-Z0-9]+(?:-[A-Z0-9]+)+)\]")
_FAMILY: Final = {"file": "prefix", "size": "arith"}
Signature = tuple[object, ...] | None


def _exception_signature(check: Callable[[bytes], object], data: bytes) -> Signature:
    try:
        check(data)
    except AssertionError as error:
        message = str(error).split("\n", 1)[0]  # pytest appends its own lines
        shape = re.sub(r"'[^']*'|\"[^\"]*\"|\d+|\[[A-Z0-9-]+\]", "", message)
        return (
            "AssertionError",
            tuple(sorted(set(_RULE.findall(message)))),
            shape[:40],
        )
    except Exception as error:  # noqa: BLE001 - a crash is the finding
        return (type(error).__name__, tuple(sorted(set(_RULE.findall(str(error))))))
    return None


def _answers(impls: list[str], data: bytes) -> dict[str, tuple[object, ...]]:
    """Per implementation: its answer and whether the oracle fails it."""
    import matrix_impl  # noqa: PLC0415 - only the differential harness needs it

    out: dict[str, tuple[object, ...]] = {}
    for spec in impls:
        if spec.startswith("matrix:"):
            impl = _matrix(spec)
            answer = impl.answer(data)
            try:
                matrix_impl.judge(
                    data,
                    answer,
                    impl.capabilities,
                    ignore_rules=impl.known_deviations,
                    valid_ignore=impl.valid_ignore,
                    crash_ignore=impl.crash_ignore,
                )
            except AssertionError:
                out[spec] = (answer.get("result"), "disagrees")
            else:
                out[spec] = (answer.get("result"), "agrees")
        else:
            found = _exception_signature(
                lambda d, s=spec: targets.check_differential(  # type: ignore[misc]
                    d, _adapter(s), ignore_rules=targets.HF_DEVIATIONS
                ),
                data,
            )
            out[spec] = ("disagrees", *found) if found else ("agrees",)
    return out


_MATRIX: dict[str, MatrixImpl] = {}
_ADAPTERS: dict[str, Adapter] = {}


def _matrix(spec: str) -> MatrixImpl:
    import matrix_impl  # noqa: PLC0415

    if spec not in _MATRIX:
        _MATRIX[spec] = matrix_impl.MatrixImpl(spec.removeprefix("matrix:"))
    return _MATRIX[spec]


def _adapter(spec: str) -> Adapter:
    from stspec_conformance.adapters import resolve  # noqa: PLC0415 - pytest

    if spec not in _ADAPTERS:
        _ADAPTERS[spec] = resolve(spec)
    return _ADAPTERS[spec]


def signature(harness: str, data: bytes, impls: list[str]) -> Signature:
    """Return what the failure on ``data`` looks like (None: no failure)."""
    if harness == "reader":
        return _exception_signature(targets.check_reader, data)
    if harness == "roundtrip":
        return _exception_signature(targets.check_roundtrip, data)
    verdict = stspec.verdict_of({error.rule for error in stspec.validate(data)})
    answers = _answers(impls, data)
    if not any("disagrees" in answer for answer in answers.values()):
        return None
    return (verdict, tuple(sorted(answers.items())))


def classify(data: bytes) -> tuple[str, list[str]]:
    """Return the reference's verdict and the rules the file breaks."""
    rules = sorted({error.rule for error in stspec.validate(data)})
    return stspec.verdict_of(set(rules)), rules


def corpus_id(verdict: str, rules: list[str], slug: str) -> str:
    """Return a corpus id: verdict prefix, first rule's family, fuzz, slug."""
    prefix = {"valid": "y", "invalid": "n", "tolerated": "i"}[verdict]
    family = "structure"
    if rules:
        rule = stspec.RULES_BY_ID[rules[0]]
        family = "dtype" if rule.id.startswith("DTYPE-") else rule.family
        family = _FAMILY.get(family, family)
    return f"{prefix}_{family}_fuzz_{slug}"


def _wrapped(text: str, width: int = 88 - 8) -> str:
    """``text`` as string literals that each fit the line (the house's ruff limit).

    A description may hold 100 characters; implicitly concatenated literals,
    split after a space, keep every line of the entry within 88 columns.
    """
    pieces: list[str] = []
    for word in text.split(" "):
        if pieces and len(json.dumps(pieces[-1] + " " + word)) <= width:
            pieces[-1] += " " + word
        else:
            pieces.append(word)
    # The space before each later piece goes at the end of the one before.
    literals = [json.dumps(piece + " ") for piece in pieces[:-1]]
    literals.append(json.dumps(pieces[-1]))
    return "\n        ".join(literals)


def _append_case(
    case_id: str, rules: list[str], data: bytes, description: str, ref: str
) -> None:
    text = FOUND.read_text(encoding="utf-8")
    if f'"{case_id}"' in text:
        raise SystemExit(f"{case_id} is already in {FOUND}")

    def literal(value: str) -> str:
        return json.dumps(value)  # a valid Python string literal too

    names = "".join(f"{literal(rule)}, " for rule in rules).rstrip(" ")
    entry = (
        f"    Found(\n        {literal(case_id)},\n        ({names}),\n"
        f"        {literal(data.hex())},\n        {_wrapped(description)},\n"
        f"        {literal(ref)},\n    ),\n"
    )
    if END_MARKER not in text:
        raise SystemExit(f"{FOUND} lacks its end marker")
    FOUND.write_text(text.replace(END_MARKER, entry + END_MARKER), encoding="utf-8")


def main(argv: list[str] | None = None) -> int:
    """Command line."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("crash", type=Path)
    parser.add_argument(
        "--harness", choices=("reader", "differential", "roundtrip"), required=True
    )
    parser.add_argument("--impl", action="append", default=[])
    parser.add_argument("--name", help="slug for the files (lowercase, _)")
    parser.add_argument(
        "--description", help="what the case shows, in at most 80 characters"
    )
    parser.add_argument("--budget", type=int, default=3000, help="reduction tries")
    parser.add_argument("--write", action="store_true")
    args = parser.parse_args(argv)
    if args.harness == "differential" and not args.impl:
        parser.error("--harness differential needs at least one --impl")
    data = args.crash.read_bytes()
    impls = args.impl
    if args.harness == "differential":
        # Reduce against the implementations that disagree: each candidate
        # costs one call per implementation, and the others need not agree.
        impls = [n for n, a in _answers(args.impl, data).items() if "disagrees" in a]
    wanted = signature(args.harness, data, impls)
    if wanted is None:
        print(f"{args.crash}: no failure to reproduce", file=sys.stderr)
        return 1
    reduced = reduce.reduce(
        data, lambda d: signature(args.harness, d, impls) == wanted, args.budget
    ).data
    verdict, rules = classify(reduced)
    disagreed = []
    if args.harness == "differential":
        answers = _answers(args.impl, reduced)
        disagreed = [name for name, a in answers.items() if "disagrees" in a]
    report = {
        "signature": repr(wanted),
        "size": [len(data), len(reduced)],
        "verdict": verdict,
        "rules": rules,
        "disagreed": disagreed,
        "header": reduced[8:].decode("utf-8", "backslashreplace")[:400],
        "hex": reduced.hex(),
    }
    print(json.dumps(report, indent=1))
    if not args.write:
        return 0
    if not args.name or not re.fullmatch(r"[a-z0-9]+(_[a-z0-9]+)*", args.name):
        parser.error("--write needs --name (lowercase words joined by _)")
    regression = ROOT / "fuzz" / "regressions" / args.harness / args.name
    regression.parent.mkdir(parents=True, exist_ok=True)
    regression.write_bytes(reduced)
    print(f"wrote {regression.relative_to(ROOT)}")
    if disagreed:
        case_id = corpus_id(verdict, rules, args.name)
        names = ", ".join(sorted(d.removeprefix("matrix:") for d in disagreed))
        description = args.description or f"{verdict} file that {names} judge otherwise"
        _append_case(
            case_id, rules, reduced, description, f"fuzz_{args.harness}: {names}"
        )
        print(f"added {case_id} to {FOUND.relative_to(ROOT)}; now run")
        print("python -m stspec_corpus generate && python -m stspec_corpus lint")
    return 0


if __name__ == "__main__":
    sys.exit(main())
