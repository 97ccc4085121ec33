"""Capability declarations: parsed from both paths, and every mistake named."""

from __future__ import annotations

from pathlib import Path

import pytest
from _suite_runner import run_suite

import stspec
from stspec_conformance._capabilities import (
    ALL_DTYPES,
    Capabilities,
    CapabilityError,
    from_describe,
    from_mapping,
    from_module,
)
from stspec_conformance._extent import Extent, extent_of
from stspec_conformance.adapters import ImplError, resolve

JUDGED = Path(__file__).resolve().parent / "judged"


def test_defaults_are_a_full_reader_without_a_writer() -> None:
    caps = from_mapping({}, source="x")
    assert caps == Capabilities()
    assert caps.read_dtypes == ALL_DTYPES
    assert len(ALL_DTYPES) == 22
    assert not caps.write
    assert caps.describe() == ("reads tensor bytes; reads all 22 dtypes; no writer")


def test_a_narrow_declaration_is_kept_and_described() -> None:
    caps = from_mapping(
        {"read_dtypes": ["U8", "F32"], "header_only": True, "metadata_presence": False},
        source="x",
    )
    assert caps.read_dtypes == {"U8", "F32"}
    assert caps.reads("U8")
    assert not caps.reads("U8", "F64")
    assert caps.header_only
    assert "header-only validator" in caps.describe()
    assert "absent __metadata__ = {}" in caps.describe()
    assert caps.as_json()["read_dtypes"] == ["U8", "F32"]


@pytest.mark.parametrize(
    ("declared", "says"),
    [
        ({"read_dtype": ["U8"]}, "unknown key(s) 'read_dtype'"),
        ({"read_dtypes": ["U8", "f32"]}, "unknown dtype(s) 'f32'"),
        ({"read_dtypes": "U8"}, "must be a list of dtype names"),
        ({"read_dtypes": []}, "is empty"),
        ({"header_only": "yes"}, "must be true or false"),
        ({"write_dtypes": ["U8"]}, "write_dtypes given, but there is no writer"),
        ({"canonical": True}, "canonical is true, but there is no writer"),
        ({"canonical": 1, "write": True}, "['canonical'] must be true or false"),
        (["U8"], "must be a mapping"),
    ],
)
def test_mistakes_are_named(declared: object, says: str) -> None:
    with pytest.raises(CapabilityError) as caught:
        from_mapping(declared, source="where")
    assert says in str(caught.value)
    assert str(caught.value).startswith("where")


def test_python_writer_is_the_presence_of_save() -> None:
    assert from_module(None, None, has_writer=True, origin="m").write
    assert not from_module(None, None, has_writer=False, origin="m").write
    with pytest.raises(CapabilityError, match="does not define save"):
        from_module({"write": True}, None, has_writer=False, origin="m")


def test_canonical_is_declared_not_assumed() -> None:
    # WRITE-CANONICAL is a SHOULD: only a writer claiming the class is judged.
    assert not from_mapping({"write": True}, source="x").canonical
    caps = from_module({"canonical": True}, None, has_writer=True, origin="m")
    assert caps.canonical
    assert caps.as_json()["canonical"] is True
    assert caps.describe().endswith("writes all 22 dtypes; canonical writer")
    assert from_describe(
        {"protocol": 2, "capabilities": {"write": True, "canonical": True}},
        source="cmd",
    ).canonical


def test_reference_and_hf_declare_canonical() -> None:
    isolated = resolve("reference", isolate=True)  # the worker passes it on
    assert isolated.capabilities.canonical
    assert resolve("reference", isolate=False).capabilities.canonical
    pytest.importorskip("safetensors")
    assert resolve("safetensors", isolate=False).capabilities.canonical


def test_python_legacy_save_dtypes() -> None:
    caps = from_module(None, frozenset({"U8"}), has_writer=True, origin="m")
    assert caps.write_dtypes == {"U8"}
    with pytest.raises(CapabilityError, match="both"):
        from_module({"write_dtypes": ["U8"]}, ["U8"], has_writer=True, origin="m")
    with pytest.raises(CapabilityError, match="must be a dict"):
        from_module(["U8"], None, has_writer=True, origin="m")


def test_describe_protocol_2_and_legacy() -> None:
    caps = from_describe(
        {
            "protocol": 2,
            "capabilities": {"read_dtypes": ["U8"], "write": True},
        },
        source="cmd",
    )
    assert caps.read_dtypes == {"U8"}
    assert caps.write
    old = from_describe({"write": True, "save_dtypes": ["F32"]}, source="cmd")
    assert old.write
    assert old.write_dtypes == {"F32"}
    with pytest.raises(CapabilityError, match="protocol must be 1 or 2"):
        from_describe({"protocol": 3}, source="cmd")
    with pytest.raises(CapabilityError, match="top level and in capabilities"):
        from_describe({"write": True, "capabilities": {"write": True}}, source="c")


def test_adapters_expose_capabilities(tmp_path: Path) -> None:
    reference = resolve("reference")
    assert reference.capabilities.write
    assert reference.capabilities.read_dtypes == ALL_DTYPES
    adapter = tmp_path / "narrow.py"
    adapter.write_text(
        "CAPABILITIES = {'read_dtypes': ['U8'], 'header_only': True}\n"
        "def load(path):\n    return {}, None\n"
    )
    narrow = resolve(str(adapter))
    assert narrow.capabilities.read_dtypes == {"U8"}
    assert narrow.capabilities.header_only
    assert not narrow.can_save


def test_a_bad_declaration_is_a_usage_error(tmp_path: Path) -> None:
    adapter = tmp_path / "typo.py"
    adapter.write_text(
        "CAPABILITIES = {'read_dtypes': ['FP32']}\n"
        "def load(path):\n    return {}, None\n"
    )
    with pytest.raises(ImplError, match=r"unknown dtype.*'FP32'"):
        resolve(str(adapter))


def test_declared_limits_excuse_only_what_they_cover(tmp_path: Path) -> None:
    # issue 24.8: a reader may declare its largest file, header and tensor
    select = ("-k", "y_layout_offsets_beyond_4gib or y_dtype_f32_values")
    run = run_suite(str(JUDGED / "limited_reader.py"), *select, tmp_path=tmp_path)
    assert run.returncode == 0, run.output[-3000:]
    big = run.test("test_must_accept[y_layout_offsets_beyond_4gib]")
    assert big["result"] == "not-applicable", big
    assert "max_file_size 2,147,483,648" in big["message"], big
    assert run.results["test_must_accept[y_dtype_f32_values]"] == "passed"
    # refusing a file within the declared limits is still a failure
    (tmp_path / "report.json").unlink()
    liar = tmp_path / "limited_liar.py"
    liar.write_text(
        f"import sys\nsys.path.insert(0, {str(JUDGED)!r})\n"
        "import limited_reader\nfrom limited_reader import CAPABILITIES, load\n"
        "limited_reader.REFUSE_ABOVE = 105\n"
    )
    run = run_suite(str(liar), *select, tmp_path=tmp_path)
    assert run.returncode == 1, run.output[-3000:]
    small = run.test("test_must_accept[y_dtype_f32_values]")
    assert small["result"] == "failed", small
    assert "rejected a valid file" in small["message"], small


@pytest.mark.parametrize(
    ("declared", "message"),
    [
        ({"max_file_size": 0}, "must be a positive number of bytes"),
        ({"max_tensor_size": "1GB"}, "must be a positive number of bytes"),
        ({"max_header_size": 100_000_001}, "above the format's own limit"),
    ],
)
def test_limits_are_checked(declared: dict[str, object], message: str) -> None:
    with pytest.raises(CapabilityError, match=message):
        from_mapping(declared, source="CAPABILITIES")
    caps = from_mapping({"max_header_size": 1000}, source="CAPABILITIES")
    assert (
        caps.exceeded(10**9, 1001, 0) == "max_header_size 1,000 (this one: 1,001 bytes)"
    )
    assert caps.exceeded(10**9, 1000, 10**9) is None
    assert "max_header_size 1,000" in caps.describe()
    assert caps.as_json()["max_header_size"] == 1000


def test_structural_limits_excuse_only_what_they_cover(tmp_path: Path) -> None:
    # SPEC 1.6: fewer tensors, shorter names, a smaller number range
    select = (
        "-k",
        (
            "y_layout_50000_tensors or y_structure_name_long or "
            "y_arith_zero_beside_2pow32 or y_layout_100_tensors or y_dtype_f32_values"
        ),
    )
    reader = JUDGED / "structure_limited_reader.py"
    run = run_suite(str(reader), *select, tmp_path=tmp_path)
    assert run.returncode == 0, run.output[-3000:]
    for case, said in (
        ("y_layout_50000_tensors", "max_tensors 8,192 (this one: 50,000 tensors)"),
        ("y_structure_name_long", "max_name_length 1,024 (this one: 10,000 bytes)"),
        ("y_arith_zero_beside_2pow32", "max_dimension 2,147,483,647"),
    ):
        test = run.test(f"test_must_accept[{case}]")
        assert test["result"] == "not-applicable", test
        assert said in test["message"], test
    assert run.results["test_must_accept[y_layout_100_tensors]"] == "passed"
    # refusing beyond what it declares is a failure
    (tmp_path / "report.json").unlink()
    liar = tmp_path / "structure_liar.py"
    liar.write_text(
        f"import sys\nsys.path.insert(0, {str(JUDGED)!r})\n"
        "import structure_limited_reader\n"
        "from structure_limited_reader import CAPABILITIES, load\n"
        "structure_limited_reader.MAX_TENSORS = 50\n"
    )
    run = run_suite(str(liar), *select, tmp_path=tmp_path)
    assert run.returncode == 1, run.output[-3000:]
    hundred = run.test("test_must_accept[y_layout_100_tensors]")
    assert hundred["result"] == "failed", hundred
    assert "rejected a valid file" in hundred["message"], hundred
    assert run.results["test_must_accept[y_layout_50000_tensors]"] == "not-applicable"


@pytest.mark.parametrize(
    ("declared", "extent", "said"),
    [
        ({"max_tensors": 10}, {"tensors": 11}, "max_tensors 10 (this one: 11 tensors)"),
        ({"max_rank": 4}, {"rank": 5}, "max_rank 4 (this one: 5 dimensions)"),
        ({"max_number": 2**53}, {"number": 2**53 + 1}, "max_number 9,007,199,254,"),
        ({"max_rank": 4}, {"rank": 4}, None),
        ({"max_header_size": 100}, {"header": 101}, "max_header_size 100"),
    ],
)
def test_a_declared_limit_is_compared_with_the_files_extent(
    declared: dict[str, int], extent: dict[str, int], said: str | None
) -> None:
    caps = from_mapping(declared, source="CAPABILITIES")
    found = caps.beyond(Extent(**{"file": 1000, "header": 50, "tensor": 8, **extent}))
    assert (found is None) if said is None else (said in str(found)), found
    assert caps.limited
    assert caps.as_json()[next(iter(declared))] == next(iter(declared.values()))
    assert not from_mapping({}, source="CAPABILITIES").limited


def test_structural_limits_are_checked() -> None:
    with pytest.raises(CapabilityError, match="positive number of items"):
        from_mapping({"max_tensors": 0}, source="CAPABILITIES")
    with pytest.raises(CapabilityError, match="positive number of items"):
        from_mapping({"max_rank": "8"}, source="CAPABILITIES")


def test_the_extent_of_a_valid_file_is_measured() -> None:
    data = stspec.serialize(
        {"ab": ("U8", [2, 3], bytes(6)), "é": ("F32", [0], b"")}, None
    )
    extent = extent_of(data)
    assert extent is not None
    assert (extent.tensors, extent.name, extent.rank) == (2, 2, 2)
    assert (extent.dimension, extent.number, extent.tensor) == (3, 6, 6)
    assert extent_of(b"\x00" * 4) is None
