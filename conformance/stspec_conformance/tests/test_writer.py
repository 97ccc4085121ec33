"""The writer, when the implementation has one (``save``, or ``--write`` for commands).

Files it writes must be valid under the strict reference (``stspec.validate``
finds nothing) and decode to what was written; a writer that declares
``canonical`` (the canonical-writer class, SPEC 1.5) must also write the
canonical bytes, which for other writers is a SHOULD the suite does not judge
(not applicable).  Requests no
valid file can express must be refused, by every writer whatever it declares
(a partial-byte F6, a header over 100,000,000 bytes, an unknown dtype, also
one whose byte count fits a guessed width, a lone surrogate, a shape of 2^64
elements over no bytes).  Valid requests use only
the declared ``write_dtypes`` (a refused undeclared dtype is not applicable)
and BOOL bytes 0x00/0x01 (SPEC 6.1 leaves other values to the writer);
dimensions 2^53+1 and 2^64-1 must come out exact.  Every refusal test
first has the writer write the corrected request: a writer that writes
nothing must not score its refusals.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import pytest
from hypothesis import assume, example, given
from hypothesis import strategies as st

import stspec
from stspec.dtypes import BITS
from stspec_conformance import _outcomes, _props
from stspec_conformance import strategies as sts
from stspec_conformance._explain import canonical_difference
from stspec_conformance._model import Content
from stspec_conformance.adapters.reference import ReferenceAdapter

if TYPE_CHECKING:
    from collections.abc import Mapping
    from pathlib import Path

    from stspec_conformance._model import Outcome
    from stspec_conformance._state import SuiteState
    from stspec_conformance.adapters import Adapter

pytestmark = pytest.mark.stspec_writer


@pytest.fixture(scope="module")
def writer(suite: SuiteState) -> Adapter:
    """The implementation, when it declares a writer."""
    if not suite.adapter.can_save:
        _outcomes.not_applicable(
            "the implementation declares no writer (no save(), no --write)"
        )
    return suite.adapter


@pytest.fixture(scope="module")
def canonical_writer(writer: Adapter) -> Adapter:
    """The implementation, when it declares the canonical-writer class."""
    if not writer.capabilities.canonical:
        _outcomes.not_applicable(
            "the writer does not declare canonical: WRITE-CANONICAL is a SHOULD, "
            "a MUST only for the canonical-writer class (SPEC 1.5)"
        )
    return writer


def _describe(
    tensors: Mapping[str, sts.RawTensor], metadata: Mapping[str, str] | None
) -> str:
    shown = {n: (d, list(s)) for n, (d, s, _) in list(tensors.items())[:4]}
    more = f" (+{len(tensors) - 4} more)" if len(tensors) > 4 else ""
    return f"{len(tensors)} tensors {shown}{more}, metadata {metadata!r:.120}"


def _attempt(
    writer: Adapter,
    path: Path,
    tensors: Mapping[str, object],
    metadata: object,
    timeout: float,
) -> Outcome:
    path.unlink(missing_ok=True)
    return writer.attempt_save(
        str(path),
        tensors,  # type: ignore[arg-type]  # refusal tests pass invalid requests
        metadata,  # type: ignore[arg-type]
        timeout=timeout,
    )


def _save(
    writer: Adapter,
    scratch: Path,
    tensors: Mapping[str, sts.RawTensor],
    metadata: Mapping[str, str] | None,
    timeout: float,
    node: pytest.Item,
) -> Path:
    """Write a valid request; fail unless it is written."""
    path = scratch / "written.safetensors"
    outcome = _attempt(writer, path, tensors, metadata, timeout)
    status = _props.verdict_of(outcome, node)
    if status == "rejected":
        undeclared = {d for d, _, _ in tensors.values()} - writer.save_dtypes
        if undeclared:
            _outcomes.not_applicable(
                f"the writer refused {sorted(undeclared)}, which it does not "
                "declare in write_dtypes",
                node,
            )
        raise AssertionError(
            f"refused to write a valid request: {outcome.describe()}; "
            f"request: {_describe(tensors, metadata)}"
        )
    if status != "accepted":
        raise AssertionError(
            f"{outcome.describe()} writing {_describe(tensors, metadata)}"
        )
    return path


def _valid_and_equal(
    path: Path,
    tensors: Mapping[str, sts.RawTensor],
    metadata: Mapping[str, str] | None,
    node: pytest.Item,
) -> None:
    data = path.read_bytes()
    errors = stspec.validate(data)
    if errors:
        _outcomes.record(node, "wrong-content")
        _outcomes.broke(node, "WRITE-VALID")
        raise AssertionError(
            "wrote an invalid file "
            f"({'; '.join(map(str, errors[:3]))}): {_props.show(data)}"
        )
    loaded = ReferenceAdapter().load(str(path))
    problems = loaded.differences(Content.from_raw(tensors, metadata))
    if problems:
        _outcomes.record(node, "wrong-content")
        _outcomes.broke(node, "WRITE-FIDELITY")
        raise AssertionError(f"wrote different content: {'; '.join(problems[:5])}")


def _canonical(
    path: Path,
    tensors: Mapping[str, sts.RawTensor],
    metadata: Mapping[str, str] | None,
    node: pytest.Item,
) -> None:
    written, canonical = path.read_bytes(), stspec.serialize(tensors, metadata)
    if written != canonical:
        _outcomes.record(node, "wrong-content")
        raise AssertionError(
            "not canonical (a MUST for the canonical-writer class it declares): "
            f"{canonical_difference(written, canonical)}"
        )


def _refused(
    writer: Adapter,
    scratch: Path,
    bad: tuple[Mapping[str, object], object, str],
    corrected: tuple[Mapping[str, sts.RawTensor], Mapping[str, str] | None],
    timeout: float,
    node: pytest.Item,
) -> None:
    """The corrected request is written, the bad one (``why``) refused."""
    tensors, metadata, why = bad
    control = scratch / "control.safetensors"
    outcome = _attempt(writer, control, corrected[0], corrected[1], timeout)
    if outcome.status != "accepted":
        _props.verdict_of(outcome, node)
        _props.expect(node, "accept")
        _outcomes.broke(node)  # the bad request's rules were never reached
        pytest.fail(
            f"cannot write the corrected request ({_describe(*corrected)}) either, "
            f"so refusing {why} shows nothing: {outcome.describe()}",
            pytrace=False,
        )
    path = scratch / "refused.safetensors"
    outcome = _attempt(writer, path, tensors, metadata, timeout)
    status = _props.verdict_of(outcome, node)
    if status == "accepted":
        written = path.read_bytes() if path.exists() else b""
        pytest.fail(
            f"wrote {why} instead of refusing: {_written_breaks(written, node)}; "
            f"file: {_props.show(written)}",
            pytrace=False,
        )
    if status != "rejected":
        pytest.fail(f"{outcome.describe()} when asked to write {why}", pytrace=False)


def _written_breaks(written: bytes, node: pytest.Item) -> str:
    """Charge the rules the written bytes break; say which (for the message).

    A request no valid file can express was written anyway.  What the file
    breaks is what it is charged with: a file written with the lone surrogate
    escaped breaks JSON-SURROGATE, but a valid file under another name (Go
    writes U+FFFD for it) breaks only WRITE-FIDELITY.
    """
    errors = stspec.validate(written)
    if errors:
        rules = sorted({error.rule for error in errors})
        _outcomes.broke(node, "WRITE-VALID", *rules)
        return f"the file breaks {', '.join(rules)} ({errors[0]})"
    _outcomes.broke(node, "WRITE-FIDELITY")
    return "the file is valid, but does not hold what was asked (WRITE-FIDELITY)"


@pytest.mark.stspec_rules("WRITE-VALID", "WRITE-FIDELITY")
def test_writer_output_valid_and_equal(
    writer: Adapter, suite: SuiteState, scratch: Path, request: pytest.FixtureRequest
) -> None:
    """Random tensor sets come out valid (strict reference) and decode equal."""
    edge = sts.edge_content(writer.save_dtypes)

    @given(
        tensors=sts.tensor_sets(dtypes=writer.save_dtypes),
        metadata=sts.metadata_maps(),
    )
    @example(tensors=edge[0], metadata=edge[1])
    def check(
        tensors: dict[str, sts.RawTensor], metadata: dict[str, str] | None
    ) -> None:
        _outcomes.start_example(request.node)
        assume(tensors or metadata != {})  # test_writer_empty_metadata_without_tensors
        path = _save(writer, scratch, tensors, metadata, suite.timeout, request.node)
        _valid_and_equal(path, tensors, metadata, request.node)

    check()


@pytest.mark.stspec_rules("WRITE-CANONICAL")
def test_writer_output_canonical(
    canonical_writer: Adapter,
    suite: SuiteState,
    scratch: Path,
    request: pytest.FixtureRequest,
) -> None:
    """The bytes are the canonical form (WRITE-CANONICAL), metadata of <= 1 key.

    The explicit example inserts tensors of one dtype out of name order, two
    of them named so that UTF-16 code-unit order (JavaScript's default sort)
    differs from the spec's code-point order.
    """
    writer = canonical_writer
    edge = sts.edge_content(writer.save_dtypes)

    @given(
        tensors=sts.tensor_sets(dtypes=writer.save_dtypes),
        metadata=sts.metadata_maps(max_size=1),
    )
    @example(tensors=edge[0], metadata={"crlf": edge[1]["crlf"]})
    def check(
        tensors: dict[str, sts.RawTensor], metadata: dict[str, str] | None
    ) -> None:
        _outcomes.start_example(request.node)
        assume(tensors or metadata != {})  # test_writer_empty_metadata_without_tensors
        path = _save(writer, scratch, tensors, metadata, suite.timeout, request.node)
        _canonical(path, tensors, metadata, request.node)

    check()


@pytest.mark.stspec_rules("WRITE-CANONICAL")
@given(
    metadata=st.dictionaries(
        st.text(max_size=4), st.text(max_size=4), min_size=2, max_size=4
    )
)
# characters JSON encoders escape differently (HTML-safe '<', '&'; '/'; DEL;
# non-ASCII; controls): the canonical form writes only controls escaped
@example(metadata={"b": "</\x7f", "a": "&\u00e9\x01\u2028"})
def test_writer_metadata_keys_sorted(
    metadata: dict[str, str],
    canonical_writer: Adapter,
    suite: SuiteState,
    scratch: Path,
    request: pytest.FixtureRequest,
) -> None:
    """Several ``__metadata__`` keys: sorted, escaped as specified, canonical bytes."""
    _outcomes.start_example(request.node)
    tensors = {"t": ("U8", (1,), b"\x01")}
    path = _save(
        canonical_writer, scratch, tensors, metadata, suite.timeout, request.node
    )
    _canonical(path, tensors, metadata, request.node)


def _dtype_bytes(dtype: str, size: int) -> bytes:
    if dtype == "BOOL":
        return bytes(i % 3 % 2 for i in range(size))  # 0/1 only (SPEC 6.1)
    return bytes(range(7, 7 + size))


@pytest.mark.stspec_rules("WRITE-VALID", "WRITE-FIDELITY")
@pytest.mark.parametrize("dtype", sts.DTYPE_NAMES)
def test_writer_dtype(
    dtype: str,
    writer: Adapter,
    suite: SuiteState,
    scratch: Path,
    request: pytest.FixtureRequest,
) -> None:
    """Every declared dtype can be written (shape [4], whole bytes for all)."""
    size = sts.nbytes_of(dtype, (4,))
    tensors = {"t": (dtype, (4,), _dtype_bytes(dtype, size))}
    path = _save(writer, scratch, tensors, None, suite.timeout, request.node)
    _valid_and_equal(path, tensors, None, request.node)


@pytest.mark.stspec_rules("WRITE-VALID", "WRITE-FIDELITY")
def test_writer_empty_file(
    writer: Adapter, suite: SuiteState, scratch: Path, request: pytest.FixtureRequest
) -> None:
    """No tensors and no metadata: a valid (16-byte) file."""
    path = _save(writer, scratch, {}, None, suite.timeout, request.node)
    _valid_and_equal(path, {}, None, request.node)


@pytest.mark.stspec_rules("WRITE-VALID", "WRITE-FIDELITY")
def test_writer_empty_metadata_without_tensors(
    writer: Adapter, suite: SuiteState, scratch: Path, request: pytest.FixtureRequest
) -> None:
    """No tensors and ``metadata={}``: valid, and reads back as ``{}``."""
    path = _save(writer, scratch, {}, {}, suite.timeout, request.node)
    _valid_and_equal(path, {}, {}, request.node)


def _small(writer: Adapter) -> dict[str, sts.RawTensor]:
    """One small tensor of a dtype the writer declares (U8 when it does)."""
    dtype = "U8" if "U8" in writer.save_dtypes else min(writer.save_dtypes)
    return {"t": (dtype, (8,), bytes(sts.nbytes_of(dtype, (8,))))}


@pytest.mark.stspec_rules("WRITE-RESERVED")
def test_writer_refuses_reserved_name(
    writer: Adapter, suite: SuiteState, scratch: Path, request: pytest.FixtureRequest
) -> None:
    """A tensor named ``__metadata__`` is refused (WRITE-RESERVED)."""
    small = _small(writer)
    bad = {"__metadata__": small["t"]}
    _refused(
        writer,
        scratch,
        (bad, None, "a tensor named __metadata__"),
        (small, None),
        suite.timeout,
        request.node,
    )


@pytest.mark.stspec_rules("WRITE-VALID", "SIZE-MATCH")
def test_writer_refuses_size_mismatch(
    writer: Adapter, suite: SuiteState, scratch: Path, request: pytest.FixtureRequest
) -> None:
    """Data whose length disagrees with dtype x shape is refused (SIZE-MATCH)."""
    dtype = "F32" if "F32" in writer.save_dtypes else min(writer.save_dtypes)
    size = sts.nbytes_of(dtype, (8,))
    bad = {"t": (dtype, (8,), bytes(size - 1))}
    _refused(
        writer,
        scratch,
        (bad, None, f"{dtype} [8] with {size - 1} bytes"),
        ({"t": (dtype, (8,), bytes(size))}, None),
        suite.timeout,
        request.node,
    )


@pytest.mark.stspec_rules("WRITE-VALID", "SIZE-BITS")
@pytest.mark.parametrize(
    ("dtype", "count"), [("F4", 3), ("F6_E2M3", 1), ("F6_E3M2", 2)]
)
def test_writer_refuses_partial_byte(
    dtype: str,
    count: int,
    writer: Adapter,
    suite: SuiteState,
    scratch: Path,
    request: pytest.FixtureRequest,
) -> None:
    """A sub-byte tensor that does not fill whole bytes is refused (SIZE-BITS).

    Whatever the writer declares: a file it writes must be valid, so a dtype it
    cannot write is refused too.  The corrected request uses the same dtype
    at four elements when the writer declares it, else a dtype it declares.
    """
    bits = count * BITS[dtype]
    bad = {"t": (dtype, (count,), bytes(-(-bits // 8)))}
    corrected = (
        {"t": (dtype, (4,), bytes(sts.nbytes_of(dtype, (4,))))}
        if dtype in writer.save_dtypes
        else _small(writer)
    )
    _refused(
        writer,
        scratch,
        (bad, None, f"{dtype} [{count}] ({bits} bits)"),
        (corrected, None),
        suite.timeout,
        request.node,
    )


@pytest.mark.stspec_rules("WRITE-VALID", "HEADER-LIMIT")
def test_writer_refuses_header_over_limit(
    writer: Adapter, suite: SuiteState, scratch: Path, request: pytest.FixtureRequest
) -> None:
    """A request whose header would exceed 100,000,000 bytes is refused.

    The metadata value is 16,666,667 U+0001 characters, each written as the
    six-byte escape ``\\u0001``: a small request, a header just over the limit.
    """
    value = "\x01" * -(-stspec.MAX_HEADER_SIZE // 6)
    _refused(
        writer,
        scratch,
        (_small(writer), {"k": value}, f"a header over {stspec.MAX_HEADER_SIZE} bytes"),
        (_small(writer), {"k": "\x01"}),
        suite.timeout,
        request.node,
    )


@pytest.mark.stspec_rules("WRITE-VALID", "DTYPE-NAME")
def test_writer_refuses_unknown_dtype(
    writer: Adapter, suite: SuiteState, scratch: Path, request: pytest.FixtureRequest
) -> None:
    """A dtype the spec does not name (``F128``) is refused (DTYPE-NAME)."""
    _refused(
        writer,
        scratch,
        ({"t": ("F128", (1,), bytes(16))}, None, "a tensor of dtype F128"),
        (_small(writer), None),
        suite.timeout,
        request.node,
    )


# Unknown names whose byte count agrees with a fixed width (1, 2, 4 or 8 bytes
# per element) or with a width read from the name: a writer that sizes an
# unknown dtype by some fallback finds each request of its width consistent,
# so only checking the name refuses it.
_UNKNOWN_CONSISTENT = (
    ("Q4_K", 1),
    ("f16", 2),
    ("float32", 4),
    ("F64 ", 8),
    ("U128", 16),
)


@pytest.mark.stspec_rules("WRITE-VALID", "DTYPE-NAME")
@pytest.mark.parametrize(("dtype", "width"), _UNKNOWN_CONSISTENT)
def test_writer_refuses_unknown_dtype_of_consistent_size(
    dtype: str,
    width: int,
    writer: Adapter,
    suite: SuiteState,
    scratch: Path,
    request: pytest.FixtureRequest,
) -> None:
    """An unknown dtype is refused by its name, whatever size its bytes suggest."""
    _refused(
        writer,
        scratch,
        (
            {"t": (dtype, (8,), bytes(8 * width))},
            None,
            f"a tensor of dtype {dtype!r}, shape [8], {8 * width} bytes",
        ),
        (_small(writer), None),
        suite.timeout,
        request.node,
    )


@pytest.mark.stspec_rules("WRITE-VALID", "JSON-SURROGATE")
def test_writer_refuses_lone_surrogate_name(
    writer: Adapter, suite: SuiteState, scratch: Path, request: pytest.FixtureRequest
) -> None:
    """A tensor name holding a lone surrogate (U+D800) is refused (JSON-SURROGATE)."""
    small = _small(writer)
    _refused(
        writer,
        scratch,
        ({"w\ud800": small["t"]}, None, "a tensor named 'w\\ud800'"),
        ({"w": small["t"]}, None),
        suite.timeout,
        request.node,
    )


@pytest.mark.stspec_rules("WRITE-VALID", "SIZE-OVERFLOW")
def test_writer_refuses_overflowing_shape(
    writer: Adapter, suite: SuiteState, scratch: Path, request: pytest.FixtureRequest
) -> None:
    """``[2^32, 2^32]`` over no bytes: 2^64 elements, 0 only modulo 2^64."""
    dtype = "F32" if "F32" in writer.save_dtypes else min(writer.save_dtypes)
    _refused(
        writer,
        scratch,
        ({"t": (dtype, (2**32, 2**32), b"")}, None, f"{dtype} [2^32, 2^32] in 0 bytes"),
        ({"t": (dtype, (2, 4), bytes(sts.nbytes_of(dtype, (2, 4))))}, None),
        suite.timeout,
        request.node,
    )


@pytest.mark.stspec_rules("WRITE-VALID", "NUM-RANGE")
def test_writer_exact_integers(
    writer: Adapter, suite: SuiteState, scratch: Path, request: pytest.FixtureRequest
) -> None:
    """Dimensions 2^64-1 and 2^53+1 (of empty tensors) are written exactly.

    A writer that passes integers through doubles writes 2^64 (out of range)
    and 2^53.
    """
    dtype = _small(writer)["t"][0]
    tensors = {
        "u64max": (dtype, (2**64 - 1, 0), b""),
        "odd": (dtype, (0, 2**53 + 1), b""),
    }
    path = _save(writer, scratch, tensors, None, suite.timeout, request.node)
    _valid_and_equal(path, tensors, None, request.node)


@pytest.mark.stspec_rules("WRITE-VALID", "META-STRING")
def test_writer_refuses_non_string_metadata(
    writer: Adapter, suite: SuiteState, scratch: Path, request: pytest.FixtureRequest
) -> None:
    """A metadata value that is not a string is refused (META-STRING)."""
    _refused(
        writer,
        scratch,
        (_small(writer), {"k": 1}, "metadata {'k': 1}"),
        (_small(writer), {"k": "1"}),
        suite.timeout,
        request.node,
    )
