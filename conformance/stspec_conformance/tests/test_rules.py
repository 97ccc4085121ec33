"""Hypothesis: single-fault corruptions of random valid files, one test per fault kind.

Node ids name the rule and the fault (``test_single_fault_rejected[LAYOUT-HOLE/gap]``).
With --check-rules the implementation's classification must be that rule.
Each kind is also drawn late in a large header (after more than 1,000
tensors and 128 metadata keys, past the first 64 KiB), a few examples a run.
Files are built around the fault from the implementation's declared dtypes;
every fault is visible from the prefix, the header and the file's length, so
no declaration (header-only validators included) makes one not applicable.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import pytest
from hypothesis import given, settings

from stspec_conformance import _outcomes, _props, _staging, _verdicts
from stspec_conformance import strategies as sts

if TYPE_CHECKING:
    from hypothesis.strategies import SearchStrategy

    from stspec_conformance._state import SuiteState


# Late faults (after 1,000 tensors, 128 metadata keys and 64 KiB of header)
# drawn in every run besides the default draws.
LATE_EXAMPLES = 3


@pytest.mark.parametrize("kind", sts.CORRUPTION_KINDS)
def test_single_fault_rejected(
    kind: str, suite: SuiteState, request: pytest.FixtureRequest
) -> None:
    """A valid file with exactly this one fault is rejected."""
    caps = suite.adapter.capabilities

    def check(corruption: sts.Corruption) -> None:
        outcome = _staging.attempt_load(
            suite.adapter, corruption.data, timeout=suite.timeout
        )
        status = _props.verdict_of(outcome, request.node)
        story = f"{corruption.description} ({corruption.rule})"
        story += f"; file: {_props.show(corruption.data)}"
        if _verdicts.malformed_acceptance(outcome):
            # it answered without rejecting: an acceptance, in a malformed form
            _outcomes.record(request.node, "accepted")
            raise AssertionError(
                f"accepted an invalid file (and its answer was malformed: "
                f"{outcome.describe()}): {story}"
            )
        if outcome.failed_hard:
            raise AssertionError(f"{outcome.describe()}: {story}")
        if status == "accepted":
            raise AssertionError(f"accepted an invalid file: {story}")
        undeclared = corruption.dtypes - caps.read_dtypes
        if suite.check_rules and outcome.rule != corruption.rule and not undeclared:
            raise AssertionError(
                f"rejected as {outcome.rule or 'no rule id'}, "
                f"expected {corruption.rule}: {story}"
            )

    def drawn(*, late: bool) -> SearchStrategy[sts.Corruption]:
        return sts.corruptions(
            kinds=[kind],
            dtypes=caps.read_dtypes,
            empty_metadata=caps.metadata_presence,
            late=late,
        )

    given(corruption=drawn(late=False))(check)()
    # the same fault late in a large header, a few examples in every run
    late_examples = max(LATE_EXAMPLES, settings().max_examples // 8)
    settings(max_examples=late_examples)(given(corruption=drawn(late=True))(check))()
