"""The rule registry: the one place where the spec's rule ids live as data."""

from __future__ import annotations

# typing and dataclasses are not imported at run time (start-up cost of the
# `stspec` command, see stspec/record.py); mypy reads TYPE_CHECKING as True.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Final, Literal, NamedTuple

    Level = Literal["MUST", "SHOULD", "MAY"]
    Scope = Literal["reader", "processing", "writer"]
else:
    from stspec.record import NamedTuple


class Rule(NamedTuple):
    """One normative rule of spec/SPEC.md.

    A reader rule is a property of a file.  Of level ``MUST``, it makes a file
    that breaks it *invalid* (every reader must reject it); of level ``MAY``,
    it describes slack a reader may tolerate: a file whose only faults are
    ``MAY`` rules is *tolerated* (implementation-defined); the strict
    reference still rejects it.  Processing rules say what a reader does with
    an input (no file "breaks" them), and writer rules constrain what a
    writer produces; both may be ``SHOULD``.
    """

    id: str
    level: Level
    scope: Scope
    family: str
    statement: str


def _r(rule_id: str, level: Level, family: str, statement: str) -> Rule:
    return Rule(rule_id, level, "reader", family, statement)


def _p(rule_id: str, level: Level, statement: str) -> Rule:
    return Rule(rule_id, level, "processing", "processing", statement)


def _w(rule_id: str, level: Level, statement: str) -> Rule:
    return Rule(rule_id, level, "writer", "writer", statement)


RULES: Final[tuple[Rule, ...]] = (
    # File container: the 8-byte prefix and the header's byte range.
    _r(
        "FILE-PREFIX",
        "MUST",
        "file",
        "A file MUST be at least 8 bytes long, holding the little-endian u64 N.",
    ),
    _r(
        "HEADER-LIMIT",
        "MUST",
        "file",
        "N MUST NOT exceed 100,000,000 (the limit itself is allowed).",
    ),
    _r("HEADER-BOUNDS", "MUST", "file", "8 + N MUST NOT exceed the file length."),
    # Header text: encoding and what surrounds the JSON object.
    _r(
        "HEADER-UTF8",
        "MUST",
        "text",
        "All N header bytes MUST be well-formed UTF-8 (no overlong forms, no "
        "encoded surrogates).",
    ),
    _r(
        "HEADER-OBJECT",
        "MUST",
        "text",
        "The header MUST hold a JSON object, whose `{` is the first byte that is "
        "not JSON whitespace.",
    ),
    _r(
        "HEADER-LEADING-WS",
        "MAY",
        "text",
        "A reader MAY accept JSON whitespace (0x20 0x09 0x0A 0x0D) before the "
        "`{`; writers never produce it.",
    ),
    _r(
        "HEADER-PADDING",
        "MAY",
        "text",
        "A reader MAY accept 0x09, 0x0A or 0x0D after the object; the padding "
        "writers produce is 0x20 only.",
    ),
    _r(
        "HEADER-TRAILING",
        "MUST",
        "text",
        "Every byte after the object's closing `}` MUST be JSON whitespace.",
    ),
    # JSON grammar: the accepted subset of RFC 8259.
    _r(
        "JSON-SYNTAX",
        "MUST",
        "json",
        "The header object MUST be RFC 8259 JSON: no comments, trailing commas, "
        "NaN/Infinity, single quotes, leading zeros, bad escapes or raw control "
        "characters.",
    ),
    _r(
        "JSON-DEPTH",
        "MUST",
        "json",
        "Arrays and objects MUST NOT nest more than 127 levels deep, the "
        "top-level object being level 1.",
    ),
    _r(
        "JSON-SURROGATE",
        "MUST",
        "json",
        "A string MUST NOT contain an unpaired UTF-16 surrogate escape.",
    ),
    _r(
        "KEY-UNIQUE",
        "MUST",
        "json",
        "An object MUST NOT contain two members whose names are equal after "
        "unescaping (tensor names, metadata keys, entry fields).",
    ),
    _r(
        "NUM-INTEGER",
        "MUST",
        "json",
        "Shape dimensions and offsets MUST be integer tokens: no minus sign, "
        "fraction or exponent.",
    ),
    _r(
        "NUM-RANGE",
        "MUST",
        "json",
        "Integer tokens of shape dimensions and offsets MUST NOT exceed 2^64-1.",
    ),
    # Header structure.
    _r(
        "ENTRY-OBJECT",
        "MUST",
        "structure",
        "Every member other than `__metadata__` MUST be a JSON object (a tensor "
        "entry).",
    ),
    _r(
        "ENTRY-FIELDS",
        "MUST",
        "structure",
        "A tensor entry MUST contain `dtype`, `shape` and `data_offsets`.",
    ),
    _r(
        "ENTRY-UNKNOWN",
        "MAY",
        "structure",
        "A reader MAY ignore entry members other than the three fields; writers "
        "never produce them.",
    ),
    _r(
        "DTYPE-NAME",
        "MUST",
        "structure",
        "`dtype` MUST be a JSON string equal to one of the 22 dtype names "
        "(case-sensitive).",
    ),
    _r(
        "SHAPE-ARRAY",
        "MUST",
        "structure",
        "`shape` MUST be a JSON array whose elements are numbers.",
    ),
    _r(
        "OFFSETS-PAIR",
        "MUST",
        "structure",
        "`data_offsets` MUST be a JSON array of exactly two numbers.",
    ),
    _r(
        "META-OBJECT",
        "MUST",
        "structure",
        "`__metadata__`, when present, MUST be a JSON object.",
    ),
    _r(
        "META-NULL",
        "MAY",
        "structure",
        'A reader MAY treat `"__metadata__": null` as absent metadata; writers '
        "never produce it.",
    ),
    _r(
        "META-STRING",
        "MUST",
        "structure",
        "Every `__metadata__` value MUST be a JSON string.",
    ),
    # Sizes: dtype x shape arithmetic.
    _r(
        "SIZE-OVERFLOW",
        "MUST",
        "size",
        "The exact bit count product(shape) x bits(dtype) MUST NOT exceed 2^64-1.",
    ),
    _r(
        "SIZE-BITS",
        "MUST",
        "size",
        "The bit count product(shape) x bits(dtype) MUST be a multiple of 8.",
    ),
    _r(
        "SIZE-MATCH",
        "MUST",
        "size",
        "end - begin MUST equal the tensor's byte size, bit count / 8.",
    ),
    # Data layout in the byte buffer.
    _r(
        "OFFSETS-ORDER",
        "MUST",
        "layout",
        "begin MUST NOT exceed end in `data_offsets`.",
    ),
    _r(
        "LAYOUT-BOUNDS",
        "MUST",
        "layout",
        "end MUST NOT exceed the byte buffer's length (file length - 8 - N).",
    ),
    _r(
        "LAYOUT-HOLE",
        "MUST",
        "layout",
        "Sorted by (begin, end), each tensor MUST begin where the previous one "
        "ends (the first at 0): no gaps.",
    ),
    _r(
        "LAYOUT-OVERLAP",
        "MUST",
        "layout",
        "Sorted by (begin, end), a tensor MUST NOT begin before the previous "
        "one ends: no shared bytes, no empty tensor inside another.",
    ),
    _r(
        "LAYOUT-TRAILING",
        "MUST",
        "layout",
        "The tensors MUST cover the byte buffer to its last byte: no trailing "
        "bytes, no polyglot tails.",
    ),
    # What a reader does with any input (no file breaks these).
    _p(
        "READ-VERDICT",
        "MUST",
        "A reader MUST accept every valid file and reject every invalid one; a "
        "valid file it cannot use it reports as unsupported (READ-UNSUPPORTED).",
    ),
    _p(
        "READ-OUTCOME",
        "MUST",
        "A reader MUST end every input in acceptance or rejection: never a "
        "crash, a hang, unbounded memory or stack use, or a read outside the "
        "input.",
    ),
    _p(
        "READ-TOLERATED",
        "MUST",
        "A reader that accepts a tolerated file MUST give it the one meaning its "
        "MAY rules state: the slack ignored, `null` metadata read as absent.",
    ),
    _p(
        "READ-UNSUPPORTED",
        "SHOULD",
        "A reader SHOULD report a file it cannot use because of a dtype it does "
        "not support or an implementation limit as unsupported, not as invalid.",
    ),
    _p(
        "READ-PRECEDENCE",
        "SHOULD",
        "A reader that names the rule an invalid file breaks SHOULD name a MUST "
        "rule of the first precedence group (§12.1) in which the file breaks one.",
    ),
    # What writers produce.
    _w(
        "WRITE-RESERVED",
        "MUST",
        "A writer MUST refuse a tensor named `__metadata__`.",
    ),
    _w(
        "WRITE-VALID",
        "MUST",
        "A writer MUST NOT emit a file that breaks a reader rule (§2-§8), MAY "
        "rules included: its output is valid.",
    ),
    _w(
        "WRITE-FIDELITY",
        "MUST",
        "A writer MUST refuse its input or write a file holding exactly the "
        "tensors (names, dtypes, shapes, bytes) and metadata it was given.",
    ),
    _w(
        "WRITE-CANONICAL",
        "SHOULD",
        "A writer SHOULD emit the canonical form (a canonical writer MUST): `{` "
        "first, compact JSON, `__metadata__` first with sorted keys, tensors by "
        "descending dtype declaration order then name, 0x20 padding to a "
        "multiple of 8.",
    ),
    _w(
        "WRITE-ATOMIC",
        "SHOULD",
        "An API that writes a file to a path SHOULD replace the destination "
        "atomically, leaving it untouched when the write fails.",
    ),
)

RULES_BY_ID: Final[dict[str, Rule]] = {rule.id: rule for rule in RULES}


MAX_HEADER_SIZE: Final = 100_000_000
MAX_DEPTH: Final = 127
U64_MAX: Final = 2**64 - 1


def verdict_of(rule_ids: set[str] | frozenset[str]) -> str:
    """Classify a file by the set of reader rules it breaks.

    Returns ``"valid"`` for none, ``"invalid"`` if any broken rule is a
    ``MUST``, and ``"tolerated"`` when every broken rule is a ``MAY``.
    """
    if not rule_ids:
        return "valid"
    if any(RULES_BY_ID[rule_id].level == "MUST" for rule_id in rule_ids):
        return "invalid"
    return "tolerated"
