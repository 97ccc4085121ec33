"""Sharded checkpoints: an index file and the shards it names, as one model.

Hugging Face writes a model too large for one file as shards
(``model-00001-of-00003.safetensors`` ...) next to an index,
``model.safetensors.index.json``::

    {"metadata": {"total_size": 852625408, ...},
     "weight_map": {"lm_head.weight": "model-00003-of-00003.safetensors", ...}}

These checks are on a set of files, not on one file, so they are not rules
of the format: the spec's companion page docs/spec/sharded-checkpoints.md defines
them (``stspec.audit.shard_checks.SHARD_CHECKS``).
Each finding carries the check's id, the file it is about and the name.
"""

from __future__ import annotations

import json
import posixpath
import re

from stspec.audit.shard_checks import SHARD_CHECKS_BY_ID

# No typing at run time (start-up cost, see stspec/record.py); mypy reads this as True.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable, Mapping
    from typing import Final, NamedTuple
else:
    from stspec.record import NamedTuple

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

    def full(self, rule: str) -> bool:
        """Count one more finding of ``rule`` if no more are kept; say so."""
        if self._kept.get(rule, 0) < CAP:
            return False
        self.omitted[rule] = self.omitted.get(rule, 0) + 1
        return True

    def add(
        self, rule: str, file: str, offset: int | None, name: str | None, msg: str
    ) -> None:
        kept = self._kept.get(rule, 0)
        if kept >= CAP:
            self.omitted[rule] = self.omitted.get(rule, 0) + 1
            return
        self._kept[rule] = kept + 1
        self.findings.append(Finding(rule, file, offset, name, msg))


def parse_index(
    raw: bytes, file: str
) -> tuple[Index | None, list[Finding], dict[str, int]]:
    """Read an index file's bytes; every finding is a SHARD-INDEX-JSON.

    Returns the index (None if it cannot be used), the findings (at most CAP)
    and how many more there were, per rule.
    """
    found = _Collector()

    def bad(msg: str, offset: int | None = None, name: str | None = None) -> None:
        found.add("SHARD-INDEX-JSON", file, offset, name, msg)

    document = _load(raw, bad, lambda: found.full("SHARD-INDEX-JSON"))
    if document is _UNREADABLE:
        return None, found.findings, found.omitted
    if not isinstance(document, dict):
        bad(f"the index is {_kind(document)}, expected an object")
        return None, found.findings, found.omitted
    weight_map = document.get("weight_map")
    metadata = document.get("metadata")
    if not isinstance(weight_map, dict):
        bad(f"weight_map is {_kind(weight_map)}, expected an object")
        weight_map = {}
    for name, shard in weight_map.items():
        if not isinstance(shard, str):
            if found.full("SHARD-INDEX-JSON"):
                continue  # counted: no message is built for it
            bad(
                f"weight_map gives tensor {name!r} the value {shard!r}, expected a "
                "shard's file name",
                name=name,
            )
    if metadata is not None and not isinstance(metadata, dict):
        bad(f"metadata is {_kind(metadata)}, expected an object")
    if found.findings:
        return None, found.findings, found.omitted
    return Index(weight_map, metadata, raw), [], {}


_UNREADABLE: Final = object()
# Python refuses to turn longer digit strings into int (sys.int_info).
_MOST_DIGITS: Final = 4300
# A JSON string, or one of the tokens Python's json accepts that JSON has not
# (or a number too long to read): strings are matched whole so that nothing
# inside one is taken for a token.
_NOT_JSON: Final = re.compile(
    rf'"(?:[^"\\]++|\\.)*+"|(NaN|-?Infinity|-?\d{{{_MOST_DIGITS + 1},}})'
)


def _load(raw: bytes, bad: Callable[..., None], full: Callable[[], bool]) -> object:
    """Parse the index; report why it cannot be (and return _UNREADABLE)."""
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        bad(f"the index is not UTF-8: {exc.reason}", exc.start)
        return _UNREADABLE
    duplicates = _Unique(bad, full)
    try:
        return json.loads(
            text, object_pairs_hook=duplicates, parse_constant=_refuse_constant
        )
    except json.JSONDecodeError as exc:
        offset = len(text[: exc.pos].encode("utf-8", "surrogatepass"))
        bad(f"the index is not JSON: {exc.msg}", offset)
    except RecursionError:
        bad("the index nests too deeply to be read")
    except ValueError:
        # NaN or Infinity (refused below), or a number past Python's digit
        # limit: found again by a scan that skips strings, for its offset.
        token = next(match for match in _NOT_JSON.finditer(text) if match[1])
        offset = len(text[: token.start(1)].encode("utf-8", "surrogatepass"))
        digits = len(token[1].lstrip("-"))
        if token[1][-1:].isdigit():
            bad(
                f"the index holds a number of {digits} digits, more than this "
                f"checker reads ({_MOST_DIGITS})",
                offset,
            )
        else:
            bad(f"the index is not JSON: {token[1]} is not a JSON value", offset)
    return _UNREADABLE


def _refuse_constant(token: str) -> object:
    raise ValueError(token)


class _Unique:
    """An object_pairs_hook that reports names given twice (json keeps the last)."""

    def __init__(self, bad: Callable[..., None], full: Callable[[], bool]) -> None:
        self.bad = bad
        self.full = full  # counts a finding beyond the cap, with no message

    def __call__(self, pairs: list[tuple[str, object]]) -> dict[str, object]:
        result = dict(pairs)
        if len(result) != len(pairs):
            seen: set[str] = set()
            for key, _ in pairs:
                if key in seen and not self.full():
                    self.bad(f"the name {key!r} appears twice in one object", name=key)
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
    holder = _check_duplicates(found, folder, index, valid)
    _check_locations(found, index_file, index, valid, holder)
    _check_unlisted(found, folder, index, valid)
    metadata = index.metadata or {}
    if "total_size" in metadata and len(valid) == len(index.shards):
        _check_total_size(found, index_file, metadata["total_size"], valid)
    return _locate(found.findings, index_file, index.raw), found.omitted


def _scan(raw: bytes, wanted: dict[bytes, list[int]]) -> dict[int, int]:
    """Find where each spelling first stands after weight_map: number -> offset."""
    offsets: dict[int, int] = {}
    total = len({number for numbers in wanted.values() for number in numbers})
    start = max(raw.find(b'"weight_map"'), 0)
    for match in _STRING.finditer(raw, start) if total else ():
        token = match[0]
        for spelled in (token, token[:-1]) if token.endswith(b":") else (token,):
            for number in wanted.pop(spelled, ()):
                offsets.setdefault(number, match.start())
        if len(offsets) == total:
            break
    return offsets


# A JSON string token, and the colon right after it when it is a key.
_STRING: Final = re.compile(rb'"(?:[^"\\]++|\\.)*+":?')


def _locate(findings: list[Finding], index_file: str, raw: bytes) -> list[Finding]:
    """Give the findings in the index the byte offset of the name each is about.

    A name is looked for as the JSON writers spell it, ASCII-escaped (what
    Python's json.dump writes by default) or as UTF-8; a name spelled with
    other escapes keeps no offset.  Tensor names are keys of weight_map
    (the name and its colon), shard names its values.  All are found in one
    pass over the index's strings, which stops once each is found: a search
    per finding would read a 100 MB index hundreds of times.
    """
    wanted: dict[bytes, list[int]] = {}
    for number, finding in enumerate(findings):
        if finding.file != index_file:
            continue
        name = finding.name or ""  # every finding check_model makes names something
        suffix = b":" if finding.rule == "SHARD-WEIGHT-LOCATION" else b""
        spellings = {
            json.dumps(name, ensure_ascii=ascii_only).encode("utf-8", "surrogatepass")
            for ascii_only in (True, False)
        }
        for spelled in spellings:
            wanted.setdefault(spelled + suffix, []).append(number)
    offsets = _scan(raw, wanted)
    located = []
    for number, finding in enumerate(findings):
        at = offsets.get(number)
        if at is None and finding.rule == "SHARD-TOTAL-SIZE":
            # total_size is in metadata, which may come before weight_map.
            at = raw.find(b'"total_size"')
        located.append(finding if at is None else finding._replace(offset=at))
    return located


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
    found: _Collector, folder: str, index: Index, valid: Mapping[str, Holdings]
) -> dict[str, str]:
    """Report names held twice; return which shard holds each name first."""
    holder: dict[str, str] = {}
    last: dict[str, str] = {}
    copies = []
    for shard in sorted(valid):
        held = valid[shard]
        for name, (begin, _) in held.tensors.items():
            if holder.setdefault(name, shard) != shard:
                copies.append((name, shard, held.data_start + begin))
                last[name] = shard
    for name, shard, offset in copies:
        if found.full("SHARD-DUPLICATE"):
            continue
        found.add(
            "SHARD-DUPLICATE",
            posixpath.join(folder, shard),
            offset,
            name,
            f"tensor {name!r} is held by {holder[name]!r} and by {shard!r}; "
            + _loaders(index.weight_map.get(name), last[name]),
        )
    return holder


def _loaders(named: str | None, last: str) -> str:
    """Say which copy of a duplicated tensor the common loaders take.

    transformers (get_checkpoint_shard_files, then _load_pretrained_model)
    and accelerate (load_checkpoint_in_model) open the shards in
    sorted(set(weight_map.values())) order and load every tensor of each, so
    the last shard by name wins; huggingface_hub's load_torch_model opens
    them in list(set(...)) order, which string hashing changes from one run
    to the next.  None of them looks at which shard the index names.
    """
    takes = "(the last of its shards by name)"
    if named == last:
        index = (
            f"the index names {named!r}, and transformers and accelerate load "
            f"that copy {takes}"
        )
    elif named is None:
        index = (
            "the index does not list it; transformers and accelerate load the "
            f"copy in {last!r} {takes}"
        )
    else:
        index = (
            f"the index names {named!r}, but transformers and accelerate load "
            f"the copy in {last!r} {takes}"
        )
    return (
        f"{index}; huggingface_hub's load_torch_model loads any of the copies (it "
        "reads the shards in set order, which changes from run to run)"
    )


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
