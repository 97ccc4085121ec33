"""The verdict checks shared by the corpus and large-case tests."""

from __future__ import annotations

import os
from typing import TYPE_CHECKING, Any

import pytest

from stspec_conformance import _outcomes, _staging, _variants
from stspec_conformance._limits import Limits
from stspec_conformance._model import Content, Outcome, TensorDigest, window_digests
from stspec_conformance._results import DIFFERS_PROPERTY, differs_in

if TYPE_CHECKING:
    from collections.abc import Mapping
    from pathlib import Path

    from stspec_conformance.adapters import Adapter
    from stspec_conformance.adapters._base import MemoryMode

MIB = 1024 * 1024


def attempt(
    impl: Adapter,
    path: Path,
    *,
    timeout: float,
    node: pytest.Item | None = None,
    measure_memory: MemoryMode = None,
    case: Mapping[str, Any] | None = None,
    seed: str = "",
) -> Outcome:
    """Load a private copy of ``path``; record the outcome on the test item.

    With a committed ``case``, the file is first checked against the
    manifest: a corpus file that changed during the run ends it (exit 3),
    never blaming the implementation; then the implementation gets this
    run's variant of it (:mod:`._variants`, with ``seed``), kept in
    ``outcome.details["variant"]`` for :func:`judged_case`.
    """
    source: Path | bytes = path
    made: _variants.Variant | None = None
    if case is not None and "file" in case:
        why = _staging.damage(path, case)
        if why:
            pytest.exit(
                f"the corpus file {path} {why}: it changed during the run (the "
                "suite only ever hands implementations a copy); restore it "
                "(git checkout corpus/files, or regenerate the corpus)",
                returncode=pytest.ExitCode.INTERNAL_ERROR,
            )
        if seed:
            made = _variants.variant(case, path, seed)
            source = path if made is None else made.data
    outcome = _staging.attempt_load(
        impl, source, timeout=timeout, measure_memory=measure_memory
    )
    if made is not None:
        outcome.details["variant"] = made
    if node is not None:
        outcome.details["item"] = node  # later checks record their verdict on it
        _outcomes.record(
            node,
            outcome.status,
            crash=outcome.exception or outcome.crash,
            memory=outcome.memory,
        )
        node.user_properties.append(("outcome", outcome.status))
        if outcome.rule is not None:
            node.user_properties.append(("reported_rule", outcome.rule))
        if outcome.message:
            node.user_properties.append(
                ("message", outcome.message.splitlines()[0][:200])
            )
    return outcome


def judged_case(case: Mapping[str, Any], outcome: Outcome) -> Mapping[str, Any]:
    """``case`` as the file handed over is judged: its variant's content."""
    made = outcome.details.get("variant")
    return made.judged(case) if isinstance(made, _variants.Variant) else case


def _about(case: Mapping[str, Any], path: Path) -> str:
    rules = ", ".join(case.get("rules", [])) or "none"
    handed = f"\n  handed:  {case['handed']}" if case.get("handed") else ""
    return (
        f"\n  case:    {case['id']} ({case['verdict']}; rules: {rules})"
        f"\n  about:   {case.get('description', '')}"
        f"\n  file:    {path}{handed}"
    )


def _hard(case: Mapping[str, Any], path: Path, outcome: Outcome) -> None:
    if outcome.status == "resource":
        _outcomes.resource_failure(
            f"{outcome.describe()}{_about(case, path)}",
            _item(outcome),
            memory=outcome.memory,
        )
    if outcome.failed_hard:
        pytest.fail(
            f"{outcome.status} on {case['id']}: "
            f"{outcome.describe()}{_about(case, path)}",
            pytrace=False,
        )


def must_accept(case: Mapping[str, Any], path: Path, outcome: Outcome) -> None:
    """A y_ case: accepted, with exactly the expected content."""
    _hard(case, path, outcome)
    if outcome.status == "rejected":
        pytest.fail(
            f"rejected a valid file: {outcome.describe()}{_about(case, path)}",
            pytrace=False,
        )
    _same_content(case, path, outcome)


def must_reject(
    case: Mapping[str, Any], path: Path, outcome: Outcome, *, check_rules: bool
) -> None:
    """An n_ or x_ case: rejected (an n_ case naming its rule with --check-rules).

    An x_ case breaks several rules of its first precedence group, and SPEC
    12.1 leaves the choice among them free: it is judged on rejection alone.
    """
    _hard(case, path, outcome)
    rules = list(case.get("rules", []))
    if outcome.status == "accepted":
        pytest.fail(
            f"accepted a file that breaks {', '.join(rules) or 'a MUST rule'}"
            f"{_about(case, path)}",
            pytrace=False,
        )
    if (
        check_rules
        and not str(case["id"]).startswith("x_")
        and outcome.rule not in rules
    ):
        said = outcome.rule or "no rule id"
        why = ""
        if outcome.rule in case.get("also_breaks", []):
            why = (
                f" ({said} is broken too, but SPEC 12.1's precedence sets it aside "
                "for this file)"
            )
        pytest.fail(
            f"rejected, but classified as {said}; expected {' or '.join(rules)}{why} "
            f"(error: {outcome.describe()}){_about(case, path)}",
            pytrace=False,
        )


def tolerated(case: Mapping[str, Any], path: Path, outcome: Outcome) -> None:
    """An i_ case: either outcome, but an accepted file loads as expected."""
    _hard(case, path, outcome)
    if outcome.status == "accepted":
        _same_content(case, path, outcome)


def _same_content(case: Mapping[str, Any], path: Path, outcome: Outcome) -> None:
    if outcome.content is None:  # pragma: no cover - accepted always has content
        pytest.fail("accepted without content", pytrace=False)
    expected = _with_windows(
        Content.from_expected(case["expected"]), outcome.content, path
    )
    problems = outcome.content.differences(expected)
    if problems:
        _outcomes.record(_item(outcome), "wrong-content")
        item = _item(outcome)
        if item is not None:
            item.user_properties.append((DIFFERS_PROPERTY, differs_in(problems)))
        listed = "".join(f"\n  - {p}" for p in problems[:10])
        pytest.fail(
            f"loaded different content ({len(problems)} differences):{listed}"
            f"{_about(case, path)}",
            pytrace=False,
        )


def _with_windows(expected: Content, got: Content, path: Path) -> Content:
    """Give expected tensors the windows of the file where ``got`` only has windows."""
    sampled = [
        name
        for name, digest in got.tensors.items()
        if digest.windows and name in expected.tensors
    ]
    if not sampled:
        return expected
    import stspec  # noqa: PLC0415 - only for huge tensors

    tensors = dict(expected.tensors)
    with stspec.read(path) as st:
        for name in sampled:
            want = tensors[name]
            tensors[name] = TensorDigest(
                want.dtype,
                want.shape,
                want.nbytes,
                "",
                window_digests(st.tensor_bytes(name)) if name in st.tensors else (),
            )
    return Content(expected.metadata, tensors, expected.summary)


def _item(outcome: Outcome) -> pytest.Item | None:
    item = outcome.details.get("item")
    return item if isinstance(item, pytest.Item) else None


def memory_allowance(path: Path, budget: int) -> int:
    """Bytes a load of ``path`` may allocate (see :mod:`stspec_conformance._limits`).

    From the file's length and its header's, never from its blocks on disk.
    """
    return Limits(memory_budget=budget).for_file(path).memory


def memory_mode(path: Path) -> MemoryMode:
    """Tracemalloc for small files (hostile claims), peak RSS for big ones.

    Only used when the implementation runs in the suite's own process
    (``--in-process``); an isolated worker is limited and measured as a process.
    """
    return "tracemalloc" if os.stat(path).st_size <= MIB else "rss"


def within_memory(
    case: Mapping[str, Any], path: Path, outcome: Outcome, *, budget: int
) -> None:
    """Fail as ``resource`` when a load used more memory than the file allows.

    A crash or a hang stays what it is: a reader that panics after a large
    allocation crashed (the excess is named in the message); ``resource`` is
    an allocation that failed or a load that answered but took too much.
    """
    if outcome.status == "resource":
        _hard(case, path, outcome)
    limit = outcome.memory_allowance or memory_allowance(path, budget)
    over = outcome.peak_memory is not None and outcome.peak_memory > limit
    excess = (
        f"used {(outcome.peak_memory or 0) / MIB:.1f} MiB (peak) for a "
        f"file of {os.stat(path).st_size} bytes; the allowance is "
        f"{limit / MIB:.1f} MiB (from the file's length, see --memory-budget"
    )
    if over and outcome.status in {"crashed", "exception", "hung"}:
        pytest.fail(
            f"{outcome.status} on {case['id']} (it {excess})): "
            f"{outcome.describe()}{_about(case, path)}",
            pytrace=False,
        )
    if over:
        _outcomes.resource_failure(
            f"{excess}; outcome: {outcome.describe()}){_about(case, path)}",
            _item(outcome),
            memory="resident",
        )
