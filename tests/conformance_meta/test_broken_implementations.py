"""The suite has teeth: each deliberately broken implementation is caught by the
test that names its fault, and the neighbouring tests still pass."""

from __future__ import annotations

from typing import TYPE_CHECKING

import pytest
from _suite_runner import BROKEN, run_suite

if TYPE_CHECKING:
    from pathlib import Path

# module -> (-k selection, must fail, must pass, text in the failure message)
CASES = {
    "accepts_holes": (
        (
            "n_layout_hole_between_tensors or LAYOUT-HOLE/gap "
            "or y_layout_empty_tensors_at_cursor"
        ),
        [
            "test_must_reject[n_layout_hole_between_tensors]",
            "test_single_fault_rejected[LAYOUT-HOLE/gap]",
        ],
        ["test_must_accept[y_layout_empty_tensors_at_cursor]"],
        "accepted",
    ),
    "keeps_last_duplicate": (
        (
            "n_structure_duplicate_tensor_identical or "
            "KEY-UNIQUE/tensor-name or y_layout_100_tensors"
        ),
        [
            "test_must_reject[n_structure_duplicate_tensor_identical]",
            "test_single_fault_rejected[KEY-UNIQUE/tensor-name]",
        ],
        ["test_must_accept[y_layout_100_tensors]"],
        "accepted",
    ),
    "ignores_trailing_bytes": (
        "n_layout_trailing_bogus_data or LAYOUT-TRAILING or y_layout_last_byte_covered",
        [
            "test_must_reject[n_layout_trailing_bogus_data]",
            "test_single_fault_rejected[LAYOUT-TRAILING/extra-bytes]",
        ],
        ["test_must_accept[y_layout_last_byte_covered]"],
        "accepted",
    ),
    "skips_header_limit": (
        "n_prefix_header_over_limit or y_prefix_smallest_file",
        ["test_must_reject[n_prefix_header_over_limit]"],
        ["test_must_accept[y_prefix_smallest_file]"],
        "",  # accepted, or hung parsing the 100 MB header: both fail
    ),
    "rounds_subbyte_up": (
        "n_dtype_bits_f4_odd_count or SIZE-BITS or y_dtype_bits_f4_count_2",
        [
            "test_must_reject[n_dtype_bits_f4_odd_count]",
            "test_single_fault_rejected[SIZE-BITS/partial-byte]",
        ],
        ["test_must_accept[y_dtype_bits_f4_count_2]"],
        "SIZE-BITS",
    ),
    "accepts_non_string_metadata": (
        (
            "n_structure_metadata_value_integer or "
            "META-STRING or y_structure_metadata_empty"
        ),
        [
            "test_must_reject[n_structure_metadata_value_integer]",
            "test_single_fault_rejected[META-STRING/non-string-value]",
        ],
        ["test_must_accept[y_structure_metadata_empty]"],
        "META-STRING",
    ),
    "swaps_f16_bytes": (
        "y_dtype_f16_values or y_dtype_f32_values",
        ["test_must_accept[y_dtype_f16_values]"],
        ["test_must_accept[y_dtype_f32_values]"],
        "different content",
    ),
    "wraps_shape_product": (
        "n_arith_overflow_2pow63_x_2_u8 or SIZE-OVERFLOW/wraps or y_arith_zero_last",
        [
            "test_must_reject[n_arith_overflow_2pow63_x_2_u8]",
            "test_single_fault_rejected[SIZE-OVERFLOW/wraps-to-zero]",
        ],
        ["test_must_accept[y_arith_zero_last]"],
        "SIZE-OVERFLOW",
    ),
    "accepts_float_integers": (
        (
            "n_json_number_float_offset or "
            "NUM-INTEGER/fraction or y_json_number_u64_max_dim"
        ),
        [
            "test_must_reject[n_json_number_float_offset]",
            "test_single_fault_rejected[NUM-INTEGER/fraction-or-exponent]",
        ],
        ["test_must_accept[y_json_number_u64_max_dim]"],
        "NUM-INTEGER",
    ),
    "recursion_on_nesting": (
        "n_json_depth_bomb_100000_arrays or y_json_depth_3",
        ["test_must_reject[n_json_depth_bomb_100000_arrays]"],
        ["test_must_accept[y_json_depth_3]"],
        "exception",  # Python's RecursionError: the runtime caught it
    ),
    # N past the limit: a buffer of a checked N (at most 100,000,000) is
    # within the allowance (SPEC READ-OUTCOME), one sized by any N is not
    "allocates_from_n": (
        "n_prefix_n_limit_plus_1_tiny_file or y_prefix_smallest_file",
        ["test_must_reject[n_prefix_n_limit_plus_1_tiny_file]"],
        ["test_must_accept[y_prefix_smallest_file]"],
        "resource (reserved):",  # an allocation the limit refused
    ),
    "hangs_on_empty_name": (
        "y_structure_name_empty or y_structure_name_dotted",
        ["test_must_accept[y_structure_name_empty]"],
        ["test_must_accept[y_structure_name_dotted]"],
        "hung",
    ),
    "writer_unpadded": (
        "test_writer_output or test_writer_empty_file",
        ["test_writer_output_canonical"],
        ["test_writer_output_valid_and_equal", "test_writer_empty_file"],
        "canonical",
    ),
    "writer_trailing_newline": (
        (
            "test_writer_output_valid or test_writer_dtype "
            "and F32 or test_writer_refuses_size"
        ),
        ["test_writer_output_valid_and_equal", "test_writer_dtype[F32]"],
        ["test_writer_refuses_size_mismatch"],
        "invalid file",
    ),
    # issue 24.1: faults late in large headers, in the corpus and the properties
    "checks_first_1000_layouts": (
        "n_layout_hole_after_1500_tensors or LAYOUT-HOLE/gap or y_layout_100_tensors",
        [
            "test_must_reject[n_layout_hole_after_1500_tensors]",
            "test_single_fault_rejected[LAYOUT-HOLE/gap]",
        ],
        ["test_must_accept[y_layout_100_tensors]"],
        "accepted",
    ),
    "checks_utf8_first_64k": (
        "n_text_utf8_invalid_past_64kib or HEADER-UTF8 or y_text_utf8_metadata",
        [
            "test_must_reject[n_text_utf8_invalid_past_64kib]",
            "test_single_fault_rejected[HEADER-UTF8/invalid-bytes]",
        ],
        ["test_must_accept[y_text_utf8_metadata]"],
        "accepted",
    ),
    "keeps_128_metadata_keys": (
        (
            "y_structure_metadata_200_keys or metadata_value_integer_late "
            "or META-STRING or y_structure_metadata_100_keys"
        ),
        [
            "test_must_accept[y_structure_metadata_200_keys]",
            "test_must_reject[n_structure_metadata_value_integer_late]",
            "test_single_fault_rejected[META-STRING/non-string-value]",
        ],
        ["test_must_accept[y_structure_metadata_100_keys]"],
        "",  # wrong content, or an accepted invalid file
    ),
    # issue 24.3: what a tolerant reader ignores is still JSON, matched exactly
    "skips_checks_in_unknown_members": (
        "in-unknown-member or i_structure_unknown_field_object",
        [
            "test_single_fault_rejected[KEY-UNIQUE/in-unknown-member]",
            "test_single_fault_rejected[JSON-SURROGATE/in-unknown-member]",
        ],
        ["test_tolerated[i_structure_unknown_field_object]"],
        "accepted",
    ),
    "case_insensitive_fields": (
        "test_tolerated_variant or y_structure_fields_reordered",
        ["test_tolerated_variant[ENTRY-UNKNOWN/extra-entry-field]"],
        ["test_must_accept[y_structure_fields_reordered]"],
        "different content",
    ),
    # issue 24.2: an undeclared dtype excuses a refusal, never an acceptance
    "skips_undeclared_sizes": (
        "SIZE-MATCH or y_dtype_c64_values or y_dtype_f32_values",
        ["test_single_fault_rejected[SIZE-MATCH/shape-disagrees]"],
        ["test_must_accept[y_dtype_f32_values]"],
        "C64",
    ),
    # issue 24.4: content the explicit examples put in every run
    **{
        module: (
            (
                "test_valid_file or test_reference_written or y_structure_shape_rank_8 "
                "or y_structure_metadata_json_in_string"
            ),
            [
                "test_valid_file_loads_exactly",
                "test_reference_written_file_loads_equal",
            ],
            [
                "test_must_accept[y_structure_shape_rank_8]",
                "test_must_accept[y_structure_metadata_json_in_string]",
            ],
            "different content",
        )
        for module in (
            "normalises_line_endings",
            "normalises_metadata_keys",
            "flattens_empty_shapes",
        )
    },
    # issue 24.5: every refusal WRITE-VALID implies, for every writer
    "writer_lax": (
        "test_writer_refuses or test_writer_exact or test_writer_dtype and F32",
        [
            "test_writer_refuses_partial_byte[F4-3]",
            "test_writer_refuses_partial_byte[F6_E2M3-1]",
            "test_writer_refuses_partial_byte[F6_E3M2-2]",
            "test_writer_refuses_header_over_limit",
            "test_writer_refuses_unknown_dtype",
            "test_writer_refuses_lone_surrogate_name",
            "test_writer_refuses_overflowing_shape",
            "test_writer_exact_integers",
        ],
        [
            "test_writer_refuses_reserved_name",
            "test_writer_refuses_size_mismatch",
            "test_writer_refuses_non_string_metadata",
            "test_writer_dtype[F32]",
        ],
        "wrote",
    ),
    # issue 24.6: inputs that separate the spec's order from near misses
    **{
        module: (
            "test_writer_output",
            ["test_writer_output_canonical"],
            ["test_writer_output_valid_and_equal"],
            "not canonical",
        )
        for module in ("writer_insertion_order", "writer_utf16_order")
    },
    # issue 32.3: the classes of behaviour the previous generation left alive
    "reads_n_low_32_bits": (
        "n_prefix_n_2pow32_plus_header or y_prefix_smallest_file",
        ["test_must_reject[n_prefix_n_2pow32_plus_header]"],
        ["test_must_accept[y_prefix_smallest_file]"],
        "accepted",
    ),
    "checks_bytes_near_object": (
        "n_text_trailing_junk",
        [
            "test_must_reject[n_text_trailing_junk_after_14_spaces]",
            "test_must_reject[n_text_trailing_junk_after_4094_spaces]",
        ],
        ["test_must_reject[n_text_trailing_junk]"],
        "accepted",
    ),
    "clamps_reversed_spans": (
        "OFFSETS-ORDER or n_layout_offsets_reversed or y_layout_empty_tensors_at",
        ["test_single_fault_rejected[OFFSETS-ORDER/begin-after-end]"],
        [
            "test_must_reject[n_layout_offsets_reversed]",
            "test_must_accept[y_layout_empty_tensors_at_cursor]",
        ],
        "at the cursor",
    ),
    "forgives_zeros_to_multiple_of_8": (
        "zeros_to_multiple_of_8 or y_layout_last_byte_covered",
        [
            f"test_must_reject[n_layout_trailing_{k}_zeros_to_multiple_of_8]"
            for k in (1, 4, 7)
        ],
        ["test_must_accept[y_layout_last_byte_covered]"],
        "accepted",
    ),
    "skips_trailing_check_when_big": (
        "n_layout_trailing_after_2mib_tensor or n_layout_trailing_bogus_data",
        ["test_must_reject[n_layout_trailing_after_2mib_tensor]"],
        ["test_must_reject[n_layout_trailing_bogus_data]"],
        "accepted",
    ),
    "sizes_packed_scalar_as_empty": (
        "rank0 or y_dtype_bits_f4_count_2",
        [
            "test_must_reject[n_dtype_bits_f4_rank0_empty_range]",
            "test_must_reject[n_dtype_bits_f6_e2m3_rank0_empty_range]",
            "test_must_reject[n_dtype_bits_f6_e3m2_rank0_empty_range]",
        ],
        [
            "test_must_reject[n_dtype_bits_f4_rank0]",
            "test_must_accept[y_dtype_bits_f4_count_2]",
        ],
        "accepted",
    ),
    "keeps_eight_dims": (
        "y_structure_shape_rank or n_layout_size_match_ninth_dim",
        [
            "test_must_accept[y_structure_shape_rank_9]",
            "test_must_accept[y_structure_shape_rank_33]",
            "test_must_reject[n_layout_size_match_ninth_dim]",
        ],
        ["test_must_accept[y_structure_shape_rank_8]"],
        "",  # a rejected valid file, or an accepted invalid one
    ),
    **{
        module: (
            "test_writer_output_valid or test_writer_dtype and F32",
            ["test_writer_output_valid_and_equal"],
            ["test_writer_dtype[F32]"],
            "different content",
        )
        for module in ("writer_nfc_names", "writer_casefold_names")
    },
    # issue 30.3: a verdict looked up in the corpus the suite ships, not
    # judged: by the bytes' cheap forms, or by the layout (offsets, shapes,
    # buffer length) that the shift and reshape variants take away
    **{
        module: (
            (
                "n_layout_hole_between_tensors or n_layout_overlap_partial "
                "or y_layout_100_tensors"
            ),
            [
                "test_must_reject[n_layout_hole_between_tensors]",
                "test_must_reject[n_layout_overlap_partial]",
            ],
            ["test_must_accept[y_layout_100_tensors]"],
            "accepted a file that breaks",
        )
        for module in ("looks_up_invalid_files", "looks_up_layouts")
    },
    "looks_up_valid_files": (
        "y_layout_100_tensors or y_dtype_f32_values or n_layout_hole_between_tensors",
        [
            "test_must_accept[y_layout_100_tensors]",
            "test_must_accept[y_dtype_f32_values]",
        ],
        ["test_must_reject[n_layout_hole_between_tensors]"],
        "rejected a valid file",
    ),
    "writer_unknown_dtype_width": (
        "test_writer_refuses_unknown_dtype",
        ["test_writer_refuses_unknown_dtype_of_consistent_size[Q4_K-1]"],
        ["test_writer_refuses_unknown_dtype"],
        "wrote",
    ),
}


# A sleeping load uses no CPU, so only the wall-clock backstop ends it; its
# default (60 s) would make this one test the slowest of the whole CI run.
EXTRA_OPTIONS = {"hangs_on_empty_name": ["--wall-timeout=10"]}


@pytest.mark.parametrize("module", sorted(CASES))
def test_broken_implementation_is_caught(module: str, tmp_path: Path) -> None:
    select, must_fail, must_pass, text = CASES[module]
    run = run_suite(
        str(BROKEN / f"{module}.py"),
        "-k",
        select,
        "--case-timeout=2",
        *EXTRA_OPTIONS.get(module, []),
        tmp_path=tmp_path,
    )
    assert run.returncode == 1, run.output[-3000:]
    results = run.results
    for name in must_fail:
        assert results.get(name) == "failed", (name, results, run.output[-3000:])
        assert text in (run.test(name)["message"] or ""), (name, run.test(name))
    for name in must_pass:
        assert results.get(name) == "passed", (name, results, run.output[-3000:])


def test_at_least_twelve_broken_implementations() -> None:
    modules = {p.stem for p in BROKEN.glob("*.py") if not p.stem.startswith("_")}
    assert modules == {*CASES, "reads_n_big_endian"}  # the last: smoke gate
    assert len(modules) >= 12


def test_a_reader_that_loads_no_valid_file_stops_at_the_smoke_gate(
    tmp_path: Path,
) -> None:
    # Reading N big-endian rejects every file with N > 0: before the smoke
    # gate it "passed" nearly every n_ case.
    run = run_suite(
        str(BROKEN / "reads_n_big_endian.py"), "-k", "n_prefix", tmp_path=tmp_path
    )
    assert run.returncode == 4, run.output[-3000:]  # pytest.ExitCode.USAGE_ERROR
    assert "cannot load a minimal valid file" in run.output
    assert "HEADER-LIMIT" in run.output
    assert "passed" not in run.output
