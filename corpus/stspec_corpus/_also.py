"""The further rules that n_ files break when precedence is ignored.

An ``n_`` case breaks exactly one MUST rule that SPEC §12.1 lets apply; read
one statement at a time, some of its files break more.  The manifest lists
those in ``also_breaks`` so that nobody has to take "one rule per file" on
trust.  tests/corpus recomputes every list from the files with an evaluator
of its own, so a case added here or in a family module cannot be wrong or
missing.
"""

from __future__ import annotations

import dataclasses
from typing import TYPE_CHECKING, Final

if TYPE_CHECKING:
    from collections.abc import Iterable

    from stspec_corpus._model import Case

_PREFIX_PAST_LIMIT: Final = (
    "gguf_magic",
    "n_2pow32",
    "n_2pow63",
    "n_big_endian",
    "n_limit_plus_1_tiny_file",
    "n_u32",
    "n_u64_max",
    "n_wraps_to_zero",
    "pickle_stream",
    "zip_archive",
)
_OFFSETS_NOT_A_PAIR: Final = (
    "bool_element",
    "empty",
    "nested",
    "null",
    "null_element",
    "object",
    "one_element",
    "string",
    "strings",
    "three_elements",
)

ALSO_BREAKS: Final[dict[str, tuple[str, ...]]] = {
    # group 2 before group 3: N past the limit is also past the file's end
    **{f"n_prefix_{name}": ("HEADER-BOUNDS",) for name in _PREFIX_PAST_LIMIT},
    # group 4 before group 5: the ill-formed byte is outside the object
    "n_text_utf8_in_padding": ("HEADER-TRAILING",),
    "n_text_fuzz_utf8_after_nul": ("HEADER-TRAILING",),
    "n_text_utf16le_header": ("HEADER-OBJECT",),
    # within group 5: JSON-DEPTH ends the parse, so no value rule applies
    "n_json_depth_128_in_shape": ("SHAPE-ARRAY",),
    "n_json_depth_objects_in_metadata": ("META-STRING",),
    # within group 5: SIZE-MATCH applies only when begin <= end, and
    # LAYOUT-BOUNDS reads the end alone; group 5 before group 6
    **{
        f"n_layout_offsets_{name}": ("LAYOUT-HOLE", "LAYOUT-TRAILING", "SIZE-MATCH")
        for name in (
            "reversed",
            "reversed_single",
            "reversed_span_not_size",
            "reversed_begin_past_buffer",
        )
    },
    # group 5 before group 6: an entry without a usable pair covers no bytes
    **{
        f"n_structure_offsets_{name}": ("LAYOUT-TRAILING",)
        for name in _OFFSETS_NOT_A_PAIR
    },
    "n_structure_entry_positional_array": ("LAYOUT-TRAILING",),
    "n_json_number_2pow64_offset": ("LAYOUT-TRAILING",),
    "n_json_number_exponent_offset": ("LAYOUT-TRAILING",),
    "n_json_number_exponent_zero_begin": ("LAYOUT-TRAILING",),
    "n_json_number_float_offset": ("LAYOUT-TRAILING",),
    # group 5 before group 6: of two equal names the first's bytes are unused
    "n_structure_duplicate_tensor_disjoint_ranges": ("LAYOUT-HOLE",),
    # group 5 before group 6: an empty tensor past the end leaves a gap
    "n_layout_bounds_empty_tensor_past_end": ("LAYOUT-HOLE",),
}


def with_also_breaks(cases: Iterable[Case]) -> list[Case]:
    """Return ``cases`` with the table's further rules filled in."""
    out = []
    for case in cases:
        further = ALSO_BREAKS.get(case.id)
        if further is not None:
            if case.also_breaks:
                raise ValueError(f"{case.id}: also_breaks given twice")
            case = dataclasses.replace(case, also_breaks=tuple(sorted(further)))  # noqa: PLW2901
        out.append(case)
    return out
