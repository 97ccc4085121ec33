"""Hypothesis: random valid files and tolerated variants (the suite's own encoder).

Files are drawn from what the implementation declares: its ``read_dtypes``,
and no ``"__metadata__": {}`` when it does not tell that from an absent one
(``metadata_presence``), so a declared gap cannot become the shrunk
counterexample that hides every other property failure.  Some valid files use
undeclared dtypes too: a reader may refuse those, but one it accepts must load
exactly (declaring less never excuses wrong content).  Explicit examples put
CR LF and other whitespace in metadata values, keys equal only after Unicode
normalisation and empty tensors of rank 4 and 6 in every run.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

import stspec
from stspec_conformance import _outcomes, _props
from stspec_conformance import strategies as sts

if TYPE_CHECKING:
    from stspec_conformance._state import SuiteState


def test_valid_file_loads_exactly(
    suite: SuiteState, request: pytest.FixtureRequest
) -> None:
    """Any valid file (its dtypes, empty and rank-0 tensors, metadata) loads exactly."""
    caps = suite.adapter.capabilities
    tensors, metadata = sts.edge_content(caps.read_dtypes)
    edge = sts.ValidFile(sts.encode(tensors, metadata), tensors, metadata)

    declared = sts.valid_files(
        dtypes=caps.read_dtypes, empty_metadata=caps.metadata_presence
    )
    anything = sts.valid_files(empty_metadata=caps.metadata_presence)

    @given(case=st.one_of(declared, declared, anything))
    @example(case=edge)  # so every run has CR LF, NFC/NFD keys, rank-6 empties
    def check(case: sts.ValidFile) -> None:
        _outcomes.start_example(request.node)
        undeclared = {t[0] for t in case.tensors.values()} - caps.read_dtypes
        _props.check_loads(
            suite.adapter,
            case.data,
            case.tensors,
            case.metadata,
            timeout=suite.timeout,
            undeclared_dtype=bool(undeclared),
            node=request.node,
        )

    check()


def test_reference_written_file_loads_equal(
    suite: SuiteState, request: pytest.FixtureRequest
) -> None:
    """A file the reference writer produced (canonical form) loads equal."""
    caps = suite.adapter.capabilities
    edge = sts.edge_content(caps.read_dtypes)

    @given(
        tensors=sts.tensor_sets(dtypes=caps.read_dtypes),
        metadata=sts.metadata_maps(empty=caps.metadata_presence),
    )
    @example(tensors=edge[0], metadata=edge[1])
    def check(
        tensors: dict[str, sts.RawTensor], metadata: dict[str, str] | None
    ) -> None:
        _outcomes.start_example(request.node)
        written = stspec.serialize(tensors, metadata)
        _props.check_loads(
            suite.adapter,
            written,
            tensors,
            metadata,
            timeout=suite.timeout,
            node=request.node,
        )

    check()


@pytest.mark.parametrize("kind", sts.TOLERATED_KINDS)
def test_tolerated_variant(
    kind: str, suite: SuiteState, request: pytest.FixtureRequest
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
        _outcomes.start_example(request.node)
        _props.check_loads(
            suite.adapter,
            case.data,
            case.tensors,
            case.metadata,
            timeout=suite.timeout,
            may_reject=True,
            node=request.node,
        )

    check()
