"""The public strategies say the truth: valid files are valid and decode as
stated, each corruption breaks the rule it names (first, per the strict
reference), tolerated variants break only their MAY rule."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import hypothesis
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis.errors import InvalidArgument

import stspec
from stspec_conformance import strategies as sts

if TYPE_CHECKING:
    from collections.abc import Callable

FEW = settings(
    max_examples=15,
    derandomize=True,
    database=None,
    deadline=None,
    suppress_health_check=list(HealthCheck),
)


@FEW
@given(case=sts.valid_files())
def test_valid_files_are_valid_and_decode_as_stated(case: sts.ValidFile) -> None:
    assert stspec.validate(case.data) == []
    with stspec.read(case.data) as st:
        assert st.metadata == case.metadata
        assert list(st.tensors) == [n for n in st.tensors if n in case.tensors]
        assert set(st.tensors) == set(case.tensors)
        for name, (dtype, shape, data) in case.tensors.items():
            info = st.tensors[name]
            assert (info.dtype, tuple(info.shape)) == (dtype, shape)
            assert bytes(st.tensor_bytes(name)) == data


@pytest.mark.parametrize("kind", sts.CORRUPTION_KINDS)
def test_each_corruption_breaks_the_rule_it_names(kind: str) -> None:
    @FEW
    @given(corruption=sts.corruptions(kinds=[kind]))
    def check(corruption: sts.Corruption) -> None:
        assert corruption.kind == kind
        assert corruption.rule == kind.split("/", maxsplit=1)[0]
        with pytest.raises(stspec.SafetensorsError) as caught:
            stspec.read(corruption.data)
        assert caught.value.rule == corruption.rule, corruption
        rules = {e.rule for e in stspec.validate(corruption.data)}
        if kind.endswith("/in-unknown-member"):  # an unknown member is a MAY rule
            rules -= {"ENTRY-UNKNOWN"}
        if corruption.rule == "OFFSETS-ORDER":
            # At the cursor, the bytes between the pair's offsets overlap the
            # tensor before them; a reversed pair is never a size or bounds
            # fault of its own (SPEC 12.1, 8.1).
            rules -= {"LAYOUT-OVERLAP"}
        assert rules == {corruption.rule}, corruption

    check()


@pytest.mark.parametrize("kind", sts.TOLERATED_KINDS)
def test_each_tolerated_variant_breaks_only_its_may_rule(kind: str) -> None:
    @FEW
    @given(case=sts.tolerated_variants(kinds=[kind]))
    def check(case: sts.ValidFile) -> None:
        assert case.rule is not None
        assert {e.rule for e in stspec.validate(case.data)} == {case.rule}
        assert stspec.verdict_of({case.rule}) == "tolerated"

    check()


def test_encode_is_the_canonical_form_by_default() -> None:
    tensors = {"b": ("F32", (1,), b"\x00\x00\x80?"), "a": ("U8", (2,), b"\x01\x02")}
    data = sts.encode(
        tensors, {"k": "v"}, member_order=["b", "a"], data_order=["b", "a"]
    )
    assert data == stspec.serialize(tensors, {"k": "v"})


NO_F64 = frozenset(sts.DTYPE_NAMES) - {"F64", "F4"}


@FEW
@given(case=sts.valid_files(dtypes=NO_F64, empty_metadata=False))
def test_valid_files_draw_only_the_declared_dtypes_and_no_empty_metadata(
    case: sts.ValidFile,
) -> None:
    assert {t[0] for t in case.tensors.values()} <= NO_F64
    assert case.metadata != {}
    with stspec.read(case.data) as st:
        assert st.metadata != {}


@FEW
@given(tensors=sts.tensor_sets(dtypes=["BOOL"], min_size=1))
def test_bool_tensors_hold_only_0_and_1(
    tensors: dict[str, sts.RawTensor],
) -> None:
    # SPEC 6.1: other BOOL bytes are out of scope, a writer may normalise them
    for _, _, data in tensors.values():
        assert set(data) <= {0, 1}


@pytest.mark.parametrize(
    "kind", ["SIZE-BITS/partial-byte", "SIZE-MATCH/shape-disagrees"]
)
def test_corruptions_draw_declared_and_undeclared_fault_dtypes(kind: str) -> None:
    # The file around the fault uses declared dtypes; the fault's own dtype
    # is sometimes undeclared, since a reader that cannot read a dtype must
    # still refuse an invalid file using it (issue 24.2).
    declared = frozenset({"U8", "F6_E3M2", "F32"})
    strategy = sts.corruptions(kinds=[kind], dtypes=declared)
    only = find(strategy, lambda c: bool(c.dtypes) and c.dtypes <= declared, FEW)
    assert only.dtypes <= declared
    beyond = find(strategy, lambda c: not c.dtypes <= declared, FEW)
    assert beyond.dtypes - declared
    assert len(beyond.dtypes - declared) == 1  # only the fault's own dtype


def find(
    strategy: st.SearchStrategy[sts.Corruption],
    condition: Callable[[sts.Corruption], bool],
    base: settings,
) -> sts.Corruption:
    return hypothesis.find(
        strategy, condition, settings=settings(base, max_examples=200)
    )


# Bad arguments are named when the strategy is called, not at the first draw.
BAD_ARGUMENTS = [
    pytest.param(
        lambda: sts.valid_files(dtypes=["F33"]),
        r"dtypes=\['F33'\]: unknown dtype names 'F33'; known: BOOL, ",
        id="valid_files-unknown-dtype",
    ),
    pytest.param(
        lambda: sts.valid_files(dtypes=[]),
        r"dtypes=\[\] leaves nothing to draw",
        id="valid_files-no-dtype",
    ),
    pytest.param(
        lambda: sts.valid_files(dtypes="F32"),
        r"dtypes='F32' is not a collection of dtype names",
        id="valid_files-a-string",
    ),
    pytest.param(
        lambda: sts.valid_files(min_tensors=3, max_tensors=2),
        r"min_tensors=3 is larger than max_tensors=2",
        id="valid_files-sizes",
    ),
    pytest.param(
        lambda: sts.valid_files(empty_metadata="no"),  # type: ignore[arg-type]
        r"empty_metadata='no' must be True or False",
        id="valid_files-flag",
    ),
    pytest.param(
        lambda: sts.tensors(max_rank=-1),
        r"max_rank=-1 must be a non-negative integer",
        id="tensors-rank",
    ),
    pytest.param(
        lambda: sts.tensor_sets(dtypes=["F32", 7]),  # type: ignore[list-item]
        r"unknown dtype names 7",
        id="tensor_sets-not-a-name",
    ),
    pytest.param(
        lambda: sts.shapes("FP32"),
        r"unknown dtype names 'FP32'",
        id="shapes-dtype",
    ),
    pytest.param(
        lambda: sts.dtype_names(only=["x"]),
        r"only=\['x'\]: unknown dtype names 'x'",
        id="dtype_names-only",
    ),
    pytest.param(
        lambda: sts.metadata_maps(max_size=0, empty=False),
        r"leaves only None to draw",
        id="metadata_maps-nothing",
    ),
    pytest.param(
        lambda: sts.corruptions(kinds=["LAYOUT-HOLE"]),
        r"kinds=\['LAYOUT-HOLE'\]: unknown corruption kinds 'LAYOUT-HOLE'",
        id="corruptions-kind",
    ),
    pytest.param(
        lambda: sts.corruptions(dtypes=["F33"]),
        r"unknown dtype names 'F33'",
        id="corruptions-dtype",
    ),
    pytest.param(
        lambda: sts.tolerated_variants(kinds=[]),
        r"kinds=\[\] leaves nothing to draw",
        id="tolerated_variants-no-kind",
    ),
]


@pytest.mark.parametrize(("call", "message"), BAD_ARGUMENTS)
def test_a_bad_argument_is_named_up_front(call: Any, message: str) -> None:
    with pytest.raises(InvalidArgument, match=message):
        call()


def test_good_arguments_still_draw() -> None:
    @FEW
    @given(
        case=sts.valid_files(dtypes=("U8", "F32"), min_tensors=1, max_tensors=1),
        meta=sts.metadata_maps(max_size=1, empty=False),
    )
    def check(case: sts.ValidFile, meta: dict[str, str] | None) -> None:
        assert {t[0] for t in case.tensors.values()} <= {"U8", "F32"}
        assert meta != {}

    check()
