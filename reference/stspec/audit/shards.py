"""Sharded checkpoints: an index file and the shards it names, as one model.

Hugging Face writes a model too large for one file as shards
(``model-00001-of-00003.safetensors`` ...) next to an index,
``model.safetensors.index.json``::

    {"metadata": {"total_size": 852625408, ...},
     "weight_map": {"lm_head.weight": "model-00003-of-00003.safetensors", ...}}

These checks are on a set of files, not on one file, so they are not rules
of the format: SPEC.md §13.2 defines them (``stspec.audit.shard_checks.SHARD_CHECKS``).
Each finding carries the check's id, the file it is about and the name.
"""

from __future__ import annotations

import json
import posixpath

from stspec.audit.shard_checks import SHARD_CHECKS_BY_ID

# No typing at run time (start-up cost, see _record.py); mypy reads this as True.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping
    from typing import Final, NamedTuple
else:
    from stspec._record import NamedTuple

__all__ = [
    "Finding",
    "Holdings",
    "Index",
    "check_model",
    "parse_index",
]

# Findings kept per rule; the rest are counted (a hostile index may name a
# million weights, each of them wrong).
CAP: Final = 100


class Finding(NamedTuple):
    """One inconsistency of a sharded model.

    ``offset`` is a byte offset in ``file`` where one is known: the JSON
    error in an index, or the first byte of the offending tensor's data in a
    shard.  ``name`` is the tensor or shard the finding is about.
    """

    rule: str
    file: str
    offset: int | None
    name: str | None
    msg: str

    @property
    def severity(self) -> str:
        """``error`` or ``warning``, from the check's definition."""
        return SHARD_CHECKS_BY_ID[self.rule].severity

    def as_dict(self) -> dict[str, object]:
        """Return the finding as plain JSON-ready data."""
        return {
            "rule": self.rule,
            "severity": self.severity,
            "file": self.file,
            "offset": self.offset,
            "name": self.name,
            "message": self.msg,
        }


class Index(NamedTuple):
    """A well-formed index: tensor name -> shard file name, and its metadata."""

    weight_map: dict[str, str]
    metadata: dict[str, object] | None
    raw: bytes = b""  # the index file, to locate what a finding names

    @property
    def shards(self) -> list[str]:
        """The shard file names, sorted, each once."""
        return sorted(set(self.weight_map.values()))

    @property
    def openable(self) -> list[str]:
        """The shard names that are plain file names (SHARD-FILENAME)."""
        return [shard for shard in self.shards if _plain_file_name(shard)]


class Holdings(NamedTuple):
    """The tensors a valid shard holds: name -> (begin, end) in its buffer."""

    data_start: int
    tensors: dict[str, tuple[int, int]]


class _Collector:
    """Findings with at most CAP per rule; the rest are counted."""

    def __init__(self) -> None:
        self.findings: list[Finding] = []
        self.omitted: dict[str, int] = {}
        self._kept: dict[str, int] = {}

    def add(
        self, rule: str, file: str, offset: int | None, name: str | None, msg: str
    ) -> None:
        kept = self._kept.get(rule, 0)
        if kept >= CAP:
            self.omitted[rule] = self.omitted.get(rule, 0) + 1
            return
        self._kept[rule] = kept + 1
        self.findings.append(Finding(rule, file, offset, name, msg))


def parse_index(raw: bytes, file: str) -> tuple[Index | None, list[Finding]]:
    """Read an index file's bytes; every finding is a SHARD-INDEX-JSON."""

    def bad(msg: str, offset: int | None = None, name: str | None = None) -> Finding:
        return Finding("SHARD-INDEX-JSON", file, offset, name, msg)

    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        return None, [bad(f"the index is not UTF-8: {exc.reason}", exc.start)]
    duplicates: list[str] = []
    try:
        document = json.loads(text, object_pairs_hook=_Unique(duplicates))
    except json.JSONDecodeError as exc:
        offset = len(text[: exc.pos].encode("utf-8", "surrogatepass"))
        return None, [bad(f"the index is not JSON: {exc.msg}", offset)]
    except RecursionError:
        return None, [bad("the index nests too deeply to be read")]
    problems = [
        bad(f"the name {name!r} appears twice in one object", name=name)
        for name in duplicates
    ]
    if not isinstance(document, dict):
        kind = _kind(document)
        return None, [*problems, bad(f"the index is {kind}, expected an object")]
    weight_map = document.get("weight_map")
    metadata = document.get("metadata")
    if not isinstance(weight_map, dict):
        kind = _kind(weight_map)
        problems.append(bad(f"weight_map is {kind}, expected an object"))
        weight_map = {}
    problems += [
        bad(
            f"weight_map gives tensor {name!r} the value {shard!r}, expected a "
            "shard's file name",
            name=name,
        )
        for name, shard in weight_map.items()
        if not isinstance(shard, str)
    ]
    if metadata is not None and not isinstance(metadata, dict):
        problems.append(bad(f"metadata is {_kind(metadata)}, expected an object"))
    if problems:
        return None, problems
    return Index(weight_map, metadata, raw), []


class _Unique:
    """An object_pairs_hook that notes names given twice (json keeps the last)."""

    def __init__(self, duplicates: list[str]) -> None:
        self.duplicates = duplicates

    def __call__(self, pairs: list[tuple[str, object]]) -> dict[str, object]:
        result = dict(pairs)
        if len(result) != len(pairs):
            seen: set[str] = set()
            for key, _ in pairs:
                if key in seen:
                    self.duplicates.append(key)
                seen.add(key)
        return result


def _kind(value: object) -> str:
    if value is None:
        return "missing or null"
    names = {dict: "an object", list: "an array", str: "a string", bool: "a boolean"}
    return names.get(type(value), "a number")


def _plain_file_name(shard: str) -> bool:
    # Loaders join the value to the index's folder: anything but a plain
    # name could reach a file outside the model.
    return shard not in {"", ".", ".."} and not any(c in shard for c in "/\\\0")


def check_model(
    index_file: str,
    index: Index,
    shards: Mapping[str, Holdings | None],
) -> tuple[list[Finding], dict[str, int]]:
    """Check a well-formed index against its shards.

    ``shards`` maps each shard name of the index to the tensors it holds, or
    to None if it is not a valid file (its own violations say why); a name
    absent from ``shards`` is a shard that does not exist.  Returns the
    findings (at most CAP per rule) and how many more there were per rule.
    """
    found = _Collector()
    _check_file_names(found, index_file, index)
    _check_missing(found, index_file, index, shards)
    valid = {name: held for name, held in shards.items() if held is not None}
    folder = posixpath.dirname(index_file)
    holder = _check_duplicates(found, folder, valid)
    _check_locations(found, index_file, index, valid, holder)
    _check_unlisted(found, folder, index, valid)
    metadata = index.metadata or {}
    if "total_size" in metadata and len(valid) == len(index.shards):
        _check_total_size(found, index_file, metadata["total_size"], valid)
    located = [
        _located(finding, index.raw) if finding.file == index_file else finding
        for finding in found.findings
    ]
    return located, found.omitted


def _located(finding: Finding, raw: bytes) -> Finding:
    """Give a finding in the index the byte offset of the name it is about.

    The name is looked for as the JSON writers spell it, ASCII-escaped (what
    Python's json.dump writes by default) or as UTF-8; a name spelled with
    other escapes keeps no offset.
    """
    name = finding.name or ""  # every finding check_model makes names something
    # Tensor names are keys of weight_map; shard names are its values.
    start = max(raw.find(b'"weight_map"'), 0)
    suffix = b":" if finding.rule == "SHARD-WEIGHT-LOCATION" else b""
    for ascii_only in (True, False):
        spelled = json.dumps(name, ensure_ascii=ascii_only)
        at = raw.find(spelled.encode("utf-8", "surrogatepass") + suffix, start)
        if at < 0 and finding.rule == "SHARD-TOTAL-SIZE":
            at = raw.find(spelled.encode())
        if at >= 0:
            return finding._replace(offset=at)
    return finding


def _check_file_names(found: _Collector, index_file: str, index: Index) -> None:
    for shard in index.shards:
        if not _plain_file_name(shard):
            found.add(
                "SHARD-FILENAME",
                index_file,
                None,
                shard,
                f"the weight_map names shard {shard!r}, expected a plain file "
                "name in the index's folder",
            )


def _check_missing(
    found: _Collector, index_file: str, index: Index, shards: Mapping[str, object]
) -> None:
    # A missing shard is named once, with the number of weights it should hold.
    weights: dict[str, int] = {}
    for shard in index.weight_map.values():
        weights[shard] = weights.get(shard, 0) + 1
    for shard in index.shards:
        if shard not in shards and _plain_file_name(shard):
            found.add(
                "SHARD-MISSING",
                index_file,
                None,
                shard,
                f"the weight_map puts {weights[shard]} tensors in {shard!r}, "
                "which does not exist",
            )


def _check_duplicates(
    found: _Collector, folder: str, valid: Mapping[str, Holdings]
) -> dict[str, str]:
    """Report names held twice; return which shard holds each name first."""
    holder: dict[str, str] = {}
    for shard in sorted(valid):
        held = valid[shard]
        for name, (begin, _) in held.tensors.items():
            first = holder.setdefault(name, shard)
            if first != shard:
                found.add(
                    "SHARD-DUPLICATE",
                    posixpath.join(folder, shard),
                    held.data_start + begin,
                    name,
                    f"tensor {name!r} is held by {first!r} and by {shard!r}",
                )
    return holder


def _check_locations(
    found: _Collector,
    index_file: str,
    index: Index,
    valid: Mapping[str, Holdings],
    holder: Mapping[str, str],
) -> None:
    for name, shard in index.weight_map.items():
        if shard in valid and name not in valid[shard].tensors:
            elsewhere = holder.get(name)
            where = f"it is in {elsewhere!r}" if elsewhere else "no shard holds it"
            found.add(
                "SHARD-WEIGHT-LOCATION",
                index_file,
                None,
                name,
                f"the weight_map puts tensor {name!r} in {shard!r}, which does "
                f"not hold it; {where}",
            )


def _check_unlisted(
    found: _Collector, folder: str, index: Index, valid: Mapping[str, Holdings]
) -> None:
    for shard in sorted(valid):
        held = valid[shard]
        for name, (begin, _) in held.tensors.items():
            if name not in index.weight_map:
                found.add(
                    "SHARD-UNLISTED",
                    posixpath.join(folder, shard),
                    held.data_start + begin,
                    name,
                    f"{shard!r} holds tensor {name!r}, which the weight_map "
                    "does not list",
                )


def _check_total_size(
    found: _Collector, index_file: str, declared: object, valid: Mapping[str, Holdings]
) -> None:
    # HF's writers sum the byte size of each distinct tensor storage they
    # save (huggingface_hub split_state_dict_into_shards_factory), which is
    # end - begin of each tensor whenever no tensor was a view into a
    # larger storage; the loaders never read total_size back.
    actual = sum(
        end - begin for held in valid.values() for begin, end in held.tensors.values()
    )
    if type(declared) is not int or declared < 0:
        found.add(
            "SHARD-TOTAL-SIZE",
            index_file,
            None,
            "total_size",
            f"metadata.total_size is {declared!r}, expected a whole number of "
            f"bytes ({actual})",
        )
    elif declared != actual:
        found.add(
            "SHARD-TOTAL-SIZE",
            index_file,
            None,
            "total_size",
            f"metadata.total_size is {declared}, but the shards' tensors hold "
            f"{actual} bytes",
        )
