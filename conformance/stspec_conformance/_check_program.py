"""``check-program``: a command reader's answers checked on a few files, on demand.

The suite's smoke gate stops a run whose program cannot answer; this runs the
same checks, and a handful of corpus cases, without the suite, and prints
every answer with what is wrong with it: an answer outside the protocol's
JSON Schema, an exit status contradicting its answer, the wrong content for a
valid file.  Verdicts are the suite's business: a rejected valid file or an
accepted invalid one is printed as a note, not counted as a problem.
"""

from __future__ import annotations

import argparse
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final

import stspec
from stspec_conformance import _smoke, _staging
from stspec_conformance._compare import case_dtypes, content_problems
from stspec_conformance._corpus import CorpusError, default_corpus_dir, load_corpus
from stspec_conformance._limits import Limits
from stspec_conformance._model import Content
from stspec_conformance.adapters._resolve import ImplError, resolve

if TYPE_CHECKING:
    from stspec_conformance._corpus import Corpus
    from stspec_conformance._model import Outcome
    from stspec_conformance.adapters import Adapter

__all__ = ["CASES", "main"]

# One case per kind of answer: no tensors, metadata with every dtype, one
# tensor of values; an empty file and a hole for the two kinds of rejection.
CASES: Final = (
    "y_prefix_smallest_file",
    "y_dtype_all_22_canonical",
    "y_dtype_u8_values",
    "n_prefix_file_empty",
    "n_layout_hole_between_tensors",
)
_WRITE_REQUEST: Final = {"w": ("U8", (2, 2), bytes([1, 2, 3, 4]))}
_WRITE_METADATA: Final = {"format": "check-program"}


@dataclass
class _Tally:
    problems: int = 0
    notes: list[str] = field(default_factory=list)

    def line(self, what: str, verdict: str, *, problem: bool = False) -> None:
        self.problems += problem
        print(f"{'PROBLEM' if problem else 'ok':7} {what}: {verdict}")  # noqa: T201


def parser() -> argparse.ArgumentParser:
    """The command line of ``python -m stspec_conformance check-program``."""
    command = argparse.ArgumentParser(
        prog="python -m stspec_conformance check-program",
        description="Run a command reader (cmd:PROGRAM ARGS) on a few corpus files "
        "and print what is wrong with its answers: the protocol's JSON Schema, "
        "exit status, content. Exit status 0 when every answer is right.",
    )
    command.add_argument("impl", help='the program, as --impl takes it: "cmd:./reader"')
    command.add_argument(
        "--case",
        action="append",
        metavar="ID",
        help=f"a corpus case to run (repeatable; default: {', '.join(CASES)})",
    )
    command.add_argument(
        "--corpus", type=Path, help="corpus folder (default: the installed corpus)"
    )
    command.add_argument(
        "--timeout",
        type=float,
        default=10.0,
        help="CPU seconds per answer (default: %(default)s)",
    )
    return command


def main(argv: list[str] | None = None) -> int:
    """Check the program; 0 when every answer is right, 1 if not, 2 on misuse."""
    options = parser().parse_args(argv)
    if not options.impl.startswith("cmd:"):
        print(  # noqa: T201
            f"check-program checks command programs (cmd:PROGRAM ARGS), not "
            f"{options.impl!r}; run a Python adapter with pytest --impl"
        )
        return 2
    try:
        corpus = load_corpus(options.corpus or _corpus_dir())
        adapter = resolve(options.impl, limits=Limits(cpu_seconds=options.timeout))
    except (CorpusError, ImplError) as exc:
        print(exc)  # noqa: T201
        return 2
    tally = _Tally()
    _describe(adapter, tally)
    if tally.problems == 0:
        _gate(adapter, options.timeout, tally)
        for case_id in options.case or CASES:
            _case(adapter, corpus, case_id, options.timeout, tally)
        if adapter.capabilities.write:
            _write(adapter, options.timeout, tally)
    for note in tally.notes:
        print(f"note    {note}")  # noqa: T201
    print(f"{tally.problems} problem(s) in the answers of {options.impl[4:]}")  # noqa: T201
    return 1 if tally.problems else 0


def _corpus_dir() -> Path:
    found = default_corpus_dir()
    if found is None:
        raise CorpusError("no corpus installed: pass --corpus DIR")
    return found


def _describe(adapter: Adapter, tally: _Tally) -> None:
    error = getattr(adapter, "describe_error", "")
    if error:
        tally.line("--describe", error, problem=True)
        return
    tally.line(
        "--describe",
        f"{adapter.label()}, protocol {getattr(adapter, 'protocol', '?')}; "
        f"{adapter.capabilities.describe()}",
    )


def _gate(adapter: Adapter, timeout: float, tally: _Tally) -> None:
    try:
        _smoke.check(adapter, timeout=timeout)
    except _smoke.SmokeError as exc:
        tally.line("smoke gate", str(exc), problem=True)
    else:
        tally.line("smoke gate", "a minimal valid file loads with the right content")


def _case(
    adapter: Adapter, corpus: Corpus, case_id: str, timeout: float, tally: _Tally
) -> None:
    case = corpus.by_id.get(case_id)
    if case is None or "file" not in case:
        tally.line(case_id, "no such file in the corpus", problem=True)
        return
    path = corpus.path_of(case)
    dtypes = case_dtypes(case, path) or frozenset()
    if case["verdict"] != "invalid" and not adapter.capabilities.reads(*dtypes):
        tally.line(case_id, "skipped: uses a dtype the program does not declare")
        return
    outcome = _staging.attempt_load(adapter, path, timeout=timeout)
    if outcome.failed_hard:
        tally.line(case_id, outcome.describe(), problem=True)
        return
    said = outcome.status + (f" ({outcome.rule})" if outcome.rule else "")
    rules = list(case.get("rules", []))
    if outcome.status == "rejected":
        if outcome.rule is not None and outcome.rule not in stspec.RULES_BY_ID:
            tally.notes.append(f"{case_id}: {outcome.rule!r} is not a rule id of SPEC")
        if case["verdict"] == "valid":
            tally.notes.append(f"{case_id}: a valid file was rejected ({said})")
        elif outcome.rule is not None and outcome.rule not in rules:
            tally.notes.append(
                f"{case_id}: --check-rules expects {' or '.join(rules)}, "
                f"not {outcome.rule}"
            )
        tally.line(case_id, said)
        return
    if case["verdict"] == "invalid":
        tally.notes.append(
            f"{case_id}: an invalid file ({', '.join(rules)}) was accepted"
        )
        tally.line(case_id, said)
        return
    _content(adapter, case, outcome, tally)


def _content(
    adapter: Adapter, case: dict[str, Any], outcome: Outcome, tally: _Tally
) -> None:
    expected = Content.from_expected(case["expected"])
    got = outcome.content
    wrong = (
        ["no content"]
        if got is None
        else content_problems(got, expected, adapter.capabilities)
    )
    if wrong:
        tally.line(
            case["id"], f"accepted, wrong content: {'; '.join(wrong[:5])}", problem=True
        )
    else:
        tally.line(case["id"], "accepted with the right content")


def _write(adapter: Adapter, timeout: float, tally: _Tally) -> None:
    with tempfile.TemporaryDirectory(prefix="stspec-check-") as directory:
        out = str(Path(directory, "written.safetensors"))
        outcome = adapter.attempt_save(
            out, _WRITE_REQUEST, _WRITE_METADATA, timeout=timeout
        )
        what = "--write (U8[2, 2], one metadata key)"
        if outcome.status != "accepted":
            tally.line(what, outcome.describe(), problem=outcome.failed_hard)
            if not outcome.failed_hard:
                tally.notes.append(f"{what}: refused a request the format allows")
            return
        try:
            with stspec.read(out) as st:
                got = Content.from_raw(
                    {
                        n: (i.dtype, i.shape, bytes(st.tensor_bytes(n)))
                        for n, i in st.tensors.items()
                    },
                    st.metadata,
                )
        except (OSError, stspec.SafetensorsError) as exc:
            tally.line(what, f"wrote a file the reference rejects: {exc}", problem=True)
            return
        wrong = got.differences(Content.from_raw(_WRITE_REQUEST, _WRITE_METADATA))
        if wrong:
            tally.line(
                what, f"wrote other content: {'; '.join(wrong[:5])}", problem=True
            )
        else:
            tally.line(what, "written, and the reference reads back what was asked")
