"""Cases too large to commit (recipes), and examples from the format's docs."""

from __future__ import annotations

import hashlib
from collections.abc import Iterator, Mapping
from typing import Final

from stspec.rules import MAX_HEADER_SIZE
from stspec_corpus._model import (
    Case,
    Expected,
    ExpectedTensor,
    Recipe,
    T,
    assemble,
    bug,
    build,
    entry,
    example,
    make,
    obj,
    tensor,
)
from stspec_corpus._recipes import (
    DENSE_DIGITS,
    HASH_LIMIT,
    Params,
    dense_names,
    metadata_keys,
    metadata_value,
    run,
    tensor_names,
)
from stspec_corpus._values import f16

# sha256 of 2^32 zero bytes (checked by tests/corpus: hashing it takes seconds).
SHA256_ZEROS_2POW32: Final = (
    "8479e43911dc45e89f934fe48d01297e16f51d17aa561d4d1c216b1ae0fcddca"
)


# The densest valid header: as many minimal tensor entries as N = 100,000,000
# holds (55 bytes each with its comma), padded with 0x20 to the limit.
DENSE_COUNT: Final = 1_818_000
# tensors_sha256 of its tensor list (tests/corpus recomputes it with
# dense_digest: listing 1.75 M tensors whenever the corpus is built costs seconds).
DENSE_TENSORS_SHA256: Final = (
    "1d432cfadd89f4b1c03c5dbf0a782031eec717188d8529f17f38129d8fa8b1e7"
)
_EMPTY_SHA256: Final = hashlib.sha256(b"").hexdigest()


class DenseTensors(Mapping[str, ExpectedTensor]):
    """The expected tensors of the dense-header case, made on demand."""

    def __init__(self, count: int) -> None:
        self._count = count

    def __getitem__(self, name: str) -> ExpectedTensor:
        if len(name) != 4:
            raise KeyError(name)
        index = 0
        for char in name:
            if char not in DENSE_DIGITS:
                raise KeyError(name)
            index = index * len(DENSE_DIGITS) + DENSE_DIGITS.index(char)
        if index >= self._count:
            raise KeyError(name)
        return ExpectedTensor("U8", (0,), 0, _EMPTY_SHA256)

    def __iter__(self) -> Iterator[str]:
        return dense_names(self._count)

    def __len__(self) -> int:
        return self._count


def dense_digest(count: int) -> str:
    """Return tensors_sha256 of the dense-header case, line by line.

    The names have a fixed width and come in byte order, so their hex forms,
    and the lines, come out in the sorted order the digest is defined by.
    """
    digest = hashlib.sha256()
    for name in dense_names(count):
        digest.update(f"{name.encode().hex()} U8 0 {_EMPTY_SHA256}\n".encode())
    return digest.hexdigest()


def aligned(header: str) -> str:
    """Return the header text with the 0x20 padding that makes 8 + N a multiple of 8."""
    return header + " " * (-(8 + len(header.encode())) % 8)


def recipe(name: str, params: Params) -> Recipe:
    """Describe a recipe case: run it once for its size (and sha256 if cheap)."""
    output = run(name, params)
    sha = output.sha256() if output.size <= HASH_LIMIT else None
    return Recipe(name, dict(params), output.size, sha)


# Faults late in large headers: past 1,000 entries, 128 metadata keys and the
# first 64 KiB, where a reader's checks might stop.
LATE_KEYS: Final = 200
LATE_AT: Final = 190
LATE_LENGTH: Final = 500
_TAIL: Final = tensor("tail", "U8", [8], [1, 2, 3, 4, 5, 6, 7, 8])
_BIG: Final = 2**32
_DOC_HEADER: Final = (
    '{\n  "__metadata__": {\n    "format": "pt",\n    "author": "huggingface",\n'
    '    "description": "Example model weights"\n  },\n'
    '  "model.embed.weight": {\n    "dtype": "F16",\n    "shape": [50257, 768],\n'
    '    "data_offsets": [0, 77194752]\n  },\n'
    '  "model.layer.0.attn.weight": {\n    "dtype": "F16",\n'
    '    "shape": [768, 768],\n'
    '    "data_offsets": [77194752, 78373888]\n  },\n'
    '  "model.layer.0.attn.bias": {\n    "dtype": "F16",\n    "shape": [768],\n'
    '    "data_offsets": [78373888, 78375424]\n  }\n}'
)


def plans() -> dict[str, tuple[str, Params]]:
    """Return each recipe case's recipe name and parameters, by case id.

    Nothing runs here: materialising one case runs its recipe alone, where
    building the cases runs every recipe for its size and sha256 (seconds).
    """
    header_4g = obj(
        [
            ("zeros", entry("U8", [_BIG], 0, _BIG)),
            ("tail", entry("U8", [8], _BIG, _BIG + 8)),
        ]
    )
    late = {"count": LATE_KEYS, "length": LATE_LENGTH, "at": LATE_AT}
    return {
        "y_prefix_header_at_limit": (
            "padded-header",
            {"header": "{}", "length": MAX_HEADER_SIZE},
        ),
        "n_prefix_header_over_limit": (
            "padded-header",
            {"header": "{}", "length": MAX_HEADER_SIZE + 1},
        ),
        "y_layout_offsets_beyond_4gib": (
            "sparse",
            {
                "header": aligned(header_4g),
                "buffer_length": _BIG + 8,
                "tail": _TAIL.data.hex(),
            },
        ),
        "y_layout_dense_header_at_limit": (
            "dense-header",
            {"count": DENSE_COUNT, "length": MAX_HEADER_SIZE},
        ),
        "y_layout_50000_tensors": ("many-tensors", {"count": 50_000}),
        "n_layout_hole_after_1500_tensors": (
            "many-tensors",
            {"count": 2_000, "hole_at": 1_500},
        ),
        "y_structure_metadata_200_keys": ("many-metadata", {**late, "fault": "none"}),
        "n_structure_metadata_value_integer_late": (
            "many-metadata",
            {**late, "fault": "integer"},
        ),
        "n_structure_duplicate_metadata_key_late": (
            "many-metadata",
            {**late, "fault": "duplicate"},
        ),
        "n_text_utf8_invalid_past_64kib": (
            "many-metadata",
            {**late, "fault": "bad-utf8"},
        ),
        "n_layout_100000_overlapping_tensors": (
            "many-tensors",
            {"count": 100_000, "overlap": True},
        ),
        "n_example_format_notes_size_mismatch": (
            "sparse",
            {"header": aligned(_DOC_HEADER), "buffer_length": 78_375_424, "tail": ""},
        ),
    }


def _recipes() -> list[Case]:
    plan = plans()
    big = _BIG
    expected_4g = Expected(
        None,
        {
            "zeros": ExpectedTensor("U8", (big,), big, SHA256_ZEROS_2POW32),
            "tail": _TAIL.expected(),
        },
    )
    count = 50_000
    names = tensor_names(count)
    many = Expected(
        None,
        {
            name: T(name, "U8", (1,), bytes([i % 256]), (i % 256,)).expected()
            for i, name in enumerate(names)
        },
    )
    return [
        make(
            "y_prefix_header_at_limit",
            ["HEADER-LIMIT"],
            "N = 100,000,000 exactly (the limit is allowed): {} and 0x20 padding",
            recipe=recipe(*plan["y_prefix_header_at_limit"]),
            expected=Expected(None, {}),
            tags=["security"],
        ),
        make(
            "n_prefix_header_over_limit",
            ["HEADER-LIMIT"],
            "N = 100,000,001 with all header bytes present ({} and 0x20 padding)",
            recipe=recipe(*plan["n_prefix_header_over_limit"]),
            tags=["security"],
        ),
        make(
            "y_layout_offsets_beyond_4gib",
            ["LAYOUT-BOUNDS", "NUM-RANGE"],
            "a 2^32-byte zero tensor, then U8[8] 1..8 at [2^32,2^32+8] (sparse file)",
            recipe=recipe(*plan["y_layout_offsets_beyond_4gib"]),
            expected=expected_4g,
            tags=["security"],
        ),
        make(
            "y_layout_dense_header_at_limit",
            ["HEADER-LIMIT", "LAYOUT-OVERLAP"],
            "densest valid header: 1,818,000 empty U8[0] at [0,0], N = 10^8",
            # not run here: building 100 MB on every corpus build costs seconds
            recipe=Recipe(*plan["y_layout_dense_header_at_limit"], 8 + MAX_HEADER_SIZE),
            expected=Expected(
                None,
                DenseTensors(DENSE_COUNT),
                (DENSE_COUNT, DENSE_TENSORS_SHA256),
            ),
            tags=["security"],
            dtypes=["U8"],
        ),
        make(
            "y_layout_50000_tensors",
            ["LAYOUT-HOLE", "LAYOUT-OVERLAP"],
            "50,000 U8[1] tensors t00000..t49999, tensor i holding i % 256",
            recipe=recipe(*plan["y_layout_50000_tensors"]),
            expected=many,
            dtypes=["U8"],
        ),
        *_late_faults(plan),
        make(
            "n_layout_100000_overlapping_tensors",
            ["LAYOUT-OVERLAP"],
            "100,000 U8[1] tensors that all claim [0,1] of a 1-byte buffer",
            recipe=recipe(*plan["n_layout_100000_overlapping_tensors"]),
            tags=["security"],
            dtypes=["U8"],
            provenance=bug(
                "huggingface/safetensors attacks/safetensors_abuse_attempt_3.py"
            ),
        ),
    ]


def _late_faults(plan: Mapping[str, tuple[str, Params]]) -> list[Case]:
    keys = metadata_keys(LATE_KEYS)
    values = {k: metadata_value(i, LATE_LENGTH) for i, k in enumerate(keys)}
    late = f"key {LATE_AT} of {LATE_KEYS} (values of {LATE_LENGTH} bytes)"
    return [
        make(
            "n_layout_hole_after_1500_tensors",
            ["LAYOUT-HOLE"],
            "2,000 U8[1] tensors with one unused byte before tensor 1,500",
            recipe=recipe(*plan["n_layout_hole_after_1500_tensors"]),
            dtypes=["U8"],
        ),
        make(
            "y_structure_metadata_200_keys",
            ["META-STRING"],
            f"{LATE_KEYS} metadata keys, no tensors: a reader keeping 128 loses some",
            recipe=recipe(*plan["y_structure_metadata_200_keys"]),
            expected=Expected(values, {}),
        ),
        make(
            "n_structure_metadata_value_integer_late",
            ["META-STRING"],
            f"the metadata value of {late} is the number 1",
            recipe=recipe(*plan["n_structure_metadata_value_integer_late"]),
        ),
        make(
            "n_structure_duplicate_metadata_key_late",
            ["KEY-UNIQUE"],
            f"{late} repeats the name of key {LATE_AT - 10}",
            recipe=recipe(*plan["n_structure_duplicate_metadata_key_late"]),
        ),
        make(
            "n_text_utf8_invalid_past_64kib",
            ["HEADER-UTF8"],
            f"the byte 0xFF starts the value of {late}, past the first 64 KiB",
            recipe=recipe(*plan["n_text_utf8_invalid_past_64kib"]),
        ),
    ]


_DOC: Final = "safetensors format notes (seed), Header JSON Example"
_README: Final = "huggingface/safetensors README, Format"


def _examples() -> list[Case]:
    meta = {
        "format": "pt",
        "author": "huggingface",
        "description": "Example model weights",
    }
    first = tensor(
        "TENSOR_NAME", "F16", [1, 16, 256], [f16((i % 2048) / 32) for i in range(4096)]
    )
    second = tensor("NEXT_TENSOR_NAME", "F16", [2], [0.5, -1.0])
    readme = (
        '{"TENSOR_NAME": {"dtype": "F16", "shape": [1, 16, 256], '
        '"data_offsets": [0, 8192]}, '
        '"NEXT_TENSOR_NAME": {"dtype": "F16", "shape": [2], '
        '"data_offsets": [8192, 8196]}}'
    )
    worked = build([tensor("a", "F16", [2], [1.0, -2.0])], {"k": "v"})
    f4 = build([tensor("a", "F4", [4], [1.0, -0.5, 6.0, 0.0])])
    f6 = build([tensor("a", "F6_E3M2", [4], [1.0, -0.0625, 28.0, -3.0])])
    return [
        make(
            "y_example_spec_worked_example",
            ["HEADER-PADDING", "META-STRING"],
            'the spec\'s worked example: F16 a = [1.0, -2.0], metadata {"k": "v"}',
            data=worked.data,
            expected=worked.expected,
            provenance=example("spec/SPEC.md section 2.1"),
        ),
        make(
            "y_example_spec_f4_packing",
            ["SIZE-BITS"],
            "the spec's F4 packing example: [1.0, -0.5, 6.0, 0.0] stored as 92 07",
            data=f4.data,
            expected=f4.expected,
            provenance=example("spec/SPEC.md section 6.2"),
        ),
        make(
            "y_example_spec_f6_packing",
            ["SIZE-BITS"],
            "four F6_E3M2 codes packed into 3 bytes by the formula of the spec's 6.2",
            data=f6.data,
            expected=f6.expected,
            provenance=example("spec/SPEC.md section 6.2"),
        ),
        make(
            "n_example_format_notes_size_mismatch",
            ["SIZE-MATCH"],
            "the format notes' example: attn.weight F16[768,768] spans 1,179,136 "
            "bytes, not 1,179,648",
            recipe=recipe(*plans()["n_example_format_notes_size_mismatch"]),
            provenance=example(_DOC),
            dtypes=["F16"],
        ),
        make(
            "y_example_readme_header",
            ["JSON-SYNTAX", "HEADER-PADDING"],
            "the README's header form with its spacing: F16[1,16,256] TENSOR_NAME "
            "and NEXT_TENSOR_NAME",
            data=assemble(readme, first.data + second.data),
            expected=Expected(None, {t.name: t.expected() for t in (first, second)}),
            provenance=example(_README),
        ),
        make(
            "y_example_writer_empty",
            ["HEADER-PADDING", "LAYOUT-TRAILING"],
            "what the reference writer emits for no tensors: N = 8, {} and 6 spaces",
            data=build([]).data,
            expected=Expected(None, {}),
            provenance=example("huggingface/safetensors tensor.rs test_empty"),
        ),
        make(
            "y_example_readme_metadata",
            ["META-STRING"],
            "a string-to-string __metadata__ map beside a tensor (the notes' keys)",
            data=build([second], meta).data,
            expected=Expected(meta, {second.name: second.expected()}),
            provenance=example(_DOC),
        ),
    ]


def cases() -> list[Case]:
    """Return the recipe and example cases."""
    return [*_recipes(), *_examples()]


def sha256_of_zeros(size: int) -> str:
    """Hash ``size`` zero bytes in chunks (the tests check the constant above)."""
    digest = hashlib.sha256()
    chunk = bytes(1 << 24)
    while size > 0:
        digest.update(chunk[: min(size, len(chunk))])
        size -= len(chunk)
    return digest.hexdigest()
