"""Per-run variants of the corpus files: answers that cannot be looked up.

The manifest and the corpus files ship with the suite, so a reader that
hashes its input (or its input with the padding taken off, the whitespace
taken out, or only the tensor buffer) and looks the result up would know a
committed case's verdict without judging a byte.  So each run hands the
implementation a variant of each committed file instead, made of the
changes below that leave the case's point alone:

* ``order``: each entry's members (and the metadata's) in a run-chosen
  order; the tensors keep theirs (a reader that takes the header's order
  for the buffer's is judged by the case about it, not by every file);
* ``whitespace``: run-chosen JSON whitespace between the header's tokens;
* ``names``: run-chosen names (letters and digits) for the tensors whose
  names are written in plain ASCII;
* ``metadata``: for an invalid file without ``__metadata__``, one with a
  run-chosen key and value, as the first member;
* ``tensor``: for a valid file, a tensor added after the others, of a dtype
  the file holds and with copies of its elements as values;
* ``buffer``: new bytes, as many as there were: a valid file's elements in a
  run-chosen order within each tensor (no value it does not hold), an
  invalid file's bytes at random (no rule needs tensor bytes: see
  ``tests/test_corpus.py``);
* ``shift``: for an invalid file, a filler tensor (run-chosen name, a dtype
  the file names, a run-chosen size that is a multiple of 8 and of the
  dtype's unit) put into the buffer at a run-chosen tensor start or end
  inside no tensor's range: every plain offset after it moves by its size
  and the buffer grows by as much, so a lookup of the entries' dtypes,
  shapes and offsets and the buffer's length finds nothing;
* ``reshape``: for an invalid file not about shapes, a ``1`` inserted at a
  run-chosen place in one tensor's shape (the same element count);
* ``padding``: a run-chosen multiple of 8 (8 to 8 * :data:`MOST`) of 0x20
  after the header, which with the rest keeps the buffer's start as
  aligned as it was.

A token is never rewritten (:mod:`._rewrite` copies each one's bytes), so
an escape, a number's spelling or a duplicate key stays what it was.  Which
changes a case gets depends on what it is about (:func:`changes`): no new
order for duplicates or for files with several faults; no metadata for
cases about metadata; no new names for cases about names; no new bytes for
cases about values; no shift for cases about where a tensor starts, how
many there are or another format's bytes, nor for a file with an offset
that is not a plain number (it would stay while the others move); no
reshape for cases about shapes, ranks or sizes; the committed bytes for
cases about the header's padding, whitespace or size.
That is checked, not assumed: the reference judges the committed file and
the variant, and uses the variant only if its verdict, rule and rule list
are the same and (a valid file) its content is the committed content with
the planned names, metadata, tensor and bytes; otherwise it tries fewer
changes (no reshape, then no shift), down to the committed bytes (as
for a file whose stated N does not fit in it).  A valid variant is compared
with the reference's reading of it (:meth:`Variant.judged`).

The changes of each case come from the run's seed (:func:`seed`, shown in
the summary at the end; ``--corpus-seed`` repeats a run) and the case's id,
so one run gives the same case the same bytes everywhere (xdist workers
too) and every run differs from the last.  The seed is never in the
implementation's environment.  Scores stay comparable across runs: what is
judged about each case does not change.
"""

from __future__ import annotations

import hashlib
import math
import os
import random
import re
import secrets
import struct
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Final

import stspec
from stspec_conformance import _rewrite

if TYPE_CHECKING:
    from collections.abc import Iterable, Mapping
    from pathlib import Path
    from typing import Any

__all__ = [
    "CHANGES",
    "MOST",
    "SEED_VARIABLE",
    "Variant",
    "changes",
    "made",
    "seed",
    "variant",
]

MOST: Final = 64
# A seed the user gives in the environment (the summary shows the run's).
SEED_VARIABLE: Final = "STSPEC_CORPUS_SEED"
CHANGES: Final = (
    "order",
    "whitespace",
    "metadata",
    "names",
    "tensor",
    "buffer",
    "shift",
    "reshape",
    "padding",
)
_PREFIX: Final = struct.Struct("<Q")
# Committed files above this are handed over as they are (none is today).
_LARGEST: Final = 16 * 1024 * 1024
# Most JSON whitespace bytes added to one header.
_MOST_WHITESPACE: Final = 64
_PLAIN_NAME: Final = re.compile(rb'"[A-Za-z0-9_.\-]{1,64}"')
# (letters and digits only: dots, slashes and the rest are the name cases' point)
_LETTERS: Final = "abcdefghijklmnopqrstuvwxyz"
_NAME_BYTES: Final = _LETTERS + "0123456789"
# Each dtype's unit: the fewest whole bytes holding whole elements (F4: one
# byte of two; F6: three bytes of four), and how many elements it holds.
_UNITS: Final = {
    d.name: (math.lcm(d.bits, 8) // 8, math.lcm(d.bits, 8) // d.bits)
    for d in stspec.DTYPES
}


def seed(given: str | None = None) -> str:
    """The run's seed: ``given``, the user's ``STSPEC_CORPUS_SEED``, or a fresh one."""
    return given or os.environ.get(SEED_VARIABLE) or secrets.token_hex(8)


# What a case is about, read from its rules and id: the changes it cannot take.
_ABOUT_PADDING: Final = frozenset(
    {"HEADER-PADDING", "HEADER-TRAILING", "HEADER-LEADING-WS"}
)
# (every variant keeps N + 8 as aligned as it was: alignment cases take them)
_ABOUT_PADDING_WORDS: Final = (
    "smallest",
    "padding",
    "text_whitespace",
    "_ws",
    "first_range",
)
_ABOUT_ORDER_WORDS: Final = ("order", "first", "last", "late", "duplicate")
# (a file with no tensors is about its empty header)
_ABOUT_METADATA_WORDS: Final = ("metadata", "reserved", "no_tensors")
# (a dtype's name is not a tensor's)
_ABOUT_NAMES_WORDS: Final = (
    "structure_name",
    "names",
    "_name",
    "duplicate_tensor",
    "reserved",
    "case",
)
# Whose buffer is another format's bytes, or (accepted) values chosen for a reason.
_ABOUT_BUFFER_WORDS: Final = ("zip", "pickle", "gguf", "polyglot", "object_in_buffer")
_ABOUT_VALUES_WORDS: Final = ("dtype", "value", "example")
# Whose zero bytes are the point: a new buffer keeps them, and only them, zero.
_ABOUT_ZEROS_WORDS: Final = ("zeros",)
# Whose tensors, or the end of whose buffer, are the point: no tensor added.
_ABOUT_TENSORS_WORDS: Final = (
    "layout",
    "trailing",
    "end",
    "last",
    "empty",
    "only",
    "prefix",
    "limit",
)


def changes(case: Mapping[str, Any]) -> frozenset[str]:
    """The changes a case's variant may make (none: it is handed over as committed)."""
    case_id = str(case["id"])
    rules = set(case.get("rules", ()))
    if _ABOUT_PADDING & rules or any(w in case_id for w in _ABOUT_PADDING_WORDS):
        return frozenset()
    allowed = set(CHANGES)
    # which of two duplicates comes first decides what a lax reader keeps
    duplicates = "KEY-UNIQUE" in rules and case["verdict"] == "invalid"
    if (
        duplicates
        or case_id.startswith("x_")
        or any(w in case_id for w in _ABOUT_ORDER_WORDS)
    ):
        allowed.discard("order")
    # (a valid file keeps its metadata, or its lack of one: readers that
    # report absent metadata as {} are judged on the files without)
    if (
        case["verdict"] != "invalid"
        or any(r.startswith("META-") for r in rules)
        or any(w in case_id for w in _ABOUT_METADATA_WORDS)
    ):
        allowed.discard("metadata")
    if any(w in case_id.replace("dtype_name", "") for w in _ABOUT_NAMES_WORDS):
        allowed.discard("names")
    if (
        any(w in case_id for w in _ABOUT_BUFFER_WORDS)
        # a tolerated file's content is the manifest's: the reference rejects it
        or case["verdict"] == "tolerated"
        or (
            case["verdict"] == "valid"
            and any(w in case_id for w in _ABOUT_VALUES_WORDS)
        )
    ):
        allowed.discard("buffer")
    # an added tensor is content only the reference's reading of a valid file gives
    if case["verdict"] != "valid" or any(w in case_id for w in _ABOUT_TENSORS_WORDS):
        allowed.discard("tensor")
    # a valid file's offsets and shapes are its content; an invalid one's
    # move where the case is not about their values
    if case["verdict"] != "invalid" or any(w in case_id for w in _ABOUT_OFFSETS_WORDS):
        allowed.discard("shift")
    if (
        case["verdict"] != "invalid"
        or _ABOUT_SHAPES_RULES & rules
        or any(w in case_id for w in _ABOUT_SHAPES_WORDS)
    ):
        allowed.discard("reshape")
    return frozenset(allowed)


@dataclass(frozen=True)
class Variant:
    """The bytes handed over for a case, and what they change about its content."""

    data: bytes
    made: frozenset[str]  # the changes it holds (see CHANGES)
    names: Mapping[str, str] = field(default_factory=dict)  # committed -> new
    metadata: tuple[str, str] | None = None  # the member added to __metadata__
    # an accepted variant with new tensor bytes: the reference's reading of
    # each tensor, name -> (dtype, shape, nbytes, sha256)
    reading: Mapping[str, _Tensor] = field(default_factory=dict)
    # the shift's filler tensor: its name and data_offsets
    filler: tuple[str, int, int] | None = None

    def judged(self, case: Mapping[str, Any]) -> Mapping[str, Any]:
        """``case`` as this variant is judged: the reference's reading of it.

        Its ``expected`` content has the new names and the added metadata
        member; ``handed`` says what the variant changed, for messages.
        """
        judged = {**case, "handed": self.describe()}
        expected = case.get("expected")
        if not expected or not (self.names or self.reading or self.metadata):
            return judged
        content = dict(expected)
        if self.metadata is not None:
            key, value = self.metadata
            content["metadata"] = {**(expected.get("metadata") or {}), key: value}
        if self.reading and "tensors" in expected:
            content["tensors"] = {
                name: {
                    "dtype": dtype,
                    "shape": [str(dim) for dim in shape],
                    "nbytes": nbytes,
                    "sha256": digest,
                }
                for name, (dtype, shape, nbytes, digest) in self.reading.items()
            }
        elif self.names and "tensors" in expected:
            content["tensors"] = {
                self.names.get(name, name): entry
                for name, entry in expected["tensors"].items()
            }
        judged["expected"] = content
        return judged

    def describe(self) -> str:
        """What the variant changed, in a line (names and member shown)."""
        said: list[str] = [c for c in CHANGES if c in self.made]
        if self.names:
            renamed = list(self.names.items())
            shown = ", ".join(f"{old!r} -> {new!r}" for old, new in renamed[:3])
            more = f" and {len(renamed) - 3} more" if len(renamed) > 3 else ""
            said[said.index("names")] = f"names ({shown}{more})"
        if self.filler is not None:
            name, begin, end = self.filler
            said[said.index("shift")] = (
                f"shift (added {name!r} at [{begin}, {end}], later offsets moved)"
            )
        if self.metadata is not None:
            said[said.index("metadata")] = (
                f"metadata (added {self.metadata[0]!r}: {self.metadata[1]!r})"
            )
        return "this run's variant of it: " + ", ".join(said)


def _rng(run_seed: str, case_id: str) -> random.Random:
    digest = hashlib.sha256(f"{run_seed}\0{case_id}".encode()).digest()
    # not secret: the seed is shown so that a run can be repeated
    return random.Random(int.from_bytes(digest, "little"))  # noqa: S311


def _split(data: bytes) -> tuple[bytes, bytes] | None:
    """The header and what follows it, or None when the header does not fit."""
    if len(data) < _PREFIX.size:
        return None
    (stated,) = _PREFIX.unpack_from(data)
    end = _PREFIX.size + stated
    if end > len(data):
        return None
    return data[_PREFIX.size : end], data[end:]


def _word(rng: random.Random, length: int) -> str:
    rest = "".join(rng.choice(_NAME_BYTES) for _ in range(length - 1))
    return rng.choice(_LETTERS) + rest


def _shuffled(members: list[_rewrite.Member], rng: random.Random) -> bool:
    """Put ``members`` in a new order; False when they have only one."""
    before = list(members)
    if all(member == before[0] for member in before):  # none, one, or all alike
        return False
    while members == before:  # never the committed order
        rng.shuffle(members)
    return True


# Offsets a shift moves: plain decimal integers well inside every reader's
# range (the cases about huge, negative or oddly spelled numbers keep theirs).
_PLAIN_OFFSET: Final = re.compile(rb"0|[1-9][0-9]{0,14}")
# Whose offsets' exact values, or whose tensor count, are the point: no shift.
_ABOUT_OFFSETS_WORDS: Final = (
    "wrap",
    "no_tensors",
    "tensor_only",
    "single",
    "empty_buffer",
    "first",
    "prefix",
    "limit",
    # another format's bytes: its own offsets point into the file
    *_ABOUT_BUFFER_WORDS,
)
# Whose shapes, ranks or element counts are the point: no reshape.
_ABOUT_SHAPES_WORDS: Final = ("shape", "rank", "dim", "arith", "overflow", "bits")
_ABOUT_SHAPES_RULES: Final = frozenset(
    {"SHAPE-ARRAY", "SIZE-BITS", "SIZE-OVERFLOW", "NUM-RANGE", "NUM-INTEGER"}
)


@dataclass
class _Plan:
    """One attempt at a variant: the changes, and what they did."""

    wanted: frozenset[str]
    made: set[str] = field(default_factory=set)
    names: dict[str, str] = field(default_factory=dict)
    metadata: tuple[str, str] | None = None
    # a valid file's tensors: (dtype, element count, begin) in buffer order
    spans: list[tuple[str, int, int]] = field(default_factory=list)
    # the added tensor: name, dtype, element count, bytes
    added: tuple[str, str, int, bytes] | None = None
    # the shift's filler: its name, where in the committed buffer, its bytes
    filler: tuple[str, int, bytes] | None = None


def _rename(members: list[_rewrite.Member], plan: _Plan, rng: random.Random) -> None:
    """Give each plainly written tensor name a run-chosen one of its length."""
    taken = {m.key for m in members}
    for member in members:
        if member.key == b'"__metadata__"' or not _PLAIN_NAME.fullmatch(member.key):
            continue
        old = member.key[1:-1].decode()
        if old not in plan.names:  # a duplicate keeps one name
            new = old
            while f'"{new}"'.encode() in taken:
                new = _word(rng, max(4, len(old)))
            taken.add(f'"{new}"'.encode())
            plan.names[old] = new
        member.key = f'"{plan.names[old]}"'.encode()
    if plan.names:
        plan.made.add("names")


def _add_metadata(
    members: list[_rewrite.Member], plan: _Plan, rng: random.Random
) -> None:
    """Add a ``__metadata__`` member with one run-chosen key and value."""
    # a key with an escape might spell __metadata__
    if any(b"__metadata__" in m.key or b"\\" in m.key for m in members):
        return
    key, value = _word(rng, rng.randint(4, 12)), _word(rng, rng.randint(0, 24))
    added = _rewrite.Object(
        [_rewrite.Member(f'"{key}"'.encode(), f'"{value}"'.encode())]
    )
    members.insert(0, _rewrite.Member(b'"__metadata__"', added))
    plan.metadata = (key, value)
    plan.made.add("metadata")


def _elements(plan: _Plan, buffer: bytes) -> list[tuple[str, int, int, list[bytes]]]:
    """Each tensor's whole units (see _UNITS): dtype, begin, end, units.

    A sub-byte tensor's last, partly filled unit is no unit: it stays.
    """
    out = []
    for dtype, count, begin in plan.spans:
        size, holds = _UNITS[dtype]
        end = begin + count // holds * size
        if end > begin:
            units = [buffer[i : i + size] for i in range(begin, end, size)]
            out.append((dtype, begin, end, units))
    return out


def _add_tensor(
    members: list[_rewrite.Member], plan: _Plan, rng: random.Random, buffer: bytes
) -> None:
    """Add a tensor after the buffer's end, of a dtype and values the file has.

    Its elements are copies of one tensor's, so no value or dtype the
    committed file does not hold is judged; it is the header's last member,
    so the header lists the tensors in buffer order if the file did.
    """
    holding = _elements(plan, buffer)
    if not holding:
        return
    dtype, _, _, units = holding[rng.randrange(len(holding))]
    taking = rng.randint(1, 8)
    data = b"".join(rng.choice(units) for _ in range(taking))
    count = taking * _UNITS[dtype][1]
    added = _entry(members, rng, dtype, count, (len(buffer), len(buffer) + len(data)))
    members.append(added)
    plan.added = (added.key[1:-1].decode(), dtype, count, data)
    plan.made.add("tensor")


def _entry(
    members: list[_rewrite.Member],
    rng: random.Random,
    dtype: str,
    count: int,
    span: tuple[int, int],
) -> _rewrite.Member:
    """A new tensor's member: a run-chosen name no member has, plain JSON."""
    taken = {m.key for m in members}
    name = _word(rng, 6)
    while f'"{name}"'.encode() in taken:
        name = _word(rng, 6)
    entry = _rewrite.Object(
        [
            _rewrite.Member(b'"dtype"', f'"{dtype}"'.encode()),
            _rewrite.Member(b'"shape"', _rewrite.Array([str(count).encode()])),
            _rewrite.Member(
                b'"data_offsets"',
                _rewrite.Array([str(span[0]).encode(), str(span[1]).encode()]),
            ),
        ]
    )
    return _rewrite.Member(f'"{name}"'.encode(), entry)


def _field(entry: _rewrite.Object, key: bytes) -> _rewrite.Node | None:
    """An entry's member ``key`` (a token with its quotes), when it has one."""
    found = [m.value for m in entry.members if m.key == key]
    return found[0] if len(found) == 1 else None


def _entries(members: list[_rewrite.Member]) -> list[tuple[int, _rewrite.Object]]:
    """The tensor entries that are objects, with their place among ``members``."""
    return [
        (at, m.value)
        for at, m in enumerate(members)
        if m.key != b'"__metadata__"' and isinstance(m.value, _rewrite.Object)
    ]


def _plain(node: _rewrite.Node | None) -> list[int | None]:
    """An array's items as numbers a shift moves (None: one it leaves)."""
    if not isinstance(node, _rewrite.Array):
        return []
    return [
        int(i) if isinstance(i, bytes) and _PLAIN_OFFSET.fullmatch(i) else None
        for i in node.items
    ]


def _filler(
    members: list[_rewrite.Member], rng: random.Random, buffer: bytes
) -> tuple[int, str] | None:
    """Where a shift's filler goes, and its dtype (one the file names)."""
    dtypes = {d.name for d in stspec.DTYPES}
    spans: list[tuple[int, int]] = []
    ends: set[int] = set()
    used: set[str] = set()
    for _, entry in _entries(members):
        pair = _plain(_field(entry, b'"data_offsets"'))
        if not pair or None in pair:
            # an offset a shift cannot move (a string, 4.0, a sign, 20 digits)
            # would change places with the ones it moves: a new fault that
            # the rule list may not show, since that entry stops being judged
            return None
        ends.update(p for p in pair if p is not None and p <= len(buffer))
        if len(pair) == 2 and pair[0] is not None and pair[1] is not None:
            spans.append((pair[0], pair[1]))
        dtype = _field(entry, b'"dtype"')
        if isinstance(dtype, bytes) and dtype[1:-1].decode("latin-1") in dtypes:
            used.add(dtype[1:-1].decode("latin-1"))
    # a tensor's start or end inside no tensor's range (the buffer's end may
    # be followed by bytes a trailing case is about)
    places = sorted(p for p in ends if not any(b < p < e for b, e in spans))
    if not used or not places:
        return None
    return rng.choice(places), rng.choice(sorted(used))


def _shift(
    members: list[_rewrite.Member], plan: _Plan, rng: random.Random, buffer: bytes
) -> None:
    """Put a filler tensor into the buffer at a run-chosen place; move the rest.

    The place is a tensor's start or end inside no tensor's range; every
    plain offset after it (a start at it too) moves by the filler's size, a
    multiple of 8 and of its dtype's unit, so each keeps its alignment.  The
    filler's entry goes before the first entry that moved, so a header in
    buffer order stays in it.
    """
    chosen = _filler(members, rng, buffer)
    if chosen is None:
        return
    place, dtype = chosen
    unit, holds = _UNITS[dtype]
    size = math.lcm(unit, 8) * rng.randint(1, 4)
    first_moved = len(members)
    for at, entry in _entries(members):
        array = _field(entry, b'"data_offsets"')
        values = _plain(array)
        if not isinstance(array, _rewrite.Array) or not values:
            continue
        # an end at the place stays, unless its tensor starts there too
        starts = values[0] is not None and values[0] >= place
        for i, value in enumerate(values):
            if value is None or value < place or (value == place and not starts):
                continue
            array.items[i] = str(value + size).encode()
            first_moved = min(first_moved, at)
    filler = _entry(members, rng, dtype, size // unit * holds, (place, place + size))
    members.insert(first_moved, filler)
    plan.filler = (filler.key[1:-1].decode(), place, rng.randbytes(size))
    plan.made.add("shift")


def _reshape(members: list[_rewrite.Member], plan: _Plan, rng: random.Random) -> None:
    """Insert a ``1`` at a run-chosen place in one tensor's shape."""
    shapes = [
        shape
        for _, entry in _entries(members)
        if isinstance(shape := _field(entry, b'"shape"'), _rewrite.Array)
        and all(isinstance(i, bytes) and i.isdigit() for i in shape.items)
    ]
    if not shapes:
        return
    shape = rng.choice(shapes)
    shape.items.insert(rng.randint(0, len(shape.items)), b"1")
    plan.made.add("reshape")


def _new_bytes(buffer: bytes, plan: _Plan, rng: random.Random, case_id: str) -> bytes:
    """The buffer with run-chosen bytes, as many as it had.

    A valid file keeps its values: each tensor's elements are shuffled (so
    no value the committed file does not hold is judged: a NaN payload or a
    bool byte of 2 stays where a case put one).  An invalid file gets random
    bytes; where its zero bytes are its point, they stay zero.
    """
    if plan.spans:
        shuffled = bytearray(buffer)
        for _, begin, end, elements in _elements(plan, buffer):
            order = list(elements)
            for _ in range(8):  # a new order, if the values allow one
                rng.shuffle(order)
                if order != elements:
                    break
            shuffled[begin:end] = b"".join(order)
        return bytes(shuffled)
    new = rng.randbytes(len(buffer))
    if any(w in case_id for w in _ABOUT_ZEROS_WORDS):
        return bytes(b | 1 if old else 0 for old, b in zip(buffer, new, strict=True))
    return new


def _prefixed(header: bytes, plan: _Plan, rng: random.Random) -> bytes | None:
    """A header whose structure is not plain JSON, with a metadata member first.

    Its fault comes after the object's first member begins; the reference
    checks that it still breaks the same rule.
    """
    if "metadata" not in plan.wanted or not header.startswith(b'{"'):
        return None
    if b"__metadata__" in header or b"\\" in header:
        return None
    members: list[_rewrite.Member] = []
    _add_metadata(members, plan, rng)
    added = _rewrite.render(_rewrite.Object(members), rng, 0)
    return added[:-1] + b"," + header[1:]


def _rewritten(
    header: bytes, plan: _Plan, rng: random.Random, buffer: bytes
) -> bytes | None:
    """The header with ``plan``'s header changes, or None if it is not plain JSON."""
    top = _rewrite.parse(header)
    if top is None:
        return _prefixed(header, plan, rng)
    if "names" in plan.wanted:
        _rename(top.members, plan, rng)
    if "metadata" in plan.wanted:
        _add_metadata(top.members, plan, rng)
    if "tensor" in plan.wanted:
        _add_tensor(top.members, plan, rng, buffer)
    if "shift" in plan.wanted:
        _shift(top.members, plan, rng, buffer)
    if "reshape" in plan.wanted:
        _reshape(top.members, plan, rng)
    if "order" in plan.wanted:
        # each entry's members and the metadata's; the tensors stay in the
        # committed order (some readers take it for the buffer's order, a
        # fault only the case about it should judge)
        objects = [m.value for m in top.members if isinstance(m.value, _rewrite.Object)]
        if [_shuffled(o.members, rng) for o in objects].count(True):
            plan.made.add("order")
    whitespace = 0
    if "whitespace" in plan.wanted:
        whitespace = rng.randint(1, _MOST_WHITESPACE)
        plan.made.add("whitespace")
    return _rewrite.render(top, rng, whitespace)


def _build(data: bytes, plan: _Plan, run_seed: str, case_id: str) -> bytes | None:
    """The committed file with ``plan``'s changes, or None if none applies."""
    parts = _split(data)
    if parts is None:
        return None
    header, rest = parts
    rng = _rng(run_seed, case_id)
    if plan.wanted & {
        "order",
        "whitespace",
        "metadata",
        "names",
        "tensor",
        "shift",
        "reshape",
    }:
        header = _rewritten(header, plan, rng, rest) or header
        # as aligned as the committed header: N + 8 keeps its remainder mod 8
        header += b" " * ((len(parts[0]) - len(header)) % 8)
    if "buffer" in plan.wanted and rest:
        new = _new_bytes(rest, plan, rng, case_id)
        if new != rest:
            plan.made.add("buffer")
        rest = new
    if plan.added is not None:
        rest += plan.added[3]
    if plan.filler is not None:
        _, place, filler = plan.filler
        rest = rest[:place] + filler + rest[place:]
    if "padding" in plan.wanted:
        header += b" " * (8 * (1 + rng.randrange(MOST)))
        plan.made.add("padding")
    return _PREFIX.pack(len(header)) + header + rest


_Tensor = tuple[str, tuple[int, ...], int, str]  # dtype, shape, nbytes, sha256
_Tensors = frozenset[tuple[str, str, tuple[int, ...], int, str]]
_Content = tuple["Mapping[str, str] | None", _Tensors]
# verdict, the rule it names, every rule validate() lists, the content
_Judgement = tuple[str, "str | None", tuple[str, ...], "_Content | None"]


def _judgement(data: bytes) -> _Judgement:
    """What the reference says of ``data``: verdict, rule, rules and content."""
    rules = tuple(sorted({v.rule for v in stspec.validate(data, limit=None)}))
    try:
        with stspec.read(data) as file:
            tensors = frozenset(
                (
                    name,
                    info.dtype,
                    tuple(info.shape),
                    info.nbytes,
                    hashlib.sha256(file.tensor_bytes(name)).hexdigest(),
                )
                for name, info in file.tensors.items()
            )
            return ("accepted", None, rules, (file.metadata, tensors))
    except stspec.SafetensorsError as exc:
        return ("rejected", exc.rule, rules, None)


def _spans(data: bytes) -> list[tuple[str, int, int]]:
    """A valid file's tensors as (dtype, element count, begin), in buffer order."""
    with stspec.read(data) as file:
        return sorted(
            ((i.dtype, math.prod(i.shape), i.begin) for i in file.tensors.values()),
            key=lambda span: span[2],
        )


def _as_planned(committed: _Judgement, handed: _Judgement, plan: _Plan) -> bool:
    """Whether the reference judges the variant as ``plan`` says it should.

    The same verdict, rule and rule list; for an accepted file, the committed
    content with the new names and the added metadata member, and the same
    tensor bytes unless the plan gave the buffer new ones.
    """
    if committed[:3] != handed[:3] or (committed[3] is None) != (handed[3] is None):
        return False
    if committed[3] is None or handed[3] is None:
        return True
    metadata, tensors = committed[3]
    if plan.metadata is not None:
        metadata = {**(metadata or {}), plan.metadata[0]: plan.metadata[1]}
    kept = 4 if plan.made & {"buffer", "tensor"} else 5  # the digest, or not
    want = {(plan.names.get(t[0], t[0]), *t[1:kept]) for t in tensors}
    if plan.added is not None:
        name, dtype, count, data = plan.added
        want.add((name, dtype, (count,), len(data)))
    return handed[3][0] == metadata and want == {t[:kept] for t in handed[3][1]}


def _plans(allowed: frozenset[str]) -> Iterable[frozenset[str]]:
    """The changes to try, most first."""
    header = {"order", "names", "metadata", "tensor"}
    yield allowed
    yield allowed - {"order"}
    # a shift and a reshape each on their own: one may break what the other keeps
    yield allowed - {"order", "reshape"}
    yield allowed - {"order", "shift"}
    yield allowed - header - {"reshape"}
    yield allowed - header - {"shift"}
    yield allowed - header - {"reshape", "shift"}
    yield allowed & {"padding"}


def variant(case: Mapping[str, Any], path: Path, run_seed: str) -> Variant | None:
    """The run's variant of a committed case's file, or None to use the file."""
    allowed = changes(case)
    if not allowed:
        return None
    try:
        if path.stat().st_size > _LARGEST:
            return None
        data = path.read_bytes()
    except OSError:
        return None
    if _split(data) is None:
        return None  # the header does not fit: a prefix case, kept as it is
    committed = _judgement(data)
    spans = _spans(data) if committed[0] == "accepted" else []
    tried: set[frozenset[str]] = set()
    for wanted in _plans(allowed):
        if not wanted or wanted in tried:
            continue
        tried.add(wanted)
        plan = _Plan(wanted, spans=spans)
        built = _build(data, plan, run_seed, str(case["id"]))
        if built is None:
            continue
        handed = _judgement(built)
        if _as_planned(committed, handed, plan):
            reading = (
                {t[0]: t[1:] for t in handed[3][1]}
                if plan.made & {"buffer", "tensor"} and handed[3] is not None
                else {}
            )
            filler = None
            if plan.filler is not None:
                name, place, data = plan.filler
                filler = (name, place, place + len(data))
            return Variant(
                built, frozenset(plan.made), plan.names, plan.metadata, reading, filler
            )
    return None


def made(variants: Iterable[Variant | None]) -> dict[str, int]:
    """How many variants hold each change (and ``committed`` for None)."""
    counts = dict.fromkeys((*CHANGES, "committed"), 0)
    for one in variants:
        for change in one.made if one is not None else ("committed",):
            counts[change] += 1
    return counts
