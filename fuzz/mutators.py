"""A safetensors-aware mutator: change the header or the buffer, then fix N.

A byte-level mutator breaks the 8-byte length prefix in most of its mutations,
so most inputs would die at HEADER-BOUNDS.  :func:`mutate` usually splits the
file into (header, buffer), mutates one of them (as bytes, through libFuzzer's
own mutator, or as JSON with the operators below) and writes a prefix that
matches the new header; one time in five it mutates the raw file, so that the
prefix faults stay reachable.  libFuzzer's mutator is passed in, which keeps
this module importable (and testable) without atheris.
"""

from __future__ import annotations

import json
import random
import struct
from collections.abc import Callable
from typing import Final, Protocol

from stspec import DTYPES

RawMutate = Callable[[bytes, int], bytes]

_DTYPES: Final = [dtype.name for dtype in DTYPES]
_BITS: Final = {dtype.name: dtype.bits for dtype in DTYPES}
# Numbers at the edges the spec names: 2^64-1 and 2^64, 2^63, 2^32, the
# integer -0, tokens that are numbers but not integers, and long digit runs.
_NUMBERS: Final = (
    "0", "1", "7", "8", "-0", "-1", "1.0", "1e2", "0.5", "01", "4294967296",
    "9223372036854775808", "18446744073709551615", "18446744073709551616",
    "100000000000000000000000", "2305843009213693952",
)  # fmt: skip
_SCALARS: Final = ("null", "true", "false", '""', "[]", "{}", '"F32"', "1", '"\\ud800"')
_WHITESPACE: Final = (" ", "  ", "\n", "\t", "\r", "\r\n", " \n")


class Raw(str):
    """A JSON token written out verbatim (numbers, literals, broken text)."""

    __slots__ = ()


class Key(str):
    """A member name written out verbatim as JSON text (an escaped spelling)."""

    __slots__ = ()


class Obj(list[tuple[str, object]]):
    """A JSON object as its member list, so that repeated names survive."""

    __slots__ = ()


def parse(text: str) -> object:
    """Parse JSON keeping member order, repeats and every number's token."""
    return json.loads(
        text, object_pairs_hook=Obj, parse_float=Raw, parse_int=Raw, parse_constant=Raw
    )


def dump(value: object) -> str:
    """Write a value from :func:`parse` (or built from Raw and Obj) as JSON."""
    if isinstance(value, Raw):
        return str(value)
    if isinstance(value, Obj):
        return "{" + ",".join(f"{_key(k)}:{dump(v)}" for k, v in value) + "}"
    if isinstance(value, list):
        return "[" + ",".join(dump(item) for item in value) + "]"
    if isinstance(value, str):
        return _string(value)
    return json.dumps(value)


def _key(name: str) -> str:
    return str(name) if isinstance(name, Key) else _string(name)


def _string(text: str) -> str:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:  # a lone surrogate: keep it as an escape
        return json.dumps(text)
    return json.dumps(text, ensure_ascii=False)


def split(data: bytes) -> tuple[bytes, bytes] | None:
    """Return (header, buffer) if the prefix fits the input, else None."""
    if len(data) < 8:
        return None
    (length,) = struct.unpack_from("<Q", data)
    if 8 + length > len(data):
        return None
    return data[8 : 8 + length], data[8 + length :]


def join(header: bytes, buffer: bytes) -> bytes:
    """Prefix ``header`` with its length and append ``buffer``."""
    return struct.pack("<Q", len(header)) + header + buffer


class Fuzzer(Protocol):
    """What :func:`guarded` needs of atheris: its byte-wise mutator."""

    def Mutate(self, data: bytes, max_size: int) -> bytes:  # noqa: N802 - atheris's name
        """Mutate ``data`` byte-wise, to at most ``max_size`` bytes."""


def guarded(fuzzer: Fuzzer) -> Callable[[bytes, int, int], bytes]:
    """Build the custom mutator for libFuzzer: :func:`mutate`, else byte-wise.

    ``fuzzer`` is the atheris module: its ``Mutate`` is looked up on each
    call, since atheris binds the working one only once ``Fuzz()`` runs.  A
    bug in a structural mutation must not stop a fuzzing campaign: that
    input is mutated byte-wise instead.
    """

    def raw_mutate(data: bytes, max_size: int) -> bytes:
        return fuzzer.Mutate(data, max_size)

    def custom_mutator(data: bytes, max_size: int, seed: int) -> bytes:
        try:
            return mutate(data, max_size, seed, raw_mutate)
        except Exception:  # noqa: BLE001 - a mutator bug must not stop the fuzzer
            return raw_mutate(data, max_size)

    return custom_mutator


def mutate(data: bytes, max_size: int, seed: int, raw_mutate: RawMutate) -> bytes:
    """Return a mutant of ``data`` of at most ``max_size`` bytes."""
    rng = random.Random(seed)  # noqa: S311 - mutation, not cryptography
    parts = split(data)
    if parts is None or rng.random() < 0.2:
        return raw_mutate(data, max_size)
    header, buffer = parts
    choice = rng.random()
    if choice < 0.35:
        mutant = _structural(header, buffer, rng, raw_mutate)
        if mutant is None:
            return raw_mutate(data, max_size)
        header, buffer = mutant
    elif choice < 0.75:
        header = raw_mutate(header, max(2 * len(header), 64))
    elif choice < 0.9:
        buffer = raw_mutate(buffer, max(2 * len(buffer), 16))
    else:
        header = _pad(header, rng)
    return join(header, buffer)[:max_size]


def _pad(header: bytes, rng: random.Random) -> bytes:
    """Add or strip whitespace around the object."""
    text = rng.choice(_WHITESPACE).encode()
    if rng.random() < 0.5:
        return text + header.lstrip()
    return header.rstrip() + text


def _structural(
    header: bytes, buffer: bytes, rng: random.Random, raw_mutate: RawMutate
) -> tuple[bytes, bytes] | None:
    """Apply one JSON-level operator; None if the header is not a JSON object."""
    try:
        root = parse(header.decode("utf-8"))
    except (ValueError, RecursionError):
        return None
    if not isinstance(root, Obj):
        return None
    operator = rng.choice(_OPERATORS)
    try:
        buffer = operator(root, buffer, rng) or buffer
        text = dump(root)
    except (ValueError, IndexError, KeyError, TypeError, RecursionError):
        return None
    if rng.random() < 0.1:
        return raw_mutate(text.encode(), max(2 * len(text), 64)), buffer
    return text.encode() + b" " * rng.randrange(8), buffer


# JSON-level operators: each edits ``root`` in place and may return a new buffer.

Operator = Callable[[Obj, bytes, random.Random], bytes | None]


def _entries(root: Obj) -> list[Obj]:
    return [v for k, v in root if k != "__metadata__" and isinstance(v, Obj)]


def _field(entry: Obj, name: str) -> object:
    return next((v for k, v in entry if k == name), None)


def _set(entry: Obj, name: str, value: object) -> None:
    for index, (key, _) in enumerate(entry):
        if key == name:
            entry[index] = (key, value)
            return
    entry.append((name, value))


def _relayout(root: Obj, buffer: bytes, rng: random.Random) -> bytes:
    """Make offsets consistent with shapes and resize the buffer: a valid file."""
    cursor = 0
    for entry in _entries(root):
        dtype = _field(entry, "dtype")
        shape = _field(entry, "shape")
        size = 0
        if dtype in _BITS and isinstance(shape, list):
            bits = _BITS[str(dtype)]
            for dim in shape:
                bits *= int(dim) if isinstance(dim, Raw) and dim.isdigit() else 1
                if bits >= 1 << 20:
                    break
            size = bits // 8 if bits < 1 << 20 else 0
        _set(entry, "data_offsets", [Raw(str(cursor)), Raw(str(cursor + size))])
        cursor += size
    if rng.random() < 0.5:
        root.sort(key=lambda member: member[0] != "__metadata__")
    return (buffer + bytes(cursor))[:cursor]


# Shapes for _retype: a scalar, empty, one-element and small ones of rank 1-3.
_SHAPES: Final = ((), (0,), (1,), (2,), (3,), (1, 1), (2, 3), (0, 5), (3, 1, 2))


def _retype(root: Obj, buffer: bytes, rng: random.Random) -> bytes:
    """Give a tensor another dtype, shape or both, and re-lay the file out.

    The file stays valid when it was (offsets tile the buffer in entry order),
    so dtype and shape combinations no seed has, such as a C64 scalar, reach
    the code that only valid files reach: the content checks and the writer.
    """
    entries = _entries(root)
    # Sometimes every tensor at once: a file then holds several new pairs.
    for entry in entries if rng.random() < 0.25 else [rng.choice(entries)]:
        change = rng.randrange(3)
        if change != 1:
            _set(entry, "dtype", rng.choice(_DTYPES))
        if change != 0:
            _set(entry, "shape", [Raw(str(dim)) for dim in rng.choice(_SHAPES)])
    return _relayout(root, buffer, rng)


def _new_tensor(root: Obj, buffer: bytes, rng: random.Random) -> bytes:
    """Add a tensor at the end of the buffer (or overlapping another)."""
    dtype = rng.choice(_DTYPES)
    dims = [rng.choice((1, 2, 3, 4, 8)) for _ in range(rng.randrange(3))]
    bits = _BITS[dtype]
    for dim in dims:
        bits *= dim
    size = -(-bits // 8)
    begin = len(buffer) if rng.random() < 0.8 else rng.randrange(len(buffer) + 1)
    entry = Obj(
        [
            ("dtype", dtype),
            ("shape", [Raw(str(d)) for d in dims]),
            ("data_offsets", [Raw(str(begin)), Raw(str(begin + size))]),
        ]
    )
    root.insert(rng.randrange(len(root) + 1), (_name(rng), entry))
    return buffer + bytes(max(0, begin + size - len(buffer)))


def _name(rng: random.Random) -> str:
    return rng.choice(("w", "a.b", "", "__metadata__", "é", "\\", '"', "-0", "w"))


def _set_number(root: Obj, buffer: bytes, rng: random.Random) -> None:
    """Replace one dimension or offset with an edge-case number."""
    del buffer
    entry = rng.choice(_entries(root))
    values = _field(entry, rng.choice(("shape", "data_offsets")))
    if isinstance(values, list):
        if values and rng.random() < 0.8:
            values[rng.randrange(len(values))] = Raw(rng.choice(_NUMBERS))
        else:
            values.insert(rng.randrange(len(values) + 1), Raw(rng.choice(_NUMBERS)))


def _set_dtype(root: Obj, buffer: bytes, rng: random.Random) -> None:
    del buffer
    odd = ("f32", "F8", "", "F32 ", "BOOL8", "float32")
    name = rng.choice(_DTYPES) if rng.random() < 0.8 else rng.choice(odd)
    _set(rng.choice(_entries(root)), "dtype", name)


def _replace_value(root: Obj, buffer: bytes, rng: random.Random) -> None:
    """Replace a member, a field or the metadata with an odd scalar."""
    del buffer
    value = Raw(rng.choice(_SCALARS))
    target = rng.choice((root, *_entries(root)))
    if target:
        index = rng.randrange(len(target))
        target[index] = (target[index][0], value)


def _duplicate(root: Obj, buffer: bytes, rng: random.Random) -> None:
    """Repeat a member (top level or inside an entry)."""
    del buffer
    target = rng.choice((root, *_entries(root)))
    if target:
        target.insert(rng.randrange(len(target) + 1), rng.choice(target))


def _remove(root: Obj, buffer: bytes, rng: random.Random) -> None:
    del buffer
    target = rng.choice((root, *_entries(root)))
    if target:
        del target[rng.randrange(len(target))]


def _shuffle(root: Obj, buffer: bytes, rng: random.Random) -> None:
    del buffer
    rng.shuffle(root)


def _metadata(root: Obj, buffer: bytes, rng: random.Random) -> None:
    """Set ``__metadata__`` to strings, an empty object or a wrong type."""
    del buffer
    choices: list[object] = [
        Obj([("format", "pt")]),
        Obj([]),
        Obj([("k", Raw("1"))]),
        Obj([("k", "v"), ("k", "w")]),
        Raw("null"),
        Raw("[]"),
        Obj([("\\ud800", "x")]),
    ]
    value = rng.choice(choices)
    for index, (key, _) in enumerate(root):
        if key == "__metadata__":
            root[index] = (key, value)
            return
    root.insert(0, ("__metadata__", value))


def _extra_field(root: Obj, buffer: bytes, rng: random.Random) -> None:
    del buffer
    value = rng.choice((Raw("null"), Raw("1"), "x", Obj([]), [Raw("[]")]))
    rng.choice(_entries(root)).append((rng.choice(("extra", "data_offset")), value))


# Depths around the spec's limit (127, HF's too) and far past it, where a
# recursive parser overflows the stack; within -max_len=8192 up to ~4000.
_DEPTHS: Final = (126, 127, 128, 129, 130, 200, 1000, 3000)


def _nest(root: Obj, buffer: bytes, rng: random.Random) -> None:
    """Bury a value under nested arrays or objects, somewhere in the header."""
    del buffer
    depth = rng.choice(_DEPTHS) + rng.randrange(-2, 3)
    if rng.random() < 0.5:
        value = Raw("[" * depth + "]" * depth)
    else:
        value = Raw('{"a":' * depth + "1" + "}" * depth)
    where = rng.random()
    entries = _entries(root)
    if where < 0.4 and entries:
        rng.choice(entries).append(("deep", value))
    elif where < 0.6:
        root.insert(rng.randrange(len(root) + 1), ("deep", value))
    elif where < 0.8 and entries:
        _set(rng.choice(entries), rng.choice(("dtype", "shape")), value)
    else:
        _set_metadata_member(root, "deep", value)


def _set_metadata_member(root: Obj, key: str, value: object) -> None:
    """Add a member to ``__metadata__`` (made an object if it is not one)."""
    for index, (name, meta) in enumerate(root):
        if name == "__metadata__" and isinstance(meta, Obj):
            meta.append((key, value))
            return
        if name == "__metadata__":
            root[index] = (name, Obj([(key, value)]))
            return
    root.insert(0, ("__metadata__", Obj([(key, value)])))


def escape(name: str, rng: random.Random, *, every: bool = False) -> Key:
    r"""Spell ``name`` with \u escapes (at least one), as JSON text.

    Characters outside the BMP become a surrogate pair of escapes; an empty
    name stays empty (nothing to escape).
    """
    if not name:
        return Key('""')
    chosen = set(range(len(name))) if every else set()
    if not chosen:
        chosen = {rng.randrange(len(name))}
        chosen |= {i for i in range(len(name)) if rng.random() < 0.2}
    parts = []
    for index, char in enumerate(name):
        if index not in chosen:
            parts.append(_string(char)[1:-1])
            continue
        code = ord(char)
        if code > 0xFFFF:
            code -= 0x10000
            parts.append(
                f"\\u{0xD800 + (code >> 10):04x}\\u{0xDC00 + (code & 0x3FF):04x}"
            )
        else:
            parts.append(f"\\u{code:04x}" if rng.random() < 0.7 else f"\\u{code:04X}")
    return Key('"' + "".join(parts) + '"')


def _objects(root: Obj) -> list[Obj]:
    """Return the header, every entry and the metadata: the named objects."""
    found = [root, *_entries(root)]
    found += [v for k, v in root if k == "__metadata__" and isinstance(v, Obj)]
    return found


def _respell(root: Obj, buffer: bytes, rng: random.Random) -> None:
    """Write one member name with escapes: same name, other bytes."""
    del buffer
    target = rng.choice([o for o in _objects(root) if o] or [root])
    if target:
        index = rng.randrange(len(target))
        name, value = target[index]
        target[index] = (escape(str(name), rng), value)


def _escaped_duplicate(root: Obj, buffer: bytes, rng: random.Random) -> None:
    """Repeat a member under an escaped spelling of its name.

    The pair is a duplicate only after unescaping, so a parser that compares
    raw spellings misses it; the copy sometimes comes first and sometimes
    carries another value, so a reader that keeps one of them loads it.
    """
    del buffer
    target = rng.choice([o for o in _objects(root) if o] or [root])
    if not target:
        return
    name, value = rng.choice(target)
    if name == "dtype" and rng.random() < 0.5:
        value = rng.choice(_DTYPES)
    copy = (escape(str(name), rng), value)
    target.insert(rng.randrange(len(target) + 1), copy)


# Strings the spec singles out: lone and reversed surrogates (JSON-SURROGATE),
# a non-BMP character raw and as its escaped pair, and look-alikes.
_ODD_STRINGS: Final = (
    Raw('"\\ud800"'), Raw('"\\udfff"'), Raw('"a\\ud83d"'), Raw('"\\ude00\\ud83d"'),
    Raw('"\\ud83d\\ude00"'), "\U0001f600", Raw('"\\u0000"'), Raw('"\\u00e9"'), "\u00e9",
    Raw('"\\uD800\\uDC00"'), Raw('"\\ud800\\u0041"'),
)  # fmt: skip


def _odd_string(root: Obj, buffer: bytes, rng: random.Random) -> None:
    """Put a surrogate or non-BMP spelling into a name, a dtype or metadata."""
    del buffer
    text = rng.choice(_ODD_STRINGS)
    where = rng.random()
    entries = _entries(root)
    if where < 0.35 and root:
        index = rng.randrange(len(root))
        spelt = Key(text) if isinstance(text, Raw) else text
        root[index] = (spelt, root[index][1])
    elif where < 0.5 and entries:
        _set(rng.choice(entries), "dtype", text)
    elif where < 0.75:
        _set_metadata_member(root, "k", text)
    else:
        key = Key(text) if isinstance(text, Raw) else text
        _set_metadata_member(root, key, "v")


_OPERATORS: Final[tuple[Operator, ...]] = (
    _relayout,
    _relayout,
    _retype,
    _retype,
    _retype,
    _retype,
    _new_tensor,
    _set_number,
    _set_number,
    _set_dtype,
    _replace_value,
    _duplicate,
    _remove,
    _shuffle,
    _metadata,
    _extra_field,
    _nest,
    _nest,
    _respell,
    _escaped_duplicate,
    _escaped_duplicate,
    _odd_string,
)
