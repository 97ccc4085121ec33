"""What an implementation declares it does, parsed and checked.

Every key is optional; the defaults describe a full reader without a writer:

``read_dtypes``
    the spec dtype names the reader supports (default: all 22);
``header_only``
    it validates headers and returns no tensor bytes (default false);
``metadata_presence``
    it tells an absent ``__metadata__`` from ``{}`` (default true);
``metadata``
    it reports ``__metadata__`` at all (default true).  False: a loader
    that ignores it (answers None for every file); its answers are then
    compared on tensors only, but metadata it does report is still compared,
    and invalid files (a non-string metadata value included) must still be
    rejected;
``write``
    it has a writer (a command's ``--write``; for a Python adapter this is
    the presence of ``save`` and the key may only confirm it);
``write_dtypes``
    the dtype names the writer supports (default: all 22);
``canonical``
    the writer claims the "canonical writer" class (SPEC.md 1.5): it always
    writes the canonical form, so the tests comparing its bytes with the
    canonical form apply (default false: ``WRITE-CANONICAL`` is only a SHOULD
    for other writers).

``max_file_size``, ``max_header_size``, ``max_tensor_size``
    implementation limits (SPEC 1.6), in bytes: the largest file, header
    (N, at most 100,000,000) and tensor the reader supports (default: none).
``max_tensors``, ``max_name_length``, ``max_rank``, ``max_dimension``, ``max_number``
    the other limits SPEC 1.6 allows: the most tensors in a file, the longest
    tensor name (UTF-8 bytes), the most dimensions, the largest dimension, and
    the largest integer in the header (dimensions and data offsets: a reader
    parsing numbers as signed 64-bit declares 2**63 - 1).

A valid file beyond a declared limit that the reader rejects is not
applicable; one it accepts is judged as any other, and a limit never excuses
an invalid file or a refusal of a file within every limit.

A Python adapter declares them as a module attribute ``CAPABILITIES = {...}``
(older adapters: ``SAVE_DTYPES``); a command in its ``--describe`` answer
(``{"protocol": 2, ..., "capabilities": {...}}``; older answers:
top-level ``"write"`` and ``"save_dtypes"``).  A declaration the suite cannot
read is a usage error (:class:`CapabilityError`) naming what is wrong: a
misspelt key or dtype must not silently test something else.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Final

import stspec

if TYPE_CHECKING:
    from stspec_conformance._extent import Extent

__all__ = [
    "ALL_DTYPES",
    "DTYPE_ORDER",
    "KEYS",
    "Capabilities",
    "CapabilityError",
    "from_describe",
    "from_mapping",
    "from_module",
]

DTYPE_ORDER: Final = tuple(dt.name for dt in stspec.DTYPES)
ALL_DTYPES: Final = frozenset(DTYPE_ORDER)
LIMIT_KEYS: Final = ("max_file_size", "max_header_size", "max_tensor_size")
# The structural limits of SPEC 1.6, and the Extent field each one bounds.
SHAPE_KEYS: Final = (
    "max_tensors",
    "max_name_length",
    "max_rank",
    "max_dimension",
    "max_number",
)
_SHAPE_FIELDS: Final = ("tensors", "name", "rank", "dimension", "number")
_SHAPE_UNITS: Final = ("tensors", "bytes", "dimensions", "", "")
KEYS: Final = (
    "read_dtypes",
    "header_only",
    "metadata_presence",
    "metadata",
    "write",
    "write_dtypes",
    "canonical",
    *LIMIT_KEYS,
    *SHAPE_KEYS,
)


class CapabilityError(ValueError):
    """A capability declaration is malformed; the message says what and where."""


@dataclass(frozen=True, slots=True)
class Capabilities:
    """A validated declaration (immutable: adapters share it between processes)."""

    read_dtypes: frozenset[str] = ALL_DTYPES
    header_only: bool = False
    metadata_presence: bool = True
    write: bool = False
    write_dtypes: frozenset[str] = field(default=ALL_DTYPES)
    canonical: bool = False
    metadata: bool = True
    # implementation limits in bytes (None: none): file, header, one tensor
    limits: tuple[int | None, int | None, int | None] = (None, None, None)
    # max_tensors, max_name_length, max_rank, max_dimension, max_number
    shape_limits: tuple[int | None, ...] = (None,) * len(SHAPE_KEYS)

    @property
    def limited(self) -> bool:
        """Whether any implementation limit is declared."""
        return any(v is not None for v in (*self.limits, *self.shape_limits))

    def beyond(self, extent: Extent) -> str | None:
        """The first declared limit a valid file's extent goes beyond, or None."""
        found = self.exceeded(extent.file, extent.header, extent.tensor)
        if found:
            return found
        for key, limit, name, unit in zip(
            SHAPE_KEYS, self.shape_limits, _SHAPE_FIELDS, _SHAPE_UNITS, strict=True
        ):
            size = getattr(extent, name)
            if limit is not None and size > limit:
                return (
                    f"{key} {limit:,} (this one: {size:,}{' ' + unit if unit else ''})"
                )
        return None

    def exceeded(self, file: int, header: int, tensor: int) -> str | None:
        """The first declared limit these sizes go beyond, as a phrase, or None."""
        sizes = (file, header, tensor)
        for key, limit, size in zip(LIMIT_KEYS, self.limits, sizes, strict=True):
            if limit is not None and size > limit:
                return f"{key} {limit:,} (this one: {size:,} bytes)"
        return None

    def reads(self, *dtypes: str) -> bool:
        """Whether the reader supports every one of ``dtypes``."""
        return all(dtype in self.read_dtypes for dtype in dtypes)

    def writes(self, *dtypes: str) -> bool:
        """Whether the writer exists and supports every one of ``dtypes``."""
        return self.write and all(dtype in self.write_dtypes for dtype in dtypes)

    def describe(self) -> str:
        """One line for the report header: what differs from a full reader."""
        parts = [
            "header-only validator" if self.header_only else "reads tensor bytes",
            _dtypes_phrase("reads", self.read_dtypes),
        ]
        if not self.metadata:
            parts.append("ignores __metadata__")
        elif not self.metadata_presence:
            parts.append("absent __metadata__ = {}")
        if self.write:
            parts.append(_dtypes_phrase("writes", self.write_dtypes))
            parts.append("canonical writer" if self.canonical else "not canonical")
        else:
            parts.append("no writer")
        parts.extend(
            f"{key} {limit:,}"
            for key, limit in zip(
                (*LIMIT_KEYS, *SHAPE_KEYS),
                (*self.limits, *self.shape_limits),
                strict=True,
            )
            if limit is not None
        )
        return "; ".join(parts)

    def as_json(self) -> dict[str, object]:
        """The declaration in the ``--describe`` form (dtypes in spec order)."""
        return {
            "read_dtypes": _ordered(self.read_dtypes),
            "header_only": self.header_only,
            "metadata_presence": self.metadata_presence,
            "write": self.write,
            "write_dtypes": _ordered(self.write_dtypes),
            "canonical": self.canonical,
            "metadata": self.metadata,
            **{
                key: limit
                for key, limit in zip(
                    (*LIMIT_KEYS, *SHAPE_KEYS),
                    (*self.limits, *self.shape_limits),
                    strict=True,
                )
                if limit is not None
            },
        }


def _ordered(dtypes: frozenset[str]) -> list[str]:
    return [name for name in DTYPE_ORDER if name in dtypes]


def _dtypes_phrase(verb: str, dtypes: frozenset[str]) -> str:
    if dtypes == ALL_DTYPES:
        return f"{verb} all {len(ALL_DTYPES)} dtypes"
    missing = [name for name in DTYPE_ORDER if name not in dtypes]
    return f"{verb} {len(dtypes)} dtypes (not {', '.join(missing)})"


def _dtype_set(value: object, where: str) -> frozenset[str]:
    if isinstance(value, str | bytes) or not isinstance(
        value, list | tuple | set | frozenset
    ):
        msg = f"{where} must be a list of dtype names, got {value!r:.80}"
        raise CapabilityError(msg)
    names = list(value)
    wrong = [name for name in names if name not in ALL_DTYPES]
    if wrong:
        msg = (
            f"{where} names unknown dtype(s) {', '.join(map(repr, wrong[:5]))}; "
            f"the spec's dtypes are {', '.join(DTYPE_ORDER)}"
        )
        raise CapabilityError(msg)
    if not names:
        msg = f"{where} is empty: declare at least one dtype"
        raise CapabilityError(msg)
    return frozenset(names)


def _flag(value: object, where: str) -> bool:
    if not isinstance(value, bool):
        msg = f"{where} must be true or false, got {value!r:.80}"
        raise CapabilityError(msg)
    return value


def _limit(
    value: object, where: str, maximum: int | None, unit: str = "bytes"
) -> int | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        msg = (
            f"{where} must be a positive number of {unit} (or null), got {value!r:.80}"
        )
        raise CapabilityError(msg)
    if maximum is not None and value > maximum:
        msg = (
            f"{where} is {value:,}, above the format's own limit of {maximum:,}: "
            "declare only limits below the format's"
        )
        raise CapabilityError(msg)
    return value


def from_mapping(
    declared: object, *, source: str, has_writer: bool | None = None
) -> Capabilities:
    """Check a ``capabilities`` mapping and build :class:`Capabilities`.

    ``source`` names where it came from (for messages).  ``has_writer`` is
    what the implementation really offers when the suite can see it (a
    Python adapter's ``save``); then a ``write`` key must agree with it.
    """
    if not isinstance(declared, Mapping):
        msg = f"{source} must be a mapping of capability names, got {declared!r:.80}"
        raise CapabilityError(msg)
    unknown = [key for key in declared if key not in KEYS]
    if unknown:
        msg = (
            f"{source}: unknown key(s) {', '.join(map(repr, unknown))}; "
            f"the keys are {', '.join(KEYS)}"
        )
        raise CapabilityError(msg)
    write = has_writer is True
    if "write" in declared:
        write = _flag(declared["write"], f"{source}['write']")
        if has_writer is not None and write != has_writer:
            msg = (
                f"{source}['write'] is {write} but the adapter "
                f"{'defines' if has_writer else 'does not define'} save(); "
                "the writer is the presence of save()"
            )
            raise CapabilityError(msg)
    read_dtypes = ALL_DTYPES
    if "read_dtypes" in declared:
        read_dtypes = _dtype_set(declared["read_dtypes"], f"{source}['read_dtypes']")
    write_dtypes = ALL_DTYPES
    if "write_dtypes" in declared:
        if not write:
            msg = f"{source}: write_dtypes given, but there is no writer"
            raise CapabilityError(msg)
        write_dtypes = _dtype_set(declared["write_dtypes"], f"{source}['write_dtypes']")
    canonical = _flag(declared.get("canonical", False), f"{source}['canonical']")
    if canonical and not write:
        msg = f"{source}: canonical is true, but there is no writer"
        raise CapabilityError(msg)
    header_only = _flag(declared.get("header_only", False), f"{source}['header_only']")
    presence = _flag(
        declared.get("metadata_presence", True), f"{source}['metadata_presence']"
    )
    metadata = _flag(declared.get("metadata", True), f"{source}['metadata']")
    maxima = (None, stspec.MAX_HEADER_SIZE, None)
    limits = tuple(
        _limit(declared.get(key), f"{source}[{key!r}]", maximum)
        for key, maximum in zip(LIMIT_KEYS, maxima, strict=True)
    )
    shape_limits = tuple(
        _limit(declared.get(key), f"{source}[{key!r}]", None, "items")
        for key in SHAPE_KEYS
    )
    return Capabilities(
        read_dtypes,
        header_only,
        presence,
        write,
        write_dtypes,
        canonical,
        metadata,
        (limits[0], limits[1], limits[2]),
        shape_limits,
    )


def from_module(
    capabilities: object, save_dtypes: object, *, has_writer: bool, origin: str
) -> Capabilities:
    """Capabilities of a Python adapter from its ``CAPABILITIES``/``SAVE_DTYPES``.

    Pass None for an attribute the module does not define.
    """
    declared: dict[str, object] = {}
    if capabilities is not None:
        if not isinstance(capabilities, Mapping):
            msg = (
                f"{origin}: CAPABILITIES must be a dict, "
                f"got {type(capabilities).__name__}"
            )
            raise CapabilityError(msg)
        declared.update(capabilities)
    if save_dtypes is not None:
        if "write_dtypes" in declared:
            msg = (
                f"{origin}: SAVE_DTYPES and CAPABILITIES['write_dtypes'] both "
                "given; keep write_dtypes"
            )
            raise CapabilityError(msg)
        if has_writer:  # without save() the old attribute never mattered
            declared["write_dtypes"] = (
                list(save_dtypes)
                if isinstance(save_dtypes, set | frozenset)
                else save_dtypes
            )
    return from_mapping(
        declared, source=f"{origin}: CAPABILITIES", has_writer=has_writer
    )


def from_describe(info: Mapping[str, object], *, source: str) -> Capabilities:
    """Capabilities of a command from its ``--describe`` answer (both protocols)."""
    protocol = info.get("protocol", 1)
    if protocol not in {1, 2} or isinstance(protocol, bool):
        msg = f"{source}: protocol must be 1 or 2, got {protocol!r:.40}"
        raise CapabilityError(msg)
    declared: dict[str, object] = {}
    if "capabilities" in info:
        nested = info["capabilities"]
        if not isinstance(nested, Mapping):
            msg = f"{source}: capabilities must be an object, got {nested!r:.80}"
            raise CapabilityError(msg)
        declared.update(nested)
    for old, new in (("write", "write"), ("save_dtypes", "write_dtypes")):
        if old in info:
            if new in declared:
                msg = f"{source}: {old!r} given at the top level and in capabilities"
                raise CapabilityError(msg)
            declared[new] = info[old]
    return from_mapping(declared, source=f"{source} capabilities")
