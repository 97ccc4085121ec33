"""Hypothesis: random valid files and tolerated variants (the suite's own encoder)."""

from __future__ import annotations

from typing import TYPE_CHECKING

import pytest
from hypothesis import given

import stspec
from stspec_conformance import _props
from stspec_conformance import strategies as sts

if TYPE_CHECKING:
    from pathlib import Path

    from stspec_conformance._state import SuiteState


@given(case=sts.valid_files())
def test_valid_file_loads_exactly(
    case: sts.ValidFile, suite: SuiteState, scratch: Path
) -> None:
    """Any valid file (all dtypes, empty and rank-0 tensors, metadata) loads exactly."""
    path = _props.put(scratch, case.data)
    _props.check_loads(
        suite.adapter,
        path,
        case.data,
        case.tensors,
        case.metadata,
        timeout=suite.timeout,
    )


@given(tensors=sts.tensor_sets(), metadata=sts.metadata_maps())
def test_reference_written_file_loads_equal(
    tensors: dict[str, sts.RawTensor],
    metadata: dict[str, str] | None,
    suite: SuiteState,
    scratch: Path,
) -> None:
    """A file the reference writer produced (canonical form) loads equal."""
    data = stspec.serialize(tensors, metadata)
    path = _props.put(scratch, data)
    _props.check_loads(
        suite.adapter, path, data, tensors, metadata, timeout=suite.timeout
    )


@pytest.mark.parametrize("kind", sts.TOLERATED_KINDS)
def test_tolerated_variant(kind: str, suite: SuiteState, scratch: Path) -> None:
    """A file breaking only a MAY rule: rejected, or loaded exactly as written."""

    @given(case=sts.tolerated_variants(kinds=[kind]))
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
        )

    check()
