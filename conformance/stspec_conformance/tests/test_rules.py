"""Hypothesis: single-fault corruptions of random valid files, one test per fault kind.

Node ids name the rule and the fault (``test_single_fault_rejected[LAYOUT-HOLE/gap]``).
With --check-rules the implementation's classification must be that rule.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import pytest
from hypothesis import given

from stspec_conformance import _props
from stspec_conformance import strategies as sts

if TYPE_CHECKING:
    from pathlib import Path

    from stspec_conformance._state import SuiteState


@pytest.mark.parametrize("kind", sts.CORRUPTION_KINDS)
def test_single_fault_rejected(kind: str, suite: SuiteState, scratch: Path) -> None:
    """A valid file with exactly this one fault is rejected."""

    @given(corruption=sts.corruptions(kinds=[kind]))
    def check(corruption: sts.Corruption) -> None:
        path = _props.put(scratch, corruption.data)
        outcome = suite.adapter.attempt_load(path, timeout=suite.timeout)
        story = f"{corruption.description} ({corruption.rule})"
        story += f"; file: {_props.show(corruption.data)}"
        if outcome.failed_hard:
            raise AssertionError(f"{outcome.describe()}: {story}")
        if outcome.status == "accepted":
            raise AssertionError(f"accepted: {story}")
        if suite.check_rules and outcome.rule != corruption.rule:
            raise AssertionError(
                f"rejected as {outcome.rule or 'no rule id'}, "
                f"expected {corruption.rule}: {story}"
            )

    check()
