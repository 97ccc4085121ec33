"""The builder layer: cases, expected content, and helpers that assemble files.

Headers are written as JSON *text* (most cases need JSON that no serialiser
would produce).  `entry` and `layout` cover the common valid form; every other
header is spelt out by hand in the family modules.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Final, Literal

from stspec.dtypes import BITS, DTYPES, RANK, bit_count
from stspec.rules import RULES_BY_ID
from stspec_corpus._values import JsonValue, Value, encode, to_json

Verdict = Literal["valid", "invalid", "tolerated"]
ProvenanceKind = Literal["generator", "spec-example", "fuzz", "bug-report"]
JsonScalar = str | int | bool | None
Params = Mapping[str, object]

# x_ cases are invalid too: they break two or more MUST rules of their first
# precedence group (SPEC 12.1), so a reader may name any of them.
VERDICTS: Final[dict[str, Verdict]] = {
    "y": "valid",
    "n": "invalid",
    "i": "tolerated",
    "x": "invalid",
}
ID_PATTERN: Final = re.compile(r"^[ynix]_[a-z0-9]+(_[a-z0-9]+)*$")
FAMILIES: Final = (
    "prefix",
    "text",
    "json",
    "structure",
    "dtype",
    "layout",
    "arith",
    "example",
)
VALUES_LIMIT: Final = 16  # tensors of at most this many elements list their values
_DTYPE_TOKEN: Final = re.compile(r'"dtype"\s*:\s*"([A-Z0-9_]+)"')


@dataclass(frozen=True, slots=True)
class Provenance:
    """Where a case comes from; bug reports and examples name their source."""

    kind: ProvenanceKind = "generator"
    ref: str | None = None

    def as_json(self) -> dict[str, str]:
        """Return the manifest form."""
        out: dict[str, str] = {"kind": self.kind}
        if self.ref is not None:
            out["ref"] = self.ref
        return out


GENERATOR: Final = Provenance()


def bug(ref: str) -> Provenance:
    """Provenance of a case that reproduces a reported issue."""
    return Provenance("bug-report", ref)


def ported(ref: str) -> Provenance:
    """Provenance of a generated case that reproduces another suite's test."""
    return Provenance("generator", ref)


def example(ref: str) -> Provenance:
    """Provenance of a case taken from the format's documentation."""
    return Provenance("spec-example", ref)


@dataclass(frozen=True, slots=True)
class ExpectedTensor:
    """What an accepting reader must return for one tensor."""

    dtype: str
    shape: tuple[int, ...]
    nbytes: int
    sha256: str
    values: tuple[JsonValue, ...] | None = None

    def as_json(self) -> dict[str, object]:
        """Return the manifest form."""
        out: dict[str, object] = {
            "dtype": self.dtype,
            # decimal strings: dimensions go up to 2^64-1, past what doubles hold
            "shape": [str(dim) for dim in self.shape],
            "nbytes": self.nbytes,
            "sha256": self.sha256,
        }
        if self.values is not None:
            out["values"] = list(self.values)
        return out


@dataclass(frozen=True, slots=True)
class Expected:
    """The decoded content of an accepted file: metadata and tensors."""

    metadata: Mapping[str, str] | None
    tensors: Mapping[str, ExpectedTensor]
    # (tensor_count, tensors_sha256) given for a tensor list too large to
    # list or hash whenever the corpus is built; tests/corpus recomputes it.
    digest: tuple[int, str] | None = None

    def tensors_json(self) -> dict[str, dict[str, object]]:
        """Return the manifest form of the tensors."""
        return {name: t.as_json() for name, t in self.tensors.items()}


@dataclass(frozen=True, slots=True)
class Recipe:
    """A case too large to commit, materialised on demand by `_recipes`."""

    name: str
    params: Params
    size: int
    sha256: str | None = None


@dataclass(frozen=True, slots=True)
class Case:
    """One corpus case: an id, the rules it exercises, and its bytes or recipe."""

    id: str
    rules: tuple[str, ...]
    description: str
    tags: tuple[str, ...]
    data: bytes | None = None
    recipe: Recipe | None = None
    expected: Expected | None = None
    provenance: Provenance = GENERATOR
    # MUST rules the file breaks besides ``rules`` when every rule statement
    # is read on its own; SPEC 12.1 says they do not apply (a later group, or a
    # condition of group 5), so a reader naming one misnames the file.
    also_breaks: tuple[str, ...] = ()

    @property
    def multi_fault(self) -> bool:
        """Whether the case is judged on rejection alone (an ``x_`` case)."""
        return self.id[0] == "x"

    @property
    def verdict(self) -> Verdict:
        """The verdict, spelt by the id's prefix."""
        return VERDICTS[self.id[0]]

    @property
    def family(self) -> str:
        """The family, the id's second component."""
        return self.id.split("_")[1]

    @property
    def file(self) -> str | None:
        """The committed file's path relative to corpus/, or None for a recipe."""
        return None if self.data is None else f"files/{self.id}.safetensors"

    @property
    def size(self) -> int:
        """The byte length of the file the case describes."""
        return len(self.data) if self.data is not None else _recipe(self).size

    @property
    def sha256(self) -> str | None:
        """The sha256 of the whole file (None for a recipe too costly to hash)."""
        if self.data is not None:
            return hashlib.sha256(self.data).hexdigest()
        return _recipe(self).sha256


def _recipe(case: Case) -> Recipe:
    if case.recipe is None:
        raise ValueError(f"{case.id} has neither bytes nor a recipe")
    return case.recipe


def make(  # noqa: PLR0913 - one keyword per manifest field
    case_id: str,
    rules: Sequence[str],
    description: str,
    *,
    data: bytes | None = None,
    recipe: Recipe | None = None,
    expected: Expected | None = None,
    tags: Sequence[str] = (),
    provenance: Provenance = GENERATOR,
    dtypes: Sequence[str] = (),
    also_breaks: Sequence[str] = (),
) -> Case:
    """Build a case, adding the family and ``dtype:X`` tags.

    The dtypes are those of the expected tensors, those named in the header
    text, and any passed in ``dtypes`` (for recipes).
    """
    if not ID_PATTERN.match(case_id):
        raise ValueError(f"bad case id {case_id!r}")
    for rule in (*rules, *also_breaks):
        if RULES_BY_ID[rule].scope != "reader":
            raise ValueError(f"{case_id}: {rule} is not a reader rule")
    _check_fault_count(case_id, rules, also_breaks)
    found = set(dtypes)
    if expected is not None and expected.digest is None:
        found.update(t.dtype for t in expected.tensors.values())
    if data is not None:
        found.update(_DTYPE_TOKEN.findall(data[:1_000_000].decode("utf-8", "replace")))
    found &= set(BITS)
    family = case_id.split("_")[1]
    if family not in FAMILIES:
        raise ValueError(f"{case_id}: unknown family {family!r}")
    all_tags = {family, *tags, *(f"dtype:{name}" for name in found)}
    if recipe is not None:
        all_tags.add("large")
    return Case(
        id=case_id,
        rules=tuple(rules),
        description=description,
        tags=tuple(sorted(all_tags)),
        data=data,
        recipe=recipe,
        expected=expected,
        provenance=provenance,
        also_breaks=tuple(sorted(also_breaks)),
    )


def _check_fault_count(
    case_id: str, rules: Sequence[str], also_breaks: Sequence[str]
) -> None:
    """Refuse an n_ case without one MUST rule, an x_ case without two or more."""
    must = [rule for rule in rules if RULES_BY_ID[rule].level == "MUST"]
    prefix = case_id[0]
    if prefix == "n" and (len(rules) != 1 or len(must) != 1):
        raise ValueError(f"{case_id}: an n_ case names exactly one MUST rule")
    if prefix == "x" and (len(must) != len(rules) or len(rules) < 2):
        raise ValueError(f"{case_id}: an x_ case names two or more MUST rules")
    if also_breaks and prefix not in "nx":
        raise ValueError(f"{case_id}: only an invalid case breaks further rules")
    if set(also_breaks) & set(rules):
        raise ValueError(f"{case_id}: also_breaks repeats a rule of rules")


# --- tensors and headers ----------------------------------------------------


@dataclass(frozen=True, slots=True)
class T:
    """A tensor the generator writes: its bytes come from values or are given."""

    name: str
    dtype: str
    shape: tuple[int, ...]
    data: bytes
    values: tuple[Value, ...] | None = None

    def expected(self) -> ExpectedTensor:
        """Return the tensor as an accepting reader must return it."""
        values = None
        if self.values is not None and len(self.values) <= VALUES_LIMIT:
            values = tuple(to_json(self.dtype, list(self.values)))
        return ExpectedTensor(
            self.dtype,
            self.shape,
            len(self.data),
            hashlib.sha256(self.data).hexdigest(),
            values,
        )


def count(shape: Sequence[int]) -> int:
    """Return the number of elements of a shape (1 for rank 0)."""
    total = 1
    for dim in shape:
        total *= dim
    return total


def tensor(name: str, dtype: str, shape: Sequence[int], values: Sequence[Value]) -> T:
    """Return a tensor whose bytes encode ``values`` (C order)."""
    if len(values) != count(shape):
        raise ValueError(f"{name}: {len(values)} values for shape {shape}")
    return T(name, dtype, tuple(shape), encode(dtype, list(values)), tuple(values))


def raw(name: str, dtype: str, shape: Sequence[int], data: bytes) -> T:
    """Return a tensor given by its bytes (values are not listed)."""
    if len(data) * 8 != bit_count(dtype, tuple(shape)):
        raise ValueError(f"{name}: {len(data)} bytes do not fit {dtype}{list(shape)}")
    return T(name, dtype, tuple(shape), data)


def pattern(size: int, seed: int = 0) -> bytes:
    """Deterministic filler bytes: not all zero, so misplaced reads show."""
    return bytes((seed + 37 * i + (i >> 8)) & 0xFF for i in range(size))


def jstr(text: str) -> str:
    """JSON text of a string (non-ASCII written raw, as serde_json does)."""
    return json.dumps(text, ensure_ascii=False)


def jarr(items: Sequence[int]) -> str:
    """Compact JSON text of an integer array."""
    return "[" + ",".join(str(i) for i in items) + "]"


def entry(
    dtype: str, shape: Sequence[int] | str, begin: int | str, end: int | str
) -> str:
    """Compact JSON text of a tensor entry; strings are inserted verbatim."""
    shape_text = shape if isinstance(shape, str) else jarr(shape)
    return (
        f'{{"dtype":{jstr(dtype)},"shape":{shape_text},"data_offsets":[{begin},{end}]}}'
    )


class Raw(str):
    """A member name given as JSON text, used verbatim (to spell escapes)."""

    __slots__ = ()


def obj(members: Sequence[tuple[str, str]]) -> str:
    """Compact JSON object text from (name, value text) pairs.

    A name of type `Raw` is inserted verbatim; any other is encoded by `jstr`.
    """
    parts = [
        f"{name if isinstance(name, Raw) else jstr(name)}:{value}"
        for name, value in members
    ]
    return "{" + ",".join(parts) + "}"


def meta_text(metadata: Mapping[str, str]) -> str:
    """Compact JSON text of a metadata object (keys sorted, as writers do)."""
    return obj([(key, jstr(value)) for key, value in sorted(metadata.items())])


@dataclass(frozen=True, slots=True)
class Layout:
    """Tensors placed back to back in a buffer, plus the header members."""

    members: list[tuple[str, str]]
    buffer: bytes
    tensors: dict[str, ExpectedTensor]


def canonical_order(tensors: Sequence[T]) -> list[T]:
    """Return the canonical writer order: descending dtype rank, then name."""
    return sorted(tensors, key=lambda t: (-RANK[t.dtype], t.name.encode()))


def layout(tensors: Sequence[T], json_order: Sequence[str] | None = None) -> Layout:
    """Place ``tensors`` contiguously in the given order.

    ``json_order`` lists the names in the order their entries appear in the
    header (default: the placement order).
    """
    offsets: dict[str, tuple[int, int]] = {}
    cursor = 0
    for t in tensors:
        offsets[t.name] = (cursor, cursor + len(t.data))
        cursor += len(t.data)
    by_name = {t.name: t for t in tensors}
    order = list(json_order) if json_order is not None else list(by_name)
    members = [
        (name, entry(by_name[name].dtype, by_name[name].shape, *offsets[name]))
        for name in order
    ]
    return Layout(
        members,
        b"".join(t.data for t in tensors),
        {t.name: t.expected() for t in tensors},
    )


def assemble(
    header: str | bytes,
    buffer: bytes = b"",
    *,
    align: int | None = 8,
    pad: bytes = b" ",
    n: int | None = None,
) -> bytes:
    """Return prefix + header + padding + buffer.

    The header is padded with ``pad`` until ``8 + N`` is a multiple of
    ``align`` (no padding when ``align`` is None).  ``n`` overrides the length
    written in the prefix (for faulty prefixes).
    """
    text = header.encode() if isinstance(header, str) else header
    if align is not None:
        while (8 + len(text)) % align:
            text += pad
    length = len(text) if n is None else n
    return length.to_bytes(8, "little") + text + buffer


@dataclass(frozen=True, slots=True)
class Built:
    """A file built from a valid model, with its expected content."""

    data: bytes
    expected: Expected
    header: str


def build(  # noqa: PLR0913 - keyword-only options of one builder
    tensors: Sequence[T],
    metadata: Mapping[str, str] | None = None,
    *,
    order: Sequence[str] | None = None,
    json_order: Sequence[str] | None = None,
    metadata_last: bool = False,
    align: int | None = 8,
) -> Built:
    """Build a valid file: tensors placed in ``order`` (default canonical)."""
    by_name = {t.name: t for t in tensors}
    placed = (
        [by_name[name] for name in order]
        if order is not None
        else canonical_order(tensors)
    )
    lay = layout(placed, json_order)
    members = list(lay.members)
    if metadata is not None:
        meta = ("__metadata__", meta_text(metadata))
        members = [*members, meta] if metadata_last else [meta, *members]
    header = obj(members)
    return Built(
        assemble(header, lay.buffer, align=align),
        Expected(None if metadata is None else dict(metadata), lay.tensors),
        header,
    )


def all_dtype_names() -> list[str]:
    """Return the 22 dtype names in declaration order."""
    return [dt.name for dt in DTYPES]
