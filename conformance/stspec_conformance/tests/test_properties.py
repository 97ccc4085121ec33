"""Hypothesis: random valid files and tolerated variants (the suite's own encoder).

Files are drawn only from what the implementation declares: its
``read_dtypes``, and no ``"__metadata__": {}`` when it does not tell that from
an absent one (``metadata_presence``), so a declared gap cannot become the
shrunk counterexample that hides every other property failure.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import pytest
from hypothesis import given
from hypothesis import strategies as st

import stspec
from stspec_conformance import _props
from stspec_conformance import strategies as sts

if TYPE_CHECKING:
    from pathlib import Path

    from stspec_conformance._state import SuiteState


@given(data=st.data())
def test_valid_file_loads_exactly(
    data: st.DataObject,
    suite: SuiteState,
    scratch: Path,
    request: pytest.FixtureRequest,
) -> None:
    """Any valid file (its dtypes, empty and rank-0 tensors, metadata) loads exactly."""
    caps = suite.adapter.capabilities
    case = data.draw(
        sts.valid_files(dtypes=caps.read_dtypes, empty_metadata=caps.metadata_presence),
        label="case",
    )
    path = _props.put(scratch, case.data)
    _props.check_loads(
        suite.adapter,
        path,
        case.data,
        case.tensors,
        case.metadata,
        timeout=suite.timeout,
        node=request.node,
    )


@given(data=st.data())
def test_reference_written_file_loads_equal(
    data: st.DataObject,
    suite: SuiteState,
    scratch: Path,
    request: pytest.FixtureRequest,
) -> None:
    """A file the reference writer produced (canonical form) loads equal."""
    caps = suite.adapter.capabilities
    tensors = data.draw(sts.tensor_sets(dtypes=caps.read_dtypes), label="tensors")
    metadata = data.draw(
        sts.metadata_maps(empty=caps.metadata_presence), label="metadata"
    )
    written = stspec.serialize(tensors, metadata)
    path = _props.put(scratch, written)
    _props.check_loads(
        suite.adapter,
        path,
        written,
        tensors,
        metadata,
        timeout=suite.timeout,
        node=request.node,
    )


@pytest.mark.parametrize("kind", sts.TOLERATED_KINDS)
def test_tolerated_variant(
    kind: str, suite: SuiteState, scratch: Path, request: pytest.FixtureRequest
) -> None:
    """A file breaking only a MAY rule: rejected, or loaded exactly as written."""
    caps = suite.adapter.capabilities

    @given(
        case=sts.tolerated_variants(
            kinds=[kind],
            dtypes=caps.read_dtypes,
            empty_metadata=caps.metadata_presence,
        )
    )
    def check(case: sts.ValidFile) -> None:
        path = _props.put(scratch, case.data)
        _props.check_loads(
            suite.adapter,
            path,
            case.data,
            case.tensors,
            case.metadata,
            timeout=suite.timeout,
            may_reject=True,
            node=request.node,
        )

    check()
