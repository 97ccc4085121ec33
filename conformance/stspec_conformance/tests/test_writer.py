"""The writer, when the implementation has one (``save``, or ``--write`` for commands).

Files it writes must be valid under the strict reference (``stspec.validate``
finds nothing), decode to what was written, and be canonical; requests no
valid file can express must be refused.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import pytest
from hypothesis import assume, given
from hypothesis import strategies as st

import stspec
from stspec_conformance import _props
from stspec_conformance import strategies as sts
from stspec_conformance._model import Content
from stspec_conformance.adapters.reference import ReferenceAdapter

if TYPE_CHECKING:
    from collections.abc import Mapping
    from pathlib import Path

    from stspec_conformance._state import SuiteState
    from stspec_conformance.adapters import Adapter

pytestmark = pytest.mark.stspec_writer


@pytest.fixture(scope="module")
def writer(suite: SuiteState) -> Adapter:
    """The implementation, when it can write."""
    if not suite.adapter.can_save:
        pytest.skip("the implementation has no writer (no save(), no --write)")
    return suite.adapter


def _save(
    writer: Adapter,
    scratch: Path,
    tensors: Mapping[str, sts.RawTensor],
    metadata: Mapping[str, str] | None,
    timeout: float,
) -> Path:
    path = scratch / "written.safetensors"
    path.unlink(missing_ok=True)
    outcome = writer.attempt_save(str(path), tensors, metadata, timeout=timeout)
    if outcome.status != "accepted":
        raise AssertionError(
            f"save() {outcome.describe()} for {len(tensors)} tensors "
            f"{ {n: (d, list(s)) for n, (d, s, _) in tensors.items()} } "
            f"metadata {metadata!r}"
        )
    return path


def _valid_and_equal(
    path: Path, tensors: Mapping[str, sts.RawTensor], metadata: Mapping[str, str] | None
) -> None:
    data = path.read_bytes()
    errors = stspec.validate(data)
    if errors:
        raise AssertionError(
            "wrote an invalid file "
            f"({'; '.join(map(str, errors[:3]))}): {_props.show(data)}"
        )
    loaded = ReferenceAdapter().load(str(path))
    problems = loaded.differences(Content.from_raw(tensors, metadata))
    if problems:
        raise AssertionError(f"wrote different content: {'; '.join(problems[:5])}")


def _refused(
    writer: Adapter,
    scratch: Path,
    tensors: Mapping[str, object],
    metadata: object,
    timeout: float,
    why: str,
) -> None:
    path = scratch / "refused.safetensors"
    path.unlink(missing_ok=True)
    outcome = writer.attempt_save(
        str(path),
        tensors,  # type: ignore[arg-type]  # deliberately not a valid request
        metadata,  # type: ignore[arg-type]
        timeout=timeout,
    )
    if outcome.failed_hard:
        pytest.fail(
            f"save() {outcome.describe()} when asked to write {why}", pytrace=False
        )
    if outcome.status == "accepted":
        written = path.read_bytes() if path.exists() else b""
        pytest.fail(
            f"wrote {why} instead of refusing; file: {_props.show(written)}",
            pytrace=False,
        )


@pytest.mark.stspec_rules("WRITE-VALID")
@given(data=st.data())
def test_writer_output_valid_and_equal(
    data: st.DataObject, writer: Adapter, suite: SuiteState, scratch: Path
) -> None:
    """Random tensor sets come out valid (strict reference) and decode equal."""
    tensors = data.draw(sts.tensor_sets(dtypes=writer.save_dtypes), label="tensors")
    metadata = data.draw(sts.metadata_maps(), label="metadata")
    assume(tensors or metadata != {})  # test_writer_empty_metadata_without_tensors
    path = _save(writer, scratch, tensors, metadata, suite.timeout)
    _valid_and_equal(path, tensors, metadata)


@pytest.mark.stspec_rules("WRITE-CANONICAL")
@given(data=st.data())
def test_writer_output_canonical(
    data: st.DataObject, writer: Adapter, suite: SuiteState, scratch: Path
) -> None:
    """The bytes are the canonical form (WRITE-CANONICAL), metadata of <= 1 key."""
    tensors = data.draw(sts.tensor_sets(dtypes=writer.save_dtypes), label="tensors")
    metadata = data.draw(sts.metadata_maps(max_size=1), label="metadata")
    assume(tensors or metadata != {})  # test_writer_empty_metadata_without_tensors
    path = _save(writer, scratch, tensors, metadata, suite.timeout)
    written, canonical = path.read_bytes(), stspec.serialize(tensors, metadata)
    if written != canonical:
        raise AssertionError(
            f"not the canonical bytes; wrote {_props.show(written)}"
            f"\n  expected {_props.show(canonical)}"
        )


@pytest.mark.stspec_rules("WRITE-CANONICAL")
@given(
    metadata=st.dictionaries(
        st.text(max_size=4), st.text(max_size=4), min_size=2, max_size=4
    )
)
def test_writer_metadata_keys_sorted(
    metadata: dict[str, str], writer: Adapter, suite: SuiteState, scratch: Path
) -> None:
    """``__metadata__`` keys come out sorted (WRITE-CANONICAL): reproducible bytes."""
    tensors = {"t": ("U8", (1,), b"\x01")}
    path = _save(writer, scratch, tensors, metadata, suite.timeout)
    written, canonical = path.read_bytes(), stspec.serialize(tensors, metadata)
    if written != canonical:
        raise AssertionError(
            f"metadata keys not in sorted order; wrote {_props.show(written)}"
            f"\n  expected {_props.show(canonical)}"
        )


@pytest.mark.stspec_rules("WRITE-VALID")
@pytest.mark.parametrize("dtype", sts.DTYPE_NAMES)
def test_writer_dtype(
    dtype: str, writer: Adapter, suite: SuiteState, scratch: Path
) -> None:
    """Every dtype can be written (shape [4], whole bytes for all of them)."""
    size = sts.nbytes_of(dtype, (4,))
    tensors = {"t": (dtype, (4,), bytes(range(7, 7 + size)))}
    _valid_and_equal(
        _save(writer, scratch, tensors, None, suite.timeout), tensors, None
    )


@pytest.mark.stspec_rules("WRITE-VALID")
def test_writer_empty_file(writer: Adapter, suite: SuiteState, scratch: Path) -> None:
    """No tensors and no metadata: a valid (16-byte) file."""
    _valid_and_equal(_save(writer, scratch, {}, None, suite.timeout), {}, None)


@pytest.mark.stspec_rules("WRITE-VALID")
def test_writer_empty_metadata_without_tensors(
    writer: Adapter, suite: SuiteState, scratch: Path
) -> None:
    """No tensors and ``metadata={}``: valid, and reads back as ``{}``."""
    _valid_and_equal(_save(writer, scratch, {}, {}, suite.timeout), {}, {})


@pytest.mark.stspec_rules("WRITE-RESERVED")
def test_writer_refuses_reserved_name(
    writer: Adapter, suite: SuiteState, scratch: Path
) -> None:
    """A tensor named ``__metadata__`` is refused (WRITE-RESERVED)."""
    tensors = {"__metadata__": ("U8", (1,), b"\x01")}
    _refused(
        writer, scratch, tensors, None, suite.timeout, "a tensor named __metadata__"
    )


@pytest.mark.stspec_rules("WRITE-VALID", "SIZE-MATCH")
def test_writer_refuses_size_mismatch(
    writer: Adapter, suite: SuiteState, scratch: Path
) -> None:
    """Data whose length disagrees with dtype x shape is refused (SIZE-MATCH)."""
    tensors = {"t": ("F32", (2,), b"\x00" * 7)}
    _refused(writer, scratch, tensors, None, suite.timeout, "F32 [2] with 7 bytes")


@pytest.mark.stspec_rules("WRITE-VALID", "SIZE-BITS")
def test_writer_refuses_partial_byte(
    writer: Adapter, suite: SuiteState, scratch: Path
) -> None:
    """A sub-byte tensor that does not fill whole bytes is refused (SIZE-BITS)."""
    if "F4" not in writer.save_dtypes:
        pytest.skip("the writer does not support F4")
    tensors = {"t": ("F4", (3,), b"\x00\x00")}
    _refused(writer, scratch, tensors, None, suite.timeout, "F4 [3] (12 bits)")


@pytest.mark.stspec_rules("WRITE-VALID", "META-STRING")
def test_writer_refuses_non_string_metadata(
    writer: Adapter, suite: SuiteState, scratch: Path
) -> None:
    """A metadata value that is not a string is refused (META-STRING)."""
    tensors = {"t": ("U8", (1,), b"\x01")}
    _refused(writer, scratch, tensors, {"k": 1}, suite.timeout, "metadata {'k': 1}")
