"""Family `layout`: how the tensors tile the byte buffer."""

from __future__ import annotations

from typing import Final

from stspec_corpus._model import (
    GENERATOR,
    Case,
    Expected,
    Provenance,
    assemble,
    bug,
    build,
    entry,
    layout,
    make,
    obj,
    pattern,
    ported,
    tensor,
)
from stspec_corpus._prefix import zip_archive

_A: Final = tensor("a", "F32", [1], [1.5])
_B: Final = tensor("b", "F32", [1], [-2.0])
_AB: Final = _A.data + _B.data


def _two(a: tuple[int, int], b: tuple[int, int], buffer: bytes) -> bytes:
    """Two F32[1] tensors a and b at the given offsets."""
    return assemble(
        obj([("a", entry("F32", [1], *a)), ("b", entry("F32", [1], *b))]), buffer
    )


def _invalid() -> list[Case]:
    rows: list[tuple[str, str, str, bytes, list[str], Provenance]] = [
        (
            "hole_between_tensors",
            "LAYOUT-HOLE",
            "a at [0,4], b at [8,12]: bytes 4..8 belong to no tensor",
            _two((0, 4), (8, 12), _A.data + bytes(4) + _B.data),
            [],
            GENERATOR,
        ),
        (
            "hole_first_not_at_zero",
            "LAYOUT-HOLE",
            "the only tensor starts at 4: bytes 0..4 belong to no tensor",
            assemble(obj([("a", entry("F32", [1], 4, 8))]), bytes(4) + _A.data),
            [],
            GENERATOR,
        ),
        (
            "hole_alignment_padding",
            "LAYOUT-HOLE",
            "U8[3] at [0,3], then F32 at [4,8] after one alignment byte",
            assemble(
                obj([("u", entry("U8", [3], 0, 3)), ("a", entry("F32", [1], 4, 8))]),
                b"\x01\x02\x03\x00" + _A.data,
            ),
            [],
            bug("huggingface/safetensors#254"),
        ),
        (
            "hole_empty_tensor_in_gap",
            "LAYOUT-HOLE",
            "a at [0,4], an empty tensor at [6,6], b at [8,12]: gaps at 4..6 and 6..8",
            assemble(
                obj(
                    [
                        ("a", entry("F32", [1], 0, 4)),
                        ("e", entry("F32", [0], 6, 6)),
                        ("b", entry("F32", [1], 8, 12)),
                    ]
                ),
                _A.data + bytes(4) + _B.data,
            ),
            [],
            GENERATOR,
        ),
        (
            "overlap_partial",
            "LAYOUT-OVERLAP",
            "a at [0,8], b at [4,12]: bytes 4..8 are shared",
            assemble(
                obj([("a", entry("F32", [2], 0, 8)), ("b", entry("F32", [2], 4, 12))]),
                pattern(12),
            ),
            ["security"],
            GENERATOR,
        ),
        (
            "overlap_full_identical_ranges",
            "LAYOUT-OVERLAP",
            "a and b both at [0,4] (tied weights sharing one range)",
            _two((0, 4), (0, 4), _A.data),
            ["security"],
            bug("huggingface/safetensors#586"),
        ),
        (
            "overlap_contained",
            "LAYOUT-OVERLAP",
            "b at [2,6] lies inside a at [0,8]",
            assemble(
                obj([("a", entry("F32", [2], 0, 8)), ("b", entry("F32", [1], 2, 6))]),
                pattern(8),
            ),
            ["security"],
            GENERATOR,
        ),
        (
            "overlap_empty_inside",
            "LAYOUT-OVERLAP",
            "an empty tensor at [2,2], inside a at [0,4]",
            assemble(
                obj([("a", entry("F32", [1], 0, 4)), ("e", entry("F32", [0], 2, 2))]),
                _A.data,
            ),
            [],
            GENERATOR,
        ),
        (
            "overlap_ten_at_zero",
            "LAYOUT-OVERLAP",
            "ten U8[16] tensors all at [0,16] (the reference's test_json_attack)",
            assemble(
                obj([(f"t{i}", entry("U8", [16], 0, 16)) for i in range(10)]),
                pattern(16),
            ),
            ["security"],
            ported("huggingface/safetensors test_json_attack"),
        ),
        (
            "offsets_reversed",
            "OFFSETS-ORDER",
            "b at [8,4], the exact swap of the correct [4,8]",
            _two((0, 4), (8, 4), _AB),
            [],
            GENERATOR,
        ),
        (
            "offsets_reversed_single",
            "OFFSETS-ORDER",
            "the only tensor at [4,0] instead of [0,4]",
            assemble(obj([("a", entry("F32", [1], 4, 0))]), _A.data),
            [],
            GENERATOR,
        ),
        (
            "offsets_reversed_span_not_size",
            "OFFSETS-ORDER",
            "F32[2] (8 bytes) at [10,0], 10-byte buffer: a reversed pair has no size",
            assemble(obj([("a", entry("F32", [2], 10, 0))]), pattern(10)),
            [],
            GENERATOR,
        ),
        (
            "offsets_reversed_begin_past_buffer",
            "OFFSETS-ORDER",
            "b at [12,4] in an 8-byte buffer: begin past the buffer, end inside it",
            _two((0, 4), (12, 4), _AB),
            ["security"],
            GENERATOR,
        ),
        (
            "bounds_buffer_short",
            "LAYOUT-BOUNDS",
            "b at [4,8] but the buffer holds 7 bytes",
            _two((0, 4), (4, 8), _AB[:7]),
            ["security"],
            bug("ml-explore/mlx#3364"),
        ),
        (
            "bounds_empty_buffer",
            "LAYOUT-BOUNDS",
            "a at [0,4] but the file ends with the header",
            assemble(obj([("a", entry("F32", [1], 0, 4))])),
            ["security"],
            GENERATOR,
        ),
        (
            "bounds_empty_tensor_past_end",
            "LAYOUT-BOUNDS",
            "a at [0,4] fills the buffer; an empty tensor sits at [8,8], past its end",
            assemble(
                obj([("a", entry("F32", [1], 0, 4)), ("e", entry("F32", [0], 8, 8))]),
                _A.data,
            ),
            [],
            GENERATOR,
        ),
        (
            "bounds_end_2pow53_plus_1",
            "LAYOUT-BOUNDS",
            "a U8[2^53+1] at [0,2^53+1] in a 4-byte buffer (2^53+1 is no double)",
            assemble(obj([("a", entry("U8", [2**53 + 1], 0, 2**53 + 1))]), bytes(4)),
            ["security"],
            GENERATOR,
        ),
        (
            "bounds_end_2pow61",
            "LAYOUT-BOUNDS",
            "a U8[2^61-1] at [0,2^61-1] in a 4-byte buffer",
            assemble(obj([("a", entry("U8", [2**61 - 1], 0, 2**61 - 1))]), bytes(4)),
            ["security"],
            GENERATOR,
        ),
        (
            "trailing_one_byte",
            "LAYOUT-TRAILING",
            "one byte after the last tensor",
            assemble(obj([("a", entry("F32", [1], 0, 4))]), _A.data + b"\x00"),
            [],
            GENERATOR,
        ),
        (
            "trailing_zip_polyglot",
            "LAYOUT-TRAILING",
            "a ZIP archive appended after the last tensor (a polyglot file)",
            assemble(
                obj([("a", entry("F32", [1], 0, 4))]),
                _A.data + zip_archive(b"x.txt", b"polyglot"),
            ),
            ["security"],
            ported("huggingface/safetensors test_metadata_incomplete_buffer"),
        ),
        (
            "trailing_bogus_data",
            "LAYOUT-TRAILING",
            "the text extra_bogus_data_for_polyglot_file after the last tensor",
            assemble(
                obj([("a", entry("F32", [1], 0, 4))]),
                _A.data + b"extra_bogus_data_for_polyglot_file",
            ),
            ["security"],
            ported("huggingface/safetensors test_metadata_incomplete_buffer"),
        ),
        (
            "trailing_no_tensors",
            "LAYOUT-TRAILING",
            "the header is {} but 4 data bytes follow",
            assemble("{}", _A.data),
            ["security"],
            GENERATOR,
        ),
        (
            "trailing_empty_tensor_only",
            "LAYOUT-TRAILING",
            "one empty tensor at [0,0] and 4 data bytes nobody owns",
            assemble(obj([("e", entry("F32", [0], 0, 0))]), _A.data),
            [],
            GENERATOR,
        ),
        (
            "size_match_short",
            "SIZE-MATCH",
            "F32[2] needs 8 bytes, its range [0,4] holds 4",
            assemble(obj([("a", entry("F32", [2], 0, 4))]), _A.data),
            [],
            GENERATOR,
        ),
        (
            "size_match_long",
            "SIZE-MATCH",
            "F32[1] needs 4 bytes, its range [0,8] holds 8",
            assemble(obj([("a", entry("F32", [1], 0, 8))]), _AB),
            [],
            GENERATOR,
        ),
        (
            "size_match_rank0_no_bytes",
            "SIZE-MATCH",
            "F32 rank 0 is one element (4 bytes), its range is [0,0]",
            assemble(obj([("a", entry("F32", [], 0, 0))])),
            [],
            GENERATOR,
        ),
        (
            "size_match_empty_with_bytes",
            "SIZE-MATCH",
            "F32[0] is empty, its range [0,4] holds 4 bytes",
            assemble(obj([("a", entry("F32", [0], 0, 4))]), _A.data),
            [],
            GENERATOR,
        ),
        (
            "size_match_bf16_as_f32",
            "SIZE-MATCH",
            "BF16[2] (4 bytes) given the 8 bytes of F32[2]",
            assemble(obj([("a", entry("BF16", [2], 0, 8))]), _AB),
            [],
            GENERATOR,
        ),
        (
            "size_match_shape_2pow53_plus_1",
            "SIZE-MATCH",
            "U8[2^53+1] with the range [0,4]: the size is no double",
            assemble(obj([("a", entry("U8", [2**53 + 1], 0, 4))]), bytes(4)),
            ["security"],
            GENERATOR,
        ),
    ]
    return [
        make(f"n_layout_{fault}", [rule], what, data=data, tags=tags, provenance=prov)
        for fault, rule, what, data, tags, prov in rows
    ]


def _valid() -> list[Case]:
    a = _A
    b = tensor("b", "U8", [3], [1, 2, 3])
    c = tensor("c", "I16", [2], [-1, 1])
    reversed_order = build([a, b, c], order=["a", "b", "c"], json_order=["c", "b", "a"])
    empty_mid = build(
        [a, tensor("e", "F32", [0], []), tensor("f", "U8", [2, 0], []), b],
        order=["a", "e", "f", "b"],
    )
    empty_end = build([a, tensor("z", "F32", [0], [])], order=["a", "z"])
    empties = [tensor(f"e{i:04d}", "F32", [0], []) for i in range(1000)]
    many_empty = build([*empties, a], order=[*(t.name for t in empties), "a"])
    scalars = build(
        [
            tensor("s_f64", "F64", [], [-0.5]),
            tensor("s_u8", "U8", [], [200]),
            tensor("s_bool", "BOOL", [], [True]),
        ]
    )
    unaligned = build(
        [tensor("odd", "U8", [3], [7, 8, 9]), tensor("w", "F64", [1], [2.5])],
        order=["odd", "w"],
    )
    hundred = [
        tensor(f"layer{i:03d}", "F32", [2], [float(i), -float(i)]) for i in range(100)
    ]
    contiguous = build(hundred)
    rows: list[tuple[str, list[str], str, bytes, Expected, Provenance]] = [
        (
            "json_order_differs",
            ["LAYOUT-HOLE", "LAYOUT-OVERLAP"],
            "entries listed c, b, a; their ranges run a, b, c",
            reversed_order.data,
            reversed_order.expected,
            GENERATOR,
        ),
        (
            "empty_tensors_at_cursor",
            ["LAYOUT-HOLE", "LAYOUT-OVERLAP", "OFFSETS-ORDER"],
            "two empty tensors at [4,4], between a at [0,4] and b at [4,7]",
            empty_mid.data,
            empty_mid.expected,
            bug("huggingface/safetensors#221"),
        ),
        (
            "empty_tensor_at_end",
            ["LAYOUT-BOUNDS", "LAYOUT-TRAILING", "OFFSETS-ORDER"],
            "an empty tensor at [4,4], exactly the end of the buffer",
            empty_end.data,
            empty_end.expected,
            GENERATOR,
        ),
        (
            "1000_empty_tensors_one_offset",
            ["LAYOUT-OVERLAP"],
            "1000 empty tensors at [0,0], then a at [0,4]",
            many_empty.data,
            many_empty.expected,
            GENERATOR,
        ),
        (
            "rank0_scalars",
            ["SIZE-MATCH"],
            "three rank-0 tensors (shape []): F64, U8 and BOOL scalars",
            scalars.data,
            scalars.expected,
            GENERATOR,
        ),
        (
            "unaligned_tensor",
            ["LAYOUT-HOLE"],
            "U8[3] then F64 at [3,11]: no alignment padding between tensors",
            unaligned.data,
            unaligned.expected,
            bug("huggingface/safetensors#607"),
        ),
        (
            "100_tensors",
            ["LAYOUT-HOLE", "LAYOUT-TRAILING"],
            "100 F32[2] tensors back to back",
            contiguous.data,
            contiguous.expected,
            GENERATOR,
        ),
    ]
    out = [
        make(f"y_layout_{fault}", rules, what, data=data, expected=exp, provenance=prov)
        for fault, rules, what, data, exp, prov in rows
    ]
    lay = layout([a, b])
    out.append(
        make(
            "y_layout_last_byte_covered",
            ["LAYOUT-TRAILING", "LAYOUT-BOUNDS"],
            "the last tensor ends exactly at the buffer's last byte",
            data=assemble(obj(lay.members), lay.buffer),
            expected=Expected(None, lay.tensors),
        )
    )
    return out


def cases() -> list[Case]:
    """Return the family's cases."""
    return [*_invalid(), *_valid()]
