"""What a load produced, as digests the suite can compare with the manifest."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, BinaryIO, Literal

from stspec.audit.terminal import escape

if TYPE_CHECKING:
    from collections.abc import Mapping

Status = Literal[
    "accepted",
    "rejected",
    "crashed",
    "exception",
    "hung",
    "resource",
    "invalid-output",
    "fail-open",
]
# No verdict: a failure whatever the case says (see ``_outcomes``).
HARD_FAILURES = frozenset(
    {"crashed", "exception", "hung", "resource", "invalid-output", "fail-open"}
)

# Tensors above this size are not hashed whole (4 GiB of sparse zeros would
# take longer than the whole suite may): their digest holds the sha256 of
# WINDOW-byte windows at the start, the middle and the end instead, which the
# checks compare with the same windows of the file (see ``windows_of``).
HASH_LIMIT = 256 * 1024 * 1024
WINDOW = 1024 * 1024


def window_starts(size: int) -> list[int]:
    """Where the windows of a ``size``-byte tensor start: start, middle, end."""
    return sorted({0, max(0, size // 2 - WINDOW // 2), max(0, size - WINDOW)})


def window_digests(view: memoryview) -> tuple[tuple[int, str], ...]:
    """sha256 of three windows of a large buffer: start, middle, end."""
    starts = window_starts(view.nbytes)
    return tuple(
        (start, hashlib.sha256(view[start : start + WINDOW]).hexdigest())
        for start in starts
    )


def window_digests_at(
    file: BinaryIO, offset: int, size: int
) -> tuple[tuple[int, str], ...]:
    """The same windows as :func:`window_digests`, read from an open file."""
    out = []
    for start in window_starts(size):
        file.seek(offset + start)
        out.append(
            (start, hashlib.sha256(file.read(min(WINDOW, size - start))).hexdigest())
        )
    return tuple(out)


def flat_bytes(data: bytes | memoryview) -> memoryview:
    """The bytes of any buffer, in C order, as a one-dimensional byte view.

    A reader may return ``bytes``, a memoryview of an mmap or a numpy array
    of any rank, empty (a zero dimension) or not contiguous (a transposed
    view).  ``memoryview.cast`` handles only a C-contiguous, non-empty buffer
    of a native format; anything else is copied into C order
    (``tobytes``), so the digest is of what the reader returned, never an
    error of the suite's own.
    """
    view = memoryview(data)
    if view.nbytes == 0:
        return memoryview(b"")
    if view.c_contiguous:
        try:
            return view.cast("B")
        except (TypeError, ValueError):  # a format cast does not know
            pass
    return memoryview(view.tobytes())


@dataclass(frozen=True, slots=True)
class TensorDigest:
    """One loaded tensor: its dtype, shape and the digest of its raw bytes."""

    dtype: str
    shape: tuple[int, ...]
    nbytes: int
    sha256: str  # "" when only ``windows`` were taken (above HASH_LIMIT)
    windows: tuple[tuple[int, str], ...] = ()

    @property
    def has_bytes(self) -> bool:
        """False for a header-only validator's answer: dtype and shape only."""
        return bool(self.sha256 or self.windows)

    @classmethod
    def of(
        cls, dtype: str, shape: tuple[int, ...], data: bytes | memoryview
    ) -> TensorDigest:
        """Digest raw bytes (hashed without a copy; sampled above HASH_LIMIT).

        ``data`` is any buffer a reader returns (see :func:`flat_bytes`).
        """
        view = flat_bytes(data)
        if view.nbytes > HASH_LIMIT:
            return cls(dtype, shape, view.nbytes, "", window_digests(view))
        return cls(dtype, shape, view.nbytes, hashlib.sha256(view).hexdigest())

    def matches(self, other: TensorDigest) -> bool:
        """Equal dtype, shape and bytes (``nbytes`` -1 means "not reported").

        When either side only has windows, the windows are compared; when
        either side has no bytes at all (header only), bytes are not compared.
        """
        same_bytes = (
            True
            if not (self.has_bytes and other.has_bytes)
            else self.windows == other.windows
            if "" in {self.sha256, other.sha256}
            else self.sha256 == other.sha256
        )
        return (
            self.dtype == other.dtype
            and self.shape == other.shape
            and same_bytes
            and (self.nbytes == other.nbytes or -1 in {self.nbytes, other.nbytes})
        )

    def describe(self) -> str:
        """Render the digest for a failure message."""
        shape = list(self.shape)
        digest = (
            f"sha256 {self.sha256[:12]}"
            if self.sha256
            else f"windows {self.windows}"
            if self.windows
            else "(no bytes)"
        )
        size = f"{self.nbytes} bytes" if self.nbytes >= 0 else "(size not given)"
        return f"{self.dtype}{shape} {size} {digest}"


@dataclass(frozen=True, slots=True)
class Content:
    """Everything a reader returns for a file: metadata and tensor digests."""

    metadata: dict[str, str] | None
    tensors: dict[str, TensorDigest]
    # (count, sha256 of the canonical JSON of the tensor list) instead of tensors
    summary: tuple[int, str] | None = None

    @classmethod
    def from_expected(cls, expected: Mapping[str, Any]) -> Content:
        """Build the content a manifest case's ``expected`` block describes."""
        if "tensors" not in expected:  # the compact form of huge tensor lists
            return cls(
                expected.get("metadata"),
                {},
                (int(expected["tensor_count"]), str(expected["tensors_sha256"])),
            )
        tensors = {
            name: TensorDigest(
                str(entry["dtype"]),
                tuple(int(dim) for dim in entry["shape"]),
                int(entry["nbytes"]),
                str(entry["sha256"]),
            )
            for name, entry in expected["tensors"].items()
        }
        metadata = expected.get("metadata")
        return cls(None if metadata is None else dict(metadata), tensors)

    @classmethod
    def from_raw(
        cls,
        tensors: Mapping[str, tuple[str, tuple[int, ...] | list[int], bytes]],
        metadata: Mapping[str, str] | None,
    ) -> Content:
        """Digest a tensor map of ``name -> (dtype, shape, bytes)``."""
        return cls(
            None if metadata is None else dict(metadata),
            {
                name: TensorDigest.of(dtype, tuple(shape), data)
                for name, (dtype, shape, data) in tensors.items()
            },
        )

    def differences(self, expected: Content) -> list[str]:
        """List how this content differs from ``expected`` (empty when equal)."""
        problems: list[str] = []
        if self.metadata != expected.metadata:
            problems.append(
                f"metadata is {_short(self.metadata)}, "
                f"expected {_short(expected.metadata)}"
            )
        if expected.summary is not None:
            count, digest = expected.summary
            header_only = any(not t.has_bytes for t in self.tensors.values())
            if len(self.tensors) != count:
                problems.append(f"{len(self.tensors)} tensors, expected {count}")
            elif not header_only and digest != self.summary_digest():
                problems.append("the tensor list differs from the expected (by digest)")
            return problems
        missing = [name for name in expected.tensors if name not in self.tensors]
        extra = [name for name in self.tensors if name not in expected.tensors]
        if missing:
            problems.append(f"tensors missing: {_short(missing)}")
        if extra:
            problems.append(f"unexpected tensors: {_short(extra)}")
        for name, want in expected.tensors.items():
            got = self.tensors.get(name)
            if got is not None and not got.matches(want):
                problems.append(
                    f"tensor {name!r} is {got.describe()}, expected {want.describe()}"
                )
        return problems

    def summary_digest(self) -> str:
        """The tensor list's digest as the manifest's compact form spells it.

        ``tensors_sha256`` (corpus/manifest.schema.json): sha256 of the sorted
        lines ``<hex of the UTF-8 name> <dtype> <dims joined by ,> <sha256>``
        + LF.  Neither nbytes nor any JSON form enters it.
        """
        lines = sorted(
            f"{name.encode().hex()} {t.dtype} {','.join(map(str, t.shape))} "
            f"{t.sha256}\n"
            for name, t in self.tensors.items()
        )
        return hashlib.sha256("".join(lines).encode("ascii")).hexdigest()


@dataclass(slots=True)
class Outcome:
    """What happened when the implementation was asked to load one file."""

    status: Status
    content: Content | None = None
    message: str = ""
    rule: str | None = None  # the implementation's own classification, if any
    exception: str = ""  # the exception's type name (in-process adapters)
    # for a crash: "signal 11 (SIGSEGV)", "panic", "exit status 1", ...
    crash: str = ""
    # for ``resource``: "reserved" (an allocation refused) or "resident"
    memory: str = ""
    peak_memory: int | None = None  # bytes, when measured
    seconds: float = 0.0  # wall-clock
    cpu_seconds: float | None = None  # when measured
    memory_allowance: int | None = None  # bytes, when a limit applied
    details: dict[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        """The implementation's text is untrusted: make it encodable here, once."""
        self.message = printable(self.message)
        self.exception = printable(self.exception)
        self.crash = printable(self.crash)
        if self.rule is not None:
            self.rule = printable(self.rule)

    @property
    def failed_hard(self) -> bool:
        """No verdict (a crash, hang, unusable output, ...): a failure in any case."""
        return self.status in HARD_FAILURES

    def describe(self) -> str:
        """One line for failure messages and reports."""
        text: str = self.status
        if self.memory:
            text += f" ({self.memory})"
        elif self.exception or self.crash:
            text += f" ({self.exception or self.crash})"
        if self.message:
            text += f": {_clip(self.message)}"
        return text


def printable(text: str) -> str:
    r"""``text`` with every character that is not printable written as an escape.

    An implementation's message may hold lone surrogates (a rejection quoting
    a tensor name it decoded from a JSON escape of one), which cannot be
    encoded as UTF-8, and terminal controls: an ESC sequence, a bidi override
    (U+202E) or a line break that starts a line of its own (``SCORE 415/415``)
    would make a report show something else than it holds.  So they are
    written ``\x1b``, ``\u202e``, ``\x0a``, as ``stspec check`` writes
    untrusted names; printable text (名前) is kept.
    """
    return escape(text)


def _short(value: object) -> str:
    return _clip(repr(value), 160)


def _clip(text: str, limit: int = 300) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 3] + "..."
