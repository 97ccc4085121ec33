"""What a load produced, as digests the suite can compare with the manifest."""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

Status = Literal["accepted", "rejected", "crashed", "hung", "invalid-output"]


@dataclass(frozen=True, slots=True)
class TensorDigest:
    """One loaded tensor: its dtype, shape and the digest of its raw bytes."""

    dtype: str
    shape: tuple[int, ...]
    nbytes: int
    sha256: str

    @classmethod
    def of(cls, dtype: str, shape: tuple[int, ...], data: bytes | memoryview) -> TensorDigest:
        """Digest raw bytes (hashed without a copy)."""
        view = memoryview(data).cast("B")
        return cls(dtype, shape, view.nbytes, hashlib.sha256(view).hexdigest())

    def matches(self, other: TensorDigest) -> bool:
        """Equal dtype, shape and bytes (``nbytes`` -1 means "not reported")."""
        return (
            self.dtype == other.dtype
            and self.shape == other.shape
            and self.sha256 == other.sha256
            and (self.nbytes == other.nbytes or -1 in {self.nbytes, other.nbytes})
        )

    def describe(self) -> str:
        """Render the digest for a failure message."""
        shape = list(self.shape)
        return f"{self.dtype}{shape} {self.nbytes} bytes sha256 {self.sha256[:12]}"


@dataclass(frozen=True, slots=True)
class Content:
    """Everything a reader returns for a file: metadata and tensor digests."""

    metadata: dict[str, str] | None
    tensors: dict[str, TensorDigest]

    @classmethod
    def from_expected(cls, expected: Mapping[str, Any]) -> Content:
        """Build the content a manifest case's ``expected`` block describes."""
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
                f"metadata is {_short(self.metadata)}, expected {_short(expected.metadata)}"
            )
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


@dataclass(slots=True)
class Outcome:
    """What happened when the implementation was asked to load one file."""

    status: Status
    content: Content | None = None
    message: str = ""
    rule: str | None = None  # the implementation's own classification, if any
    exception: str = ""  # the exception's type name (in-process adapters)
    peak_memory: int | None = None  # bytes, when measured
    seconds: float = 0.0
    details: dict[str, Any] = field(default_factory=dict)

    @property
    def failed_hard(self) -> bool:
        """A crash, hang or unusable output: a failure whatever the case says."""
        return self.status in {"crashed", "hung", "invalid-output"}

    def describe(self) -> str:
        """One line for failure messages and reports."""
        text = self.status
        if self.exception:
            text += f" ({self.exception})"
        if self.message:
            text += f": {_clip(self.message)}"
        return text


def _short(value: object) -> str:
    return _clip(repr(value), 160)


def _clip(text: str, limit: int = 300) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 3] + "..."
