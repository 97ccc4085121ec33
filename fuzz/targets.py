"""Fuzz oracles: plain check functions shared by the atheris harnesses and pytest.

Each ``check_*`` takes the fuzzer's bytes and returns None, or raises
AssertionError (an oracle failed) or lets an unexpected exception escape (the
code under test crashed).  Nothing here imports atheris, so the regression
inputs in ``fuzz/regressions/`` replay in any CI job.
"""

from __future__ import annotations

import atexit
import contextlib
import functools
import json
import os
import re
import shutil
import struct
import sys
import tempfile
from pathlib import Path
from typing import TYPE_CHECKING, Final, TypeVar

import stspec
from stspec.dtypes import BITS, RANK, bit_count
from stspec.reader import pipeline as _reader
from stspec.reader.report import PARSE_RULES
from stspec.rules import U64_MAX

if TYPE_CHECKING:
    from collections.abc import Callable, Collection, Mapping

    from stspec.reader.plain import Valid
    from stspec_conformance._model import Content, Outcome
    from stspec_conformance.adapters import Adapter

READER_RULES: Final = frozenset(r.id for r in stspec.RULES if r.scope == "reader")
MUST_RULES: Final = frozenset(r.id for r in stspec.RULES if r.level == "MUST")
# Known deviations of HF safetensors 0.8.0 (docs/explanation/fuzzing.md): it accepts
# repeated names, positional-array entries and serde's map form of an enum
# ({"F32": null} as a dtype), and refuses a shape whose product overflows
# before a zero dimension makes it empty.
HF_DEVIATIONS: Final = frozenset(
    {"KEY-UNIQUE", "ENTRY-OBJECT", "DTYPE-NAME", "SIZE-OVERFLOW"}
)
DIFFERENTIAL_TIMEOUT: Final = 10.0  # seconds, for cmd: implementations only

RawTensors = dict[str, tuple[str, tuple[int, ...], bytes]]
Request = dict[str, tuple[str, list[object], bytes | bytearray | memoryview]]
T = TypeVar("T")


# Known open findings ------------------------------------------------------------

_SUPPRESS: Final = os.environ.get("STSPEC_FUZZ_SUPPRESS", "")
SUPPRESSED: dict[str, int] = {}


def suppressed(check: Callable[..., object], *args: object, **kwargs: object) -> None:
    """Run ``check``; an AssertionError matching $STSPEC_FUZZ_SUPPRESS is counted.

    A long campaign cannot wait for a reported bug to be fixed: every job would
    stop at its next occurrence.  The regular expression names the known open
    findings (each with a file in fuzz/regressions/); matches are counted on
    stderr, the first of each kind shown in full, and fuzzing goes on.
    """
    try:
        check(*args, **kwargs)
    except AssertionError as error:
        message = str(error)
        found = re.search(_SUPPRESS, message) if _SUPPRESS else None
        if found is None:
            raise
        key = found.group(0)
        SUPPRESSED[key] = SUPPRESSED.get(key, 0) + 1
        if SUPPRESSED[key] & (SUPPRESSED[key] - 1) == 0:  # 1, 2, 4, 8, ...
            print(f"suppressed x{SUPPRESSED[key]}: {message[:300]}", file=sys.stderr)


# check_reader ----------------------------------------------------------------


def check_reader(data: bytes) -> None:
    """Hold the reference reader to its contract on arbitrary bytes.

    * ``validate`` and ``read`` raise nothing but SafetensorsError (read) or
      nothing at all (validate); RecursionError, MemoryError, IndexError...
      escape and are findings;
    * every error names a registered reader rule at an offset inside the input,
      and errors come sorted by offset;
    * ``read`` succeeds iff ``validate`` returns [], and otherwise raises
      validate's first error;
    * the shortcuts (regular expressions, the C decoder) never change a
      verdict: with and without them the same errors, or the same content;
    * an accepted file's tensors tile its buffer, and the file serialises again
      into a canonical file with the same content.
    """
    errors = stspec.validate(data)
    _check_errors(errors, len(data))
    view = memoryview(data)
    # Looked up through the module, so that a test can break either mode.
    if below_cap(errors, len(data)):
        # validate() was this very run: its limit never came into play.
        fast_errors, fast = errors, None
    else:
        fast_errors, fast = _reader.check(view, limit=None)
    strict_errors, strict = _reader.check(view, limit=None, shortcuts=False)
    assert (strict is None) == bool(strict_errors), (
        f"strict path returned a header and errors {_rules(strict_errors)}"
    )
    if fast is not None:
        assert strict is not None, (
            f"fast path accepted a file the strict path rejects: {strict_errors[0]}"
        )
        assert _summary(fast) == _summary(strict), (
            "fast and strict paths accept the file with different content"
        )
    assert _located(fast_errors) == _located(strict_errors), (
        f"the shortcuts change the errors: {_change(fast_errors, strict_errors)}"
    )
    assert _located(errors) == _located(_capped(strict_errors)), (
        "validate() disagrees with the strict path"
    )
    # read() first judges a large header's first bytes alone; cut wherever
    # (here where the input says), an answer from them is validate()'s first.
    cut = 1 + len(data) * 40503 % max(len(data) - 8, 1)
    early = _reader._early(view, cut, shortcuts=True)  # noqa: SLF001
    if early is not None:
        assert errors, f"the first {cut} bytes give {early[0]}, validate() nothing"
        assert (early[0].rule, early[0].offset) == (errors[0].rule, errors[0].offset), (
            f"the first {cut} bytes give {early[0]}, validate()'s first is {errors[0]}"
        )
    file = _refusal(lambda: stspec.read(data))
    if isinstance(file, stspec.SafetensorsError):
        assert errors, f"read() raised {file} but validate() found nothing"
        # READ-PRECEDENCE: the first MUST violation, else the first one.
        first = next((e for e in errors if e.rule in MUST_RULES), errors[0])
        assert (file.rule, file.offset) == (first.rule, first.offset), (
            f"read() raised {file}, validate()'s first MUST error is {first}"
        )
        return
    with file:
        assert not errors, f"read() accepted a file validate() rejects: {errors[0]}"
        _check_accepted(file, data)


def below_cap(errors: list[stspec.SafetensorsError], size: int) -> bool:
    """Whether validate()'s run is the uncapped shortcut run, so need not be redone.

    A per-rule limit changes a run only once some rule has that many findings
    (``Report`` consults it nowhere else), so a run whose every rule stayed
    below it did exactly what the uncapped run does.  Its final counts show
    this only if none were forgotten: a parse stop drops every finding but the
    parse faults, so a rule outside those proves the parse did not stop.  An
    accepted file is re-run all the same, for the content it yields.
    (About a third of a campaign's inputs qualify; tests/fuzz checks the
    equality on the corpus and the regressions.)
    """
    if not errors or getattr(errors, "omitted", None):
        return False
    counts: dict[str, int] = {}
    for error in errors:
        counts[error.rule] = counts.get(error.rule, 0) + 1
    cap = min(_reader.LIMIT, size + 1)
    return max(counts.values()) < cap and not counts.keys() <= PARSE_RULES


def _refusal(call: Callable[[], T]) -> T | stspec.SafetensorsError:
    """Return what ``call`` returns, or the SafetensorsError it raises."""
    try:
        return call()
    except stspec.SafetensorsError as exc:
        return exc


def _rules(errors: list[stspec.SafetensorsError]) -> list[tuple[str, int | None]]:
    return [(error.rule, error.offset) for error in errors]


def _capped(errors: list[stspec.SafetensorsError]) -> list[stspec.SafetensorsError]:
    """Keep what validate() lists: the first LIMIT errors of each rule."""
    counts: dict[str, int] = {}
    listed = []
    for error in errors:
        counts[error.rule] = counts.get(error.rule, 0) + 1
        if counts[error.rule] <= _reader.LIMIT:
            listed.append(error)
    return listed


def _located(errors: list[stspec.SafetensorsError]) -> list[tuple[object, ...]]:
    return [(error.rule, error.offset, error.path) for error in errors]


def _change(
    fast: list[stspec.SafetensorsError], strict: list[stspec.SafetensorsError]
) -> str:
    """Say how two error lists differ (reordering alone is named as such)."""
    if sorted(map(repr, _located(fast))) == sorted(map(repr, _located(strict))):
        return "the same errors in another order (at one offset)"
    return f"{_rules(fast)[:4]} with them, {_rules(strict)[:4]} without"


def _summary(valid: Valid) -> tuple[object, ...]:
    return (valid.header_length, valid.metadata, list(valid.tensors.items()))


def _check_errors(errors: list[stspec.SafetensorsError], size: int) -> None:
    previous = 0
    for error in errors:
        assert type(error) is stspec.SafetensorsError, repr(error)
        assert error.rule in READER_RULES, f"{error}: not a reader rule"
        offset = error.offset
        assert isinstance(offset, int), f"{error}: offset {offset!r}"
        assert 0 <= offset <= size, f"{error}: offset outside the {size}-byte input"
        assert offset >= previous, f"errors not sorted by offset: {_rules(errors)}"
        previous = offset
        assert isinstance(error.path, tuple), f"{error}: path {error.path!r}"
        # The CLI prints messages: they must survive a strict UTF-8 stream.
        str(error).encode("utf-8")


def _check_accepted(file: stspec.SafetensorsFile, data: bytes) -> None:
    header_length = int.from_bytes(data[:8], "little")
    assert file.header_length == header_length
    assert file.data_start == 8 + header_length
    assert file.file_length == len(data)
    buffer_length = len(data) - file.data_start
    metadata = file.metadata
    if metadata is not None:
        assert all(type(k) is str and type(v) is str for k, v in metadata.items())
        _encodable(*metadata, *metadata.values())
    ranges = []
    tensors: RawTensors = {}
    for name, info in file.tensors.items():
        assert info.name == name, f"{info} listed as {name!r}"
        assert name != "__metadata__"
        _encodable(name)
        assert info.dtype in BITS, f"{info}: unknown dtype"
        assert 0 <= info.begin <= info.end <= buffer_length, f"{info} outside buffer"
        assert bit_count(info.dtype, info.shape) == 8 * info.nbytes, (
            f"{info}: size does not match the shape"
        )
        start = file.data_start
        view = file.tensor_bytes(name)
        try:
            raw = bytes(view)
        finally:
            view.release()
        assert raw == data[start + info.begin : start + info.end], f"{info}: bytes"
        ranges.append((info.begin, info.end))
        tensors[name] = (info.dtype, tuple(info.shape), raw)
    cursor = 0
    for begin, end in sorted(ranges):
        assert begin == cursor, f"accepted a buffer with a hole or overlap at {begin}"
        cursor = end
    assert cursor == buffer_length, "accepted a buffer with trailing bytes"
    _check_independently(file, data[8 : 8 + header_length])
    _check_reserialised(tensors, metadata)


def _unique(pairs: list[tuple[str, object]]) -> dict[str, object]:
    names = [name for name, _ in pairs]
    repeated = {name for name in names if names.count(name) > 1}
    assert not repeated, f"accepted a header repeating {sorted(repeated)!r:.200}"
    return dict(pairs)


def _check_independently(file: stspec.SafetensorsFile, header: bytes) -> None:
    """Read the accepted header with the stdlib json module: the same answer.

    Every other check compares the reader with itself, so a fault in code its
    paths share (a repeated name spelt with an escape, missed by both) passes
    them; json unescapes every name before the repeat check here.
    """
    members = json.loads(header.decode("utf-8"), object_pairs_hook=_unique)
    assert members.pop("__metadata__", None) == file.metadata, "metadata differs"
    assert list(members) == list(file.tensors), "tensor names differ"
    for name, entry in members.items():
        info = file.tensors[name]
        seen = (info.dtype, list(info.shape), [info.begin, info.end])
        assert entry == dict(
            zip(("dtype", "shape", "data_offsets"), seen, strict=True)
        ), f"{name!r}: json reads {entry!r:.200}, the reader {seen!r:.200}"


def _encodable(*texts: str) -> None:
    for text in texts:
        text.encode("utf-8")  # a lone surrogate raises UnicodeEncodeError


def _check_reserialised(tensors: RawTensors, metadata: dict[str, str] | None) -> None:
    out = stspec.serialize(tensors, metadata)
    with stspec.read(out) as again:
        assert again.metadata == metadata, "metadata changed through serialize()"
        content = _raw_tensors(again)
    assert content == tensors, "tensors changed through serialize()"
    assert stspec.serialize(content, metadata) == out, "serialize() is not canonical"


def _raw_tensors(file: stspec.SafetensorsFile) -> RawTensors:
    tensors: RawTensors = {}
    for name, info in file.tensors.items():
        view = file.tensor_bytes(name)
        try:
            tensors[name] = (info.dtype, tuple(info.shape), bytes(view))
        finally:
            view.release()
    return tensors


# check_differential -------------------------------------------------------------


def check_differential(
    data: bytes,
    adapter: Adapter,
    *,
    ignore_rules: Collection[str] = (),
    timeout: float | None = None,
) -> None:
    """Hold an implementation to the reference's verdict on ``data``.

    * a crash, an uncaught exception (RecursionError and MemoryError
      included), a hang or a malformed answer is always a finding;
    * valid (no rule broken): the implementation accepts, with the reference's
      metadata and tensor bytes; a rejection it classifies as one of
      ``ignore_rules`` is a known deviation;
    * invalid (a MUST rule broken): it rejects, unless the file breaks one of
      ``ignore_rules`` (then either answer is fine);
    * tolerated (only MAY rules broken): either answer is fine, and the content
      of an acceptance is not compared (the strict reference cannot read it).

    ``timeout`` bounds external commands (default 10 s); in-process
    implementations run unbounded, so the fuzzer's own -timeout applies.
    """
    errors = stspec.validate(data)
    rules = {error.rule for error in errors}
    verdict = stspec.verdict_of(rules)
    outcome = _attempt(adapter, data, timeout)
    about = f"{adapter.label()}, file {verdict} {sorted(rules)}"
    assert not outcome.failed_hard, f"{about}: {outcome.describe()}"
    if verdict == "valid":
        if outcome.status == "rejected":
            assert outcome.rule in ignore_rules, f"{about}: {outcome.describe()}"
            return
        assert outcome.content is not None
        problems = outcome.content.differences(_reference_content(data))
        assert not problems, f"{about}: {'; '.join(problems)}"
    elif verdict == "invalid" and not rules & set(ignore_rules):
        assert outcome.status == "rejected", f"{about}: {outcome.describe()}"


def _attempt(adapter: Adapter, data: bytes, timeout: float | None) -> Outcome:
    from stspec_conformance.adapters import InProcessAdapter  # noqa: PLC0415 - pytest

    if timeout is None:
        timeout = 0.0 if isinstance(adapter, InProcessAdapter) else DIFFERENTIAL_TIMEOUT
    path = scratch() / "input.safetensors"
    path.write_bytes(data)
    return adapter.attempt_load(str(path), timeout=timeout)


def _reference_content(data: bytes) -> Content:
    from stspec_conformance.adapters import content_from_raw  # noqa: PLC0415

    with stspec.read(data) as file:
        return content_from_raw((_raw_tensors(file), file.metadata))


_SCRATCH: list[Path] = []


def scratch() -> Path:
    """Return a private directory for the files the checks write (on tmpfs)."""
    if not _SCRATCH:
        shm = Path("/dev/shm")  # noqa: S108 - a private mkdtemp directory inside it
        base = shm if shm.is_dir() and os.access(shm, os.W_OK) else None
        _SCRATCH.append(Path(tempfile.mkdtemp(prefix="stspec-fuzz-", dir=base)))
        atexit.register(shutil.rmtree, _SCRATCH[0], ignore_errors=True)
    return _SCRATCH[0]


# check_roundtrip -----------------------------------------------------------------

_DTYPE_NAMES: Final = tuple(dtype.name for dtype in stspec.DTYPES)
_BAD_DTYPES: Final = ("f32", "F8", "", "float32", "F32 ", "__metadata__")
# Characters for names and metadata: JSON escapes, controls, non-ASCII of
# every UTF-8 length, and look-alikes of the fast path's doubts ("-0",
# "\\ud8"); rarely, a lone surrogate the writer must refuse.
_ALPHABET: Final = 'ab.0-_/ "\\\x00\x1f\x7f\u00e9\u20ac\U0001d11e\u2028\ufeffud8'
_SURROGATES: Final = "\ud800\udfff"
_DIMS: Final = (0, 1, 2, 3, 4, 2**32, 2**61, 2**63, U64_MAX, 2**64, -1, True, 1.0)
_MAX_TENSOR: Final = 4096


class _Cursor:
    """Reads the fuzzer's bytes as a stream of choices (zeros when exhausted)."""

    def __init__(self, data: bytes) -> None:
        self.data = data
        self.pos = 0

    def byte(self) -> int:
        value = self.data[self.pos] if self.pos < len(self.data) else 0
        self.pos += 1
        return value

    def take(self, count: int) -> bytes:
        chunk = self.data[self.pos : self.pos + count]
        self.pos += count
        return chunk + bytes(count - len(chunk))

    def text(self) -> str:
        length = self.byte()
        if length == 255:
            return "__metadata__"
        return "".join(self.char() for _ in range(length % 12))

    def char(self) -> str:
        code = self.byte()
        if code >= 254:
            return _SURROGATES[code - 254]
        return _ALPHABET[code % len(_ALPHABET)]


def decode_request(data: bytes) -> tuple[Request, dict[str, str] | None]:
    """Turn fuzzer bytes into a write request: (tensors, metadata).

    The request is usually valid; names and strings may hold lone surrogates or
    be ``__metadata__``, dtypes may be unknown, dimensions negative, huge,
    boolean or float, and data may be a byte short, so that every refusal of
    the writer is reachable.  Data comes as bytes, a bytearray or a strided
    memoryview (which the writer must copy in logical order).
    """
    cursor = _Cursor(data)
    mode = cursor.byte() % 4
    metadata: dict[str, str] | None = None if mode == 0 else {}
    if metadata is not None and mode > 1:
        for _ in range(1 + cursor.byte() % 4):
            key = cursor.text()
            metadata[key] = cursor.text()
    tensors: Request = {}
    for _ in range(cursor.byte() % 6):
        name = cursor.text()
        code = cursor.byte()
        dtype = _DTYPE_NAMES[code % 22] if code < 250 else _BAD_DTYPES[code % 6]
        shape: list[object] = []
        for _ in range(cursor.byte() % 5):
            code = cursor.byte()
            shape.append(code % 5 if code < 243 else _DIMS[code - 243])
        size = _byte_size(dtype, shape)
        size = 0 if size is None or size > _MAX_TENSOR else size
        if size and cursor.byte() == 255:
            size -= 1
        tensors[name] = (dtype, shape, _buffer(cursor.take(size), cursor.byte()))
    return tensors, metadata


def _buffer(raw: bytes, kind: int) -> bytes | bytearray | memoryview:
    if kind % 3 == 1:
        return bytearray(raw)
    if kind % 3 == 2:
        # Every other byte of a twice-as-long buffer: not C-contiguous.
        spread = bytearray(2 * len(raw))
        spread[::2] = raw
        return memoryview(spread)[::2]
    return raw


def _byte_size(dtype: str, shape: list[object]) -> int | None:
    """Bytes the tensor needs, or None if the request cannot be sized."""
    dims = [dim for dim in shape if type(dim) is int and dim >= 0]
    if dtype not in BITS or len(dims) != len(shape):
        return None
    bits = bit_count(dtype, dims)
    if bits % 8:
        return None
    return bits // 8


def _expected_refusals(
    tensors: Request,
    metadata: Mapping[str, str] | None,
) -> set[str]:
    """Work out the rules a write request breaks, independently of the writer."""
    faults: set[str] = set()
    for key, value in (metadata or {}).items():
        if not (_utf8(key) and _utf8(value)):
            faults.add("JSON-SURROGATE")
    for name, (dtype, shape, raw) in tensors.items():
        if name == "__metadata__":
            faults.add("WRITE-RESERVED")
        if not _utf8(name):
            faults.add("JSON-SURROGATE")
        faults |= _entry_refusals(dtype, shape, len(raw))
    return faults


def _entry_refusals(dtype: str, shape: list[object], size: int) -> set[str]:
    if dtype not in BITS:
        return {"DTYPE-NAME"}
    faults = {_dim_refusal(dim) for dim in shape} - {""}
    if faults:
        return faults
    dims = [int(dim) for dim in shape]  # type: ignore[call-overload]
    bits = 0 if 0 in dims else BITS[dtype]
    for dim in dims:
        bits *= dim
    if bits > U64_MAX:
        return {"SIZE-OVERFLOW"}
    if bits % 8:
        return {"SIZE-BITS"}
    if size != bits // 8:
        return {"SIZE-MATCH"}
    return set()


def _dim_refusal(dim: object) -> str:
    if type(dim) is float or (type(dim) is int and dim < 0):
        return "NUM-INTEGER"
    if type(dim) is int:
        return "NUM-RANGE" if dim > U64_MAX else ""
    return "SHAPE-ARRAY"  # bool


def _utf8(text: str) -> bool:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def check_roundtrip(data: bytes) -> None:
    """Serialise the request ``data`` decodes to, read it back, compare.

    A request that breaks a writer rule must be refused with one of the rules
    it breaks (offset None) by both serialize() and write(), which then leaves
    no file behind.  Otherwise the bytes must be exactly the canonical file
    (built here independently with json.dumps), read back to the same content,
    serialise again to the same bytes, take the reader's fast path, and be
    what write() puts on disk.
    """
    tensors, metadata = decode_request(data)
    refusals = _expected_refusals(tensors, metadata)
    target = scratch() / "roundtrip.safetensors"
    with contextlib.suppress(FileNotFoundError):
        target.unlink()
    if refusals:
        for call in (stspec.serialize, functools.partial(stspec.write, target)):
            error = _refusal(functools.partial(call, tensors, metadata))  # type: ignore[arg-type]
            assert isinstance(error, stspec.SafetensorsError), (
                f"a request breaking {sorted(refusals)} was written"
            )
            assert error.rule in refusals, f"refused with {error}, expected {refusals}"
            assert error.offset is None, f"a write refusal with an offset: {error}"
        left = [p.name for p in scratch().iterdir() if "roundtrip" in p.name]
        assert not left, f"a refused write left {left} behind"
        return
    out = stspec.serialize(tensors, metadata)  # type: ignore[arg-type]
    expected = _canonical(tensors, metadata)
    assert out == expected, f"not canonical:\n{out[:200]!r}\n{expected[:200]!r}"
    assert stspec.validate(out) == [], f"wrote an invalid file: {stspec.validate(out)}"
    with stspec.read(out) as file:
        assert file.metadata == metadata, "metadata changed"
        content = _raw_tensors(file)
    wanted = {name: (t[0], tuple(t[1]), bytes(t[2])) for name, t in tensors.items()}
    assert content == wanted, "tensors changed"
    assert stspec.serialize(content, file.metadata) == out, "not idempotent"
    stspec.write(target, tensors, metadata)  # type: ignore[arg-type]
    assert target.read_bytes() == out, "write() and serialize() differ"


def _canonical(
    tensors: Request,
    metadata: Mapping[str, str] | None,
) -> bytes:
    """Build the spec's canonical file (WRITE-CANONICAL) the obvious way."""
    header: dict[str, object] = {}
    if metadata is not None:
        header["__metadata__"] = dict(sorted(metadata.items()))
    begin = 0
    chunks = []
    for name in sorted(tensors, key=lambda n: (-RANK[tensors[n][0]], n)):
        dtype, shape, raw = tensors[name]
        offsets = [begin, begin + len(raw)]
        header[name] = {"dtype": dtype, "shape": shape, "data_offsets": offsets}
        begin += len(raw)
        chunks.append(bytes(raw))
    text = json.dumps(header, separators=(",", ":"), ensure_ascii=False).encode()
    text += b" " * (-len(text) % 8)
    return b"".join([struct.pack("<Q", len(text)), text, *chunks])


__all__ = [
    "HF_DEVIATIONS",
    "SUPPRESSED",
    "below_cap",
    "check_differential",
    "check_reader",
    "check_roundtrip",
    "decode_request",
    "scratch",
    "suppressed",
]
