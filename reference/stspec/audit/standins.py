"""Remote files as local stand-ins: the header on disk, the rest a hole.

A remote argument (a URL, or ``hf://``) becomes a scratch folder that mirrors
the files it names under their own names: for each safetensors file, a
sparse file as long as the server says the file is, holding its 8-byte
prefix and its header (read with two Range requests, never more than
``8 + N`` bytes, and only the prefix when N is past HEADER-LIMIT); for each
sharded-checkpoint index, the index itself (at most HEADER-LIMIT bytes).
The folder is then checked like any folder on disk, so every rule, offset,
model check and output form is the one local files get; only the names
shown are the URLs.  Nothing reads a stand-in's hole: the checks need the
header and the length only.
"""

# ruff: noqa: PTH103, PTH108, PTH118, PTH119, PTH120 - plain str paths, as in inputs.py

from __future__ import annotations

import os
import posixpath
import tempfile
import urllib.parse

from stspec.audit.hub import endpoint, listing, parse
from stspec.audit.inputs import Target, is_index
from stspec.audit.remote import Fetched, RemoteError, is_url
from stspec.rules import MAX_HEADER_SIZE

# No typing at run time (start-up cost, see stspec/record.py); mypy reads this as True.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Final, NamedTuple

    from stspec.audit.hub import HubFile
    from stspec.audit.inputs import Scratch
    from stspec.audit.remote import Session
else:
    from stspec.record import NamedTuple

__all__ = ["remote_targets"]

_PREFIX_SIZE: Final = 8
_SUFFIX: Final = ".safetensors"


class _File(NamedTuple):
    """A remote file to mirror: its name in the mirror, URL, shown name."""

    name: str
    url: str
    shown: str
    sha256: str | None = None
    size: int | None = None
    optional: bool = False  # a shard an index names: a 404 makes it missing


def remote_targets(
    argument: str, *, session: Session, scratch: Scratch
) -> tuple[list[Target], list[str]]:
    """Mirror what ``argument`` names; return its targets and the names skipped.

    Raises:
        RemoteError: a server refused or misbehaved; nothing is checked.

    """
    import shutil  # noqa: PLC0415 - remote runs only

    folder = tempfile.mkdtemp(prefix="stspec-remote-")
    scratch.callback(shutil.rmtree, folder, ignore_errors=True)
    try:
        if is_url(argument):
            files, skipped = _url_files(argument, session, folder)
        else:
            files, skipped = _hub_files(argument, session, folder)
        return _mirror(files, session, folder), skipped
    except RemoteError as exc:
        # The argument is named where it is reported: not twice.
        reason = (exc.strerror or "").removeprefix(f"{argument}: ")
        raise RemoteError(reason, exc.status) from None


def _url_files(
    url: str, session: Session, folder: str
) -> tuple[list[_File], list[str]]:
    """One file, or an index and the shards beside it that it names."""
    split = urllib.parse.urlsplit(url)
    name = urllib.parse.unquote(posixpath.basename(split.path))
    if not _plain_name(name):
        name = "file" + _SUFFIX
    if not is_index(name):
        return [_File(name, url, url)], []
    raw = _index(session, url, os.path.join(folder, name), url)
    base = url.split("?", 1)[0]
    shards = [
        _File(
            shard,
            urllib.parse.urljoin(base, urllib.parse.quote(shard)),
            posixpath.join(posixpath.dirname(base), shard),
            optional=True,
        )
        for shard in _shard_names(raw, url)
        if shard != name
    ]
    return [_File(name, url, url), *shards], []


def _hub_files(
    argument: str, session: Session, folder: str
) -> tuple[list[_File], list[str]]:
    """List the safetensors and index files under the path, with their shards."""
    hub = parse(argument)
    base = endpoint()
    token = os.environ.get("HF_TOKEN")
    if token:
        origin = urllib.parse.urlsplit(base)
        session.add_header(
            "Authorization", f"Bearer {token}", f"{origin.scheme}://{origin.netloc}"
        )
    listed = {item.name: item for item in listing(session, hub, base)}
    under = [
        item
        for name, item in listed.items()
        if not hub.path or name == hub.path or name.startswith(hub.path + "/")
    ]
    if not under:
        raise RemoteError(f"the repository has no file {hub.path!r} at {hub.revision}")

    def described(item: HubFile) -> _File:
        url = hub.resolve(base, item.name)
        return _File(item.name, url, hub.shown(item.name), item.sha256, item.size)

    chosen = {
        item.name: described(item)
        for item in under
        if item.name.endswith(_SUFFIX) or is_index(posixpath.basename(item.name))
    }
    if not chosen:
        where = hub.shown(hub.path) if hub.path else argument
        raise RemoteError(f"no {_SUFFIX} or index files in {where}")
    skipped = [item.name for item in under if item.name not in chosen]
    for name in [name for name in chosen if is_index(posixpath.basename(name))]:
        index = chosen[name]
        path = os.path.join(folder, *name.split("/"))
        raw = _index(session, index.url, path, index.shown)
        for shard in _shard_names(raw, index.shown):
            path = posixpath.join(posixpath.dirname(name), shard)
            if path in listed and path not in chosen:
                chosen[path] = described(listed[path])
    if hub.path and hub.path in listed:
        skipped = []  # one file named: nothing else was asked for
    return list(chosen.values()), skipped


def _index(session: Session, url: str, path: str, shown: str) -> bytes:
    """Copy an index into the mirror (at most HEADER-LIMIT bytes); return it."""
    try:
        raw, _ = session.get_json(url, MAX_HEADER_SIZE)
    except RemoteError as exc:
        raise RemoteError(f"{shown}: {exc.strerror}") from None
    _write(path, raw)
    return raw


def _shard_names(raw: bytes, shown: str) -> list[str]:
    """Return the plain file names the weight_map names (none if unusable)."""
    from stspec.audit.shards import parse_index  # noqa: PLC0415 - start-up time

    index, _, _ = parse_index(raw, shown)
    return [] if index is None else index.openable


def _mirror(files: list[_File], session: Session, folder: str) -> list[Target]:
    """Fetch every stand-in, ``session.jobs`` at a time; return the targets."""
    from concurrent.futures import ThreadPoolExecutor  # noqa: PLC0415

    wanted = [item for item in files if item.url and not is_index(item.name)]
    with ThreadPoolExecutor(
        max_workers=max(1, min(session.jobs, len(wanted) or 1))
    ) as pool:
        fetched = dict(
            zip(
                (item.name for item in wanted),
                pool.map(lambda item: _stand_in(session, item, folder), wanted),
                strict=True,
            )
        )
    targets = []
    for item in files:
        path = os.path.join(folder, *item.name.split("/"))
        index = is_index(posixpath.basename(item.name))
        target = Target(path, item.shown, index=index)
        got = fetched.get(item.name)
        if got is not None:
            target.remote = got
        if index or got is not None:
            targets.append(target)
    return targets


def _stand_in(session: Session, item: _File, folder: str) -> Fetched | None:
    """Write one file's stand-in; None if a shard an index names is not found."""
    path = os.path.join(folder, *item.name.split("/"))
    fd = _create(path)
    try:
        try:
            transferred, length = _head(session, item.url, fd)
            os.ftruncate(fd, length)
        finally:
            os.close(fd)
    except RemoteError as exc:
        if exc.status == 404 and item.optional:
            os.unlink(path)
            return None  # a shard the index names and nobody serves: SHARD-MISSING
        raise RemoteError(f"{item.shown}: {exc.strerror}") from None
    except OSError as exc:
        raise RemoteError(
            f"{item.shown}: cannot write its stand-in: {exc.strerror or exc}"
        ) from None
    if item.size is not None and item.size != length:
        raise RemoteError(
            f"{item.shown}: the Hub lists it as {item.size:,} bytes, the file "
            f"server says {length:,}"
        )
    return Fetched(item.shown, length, transferred, item.sha256)


def _head(session: Session, url: str, fd: int) -> tuple[int, int]:
    """Copy the prefix and the header (not past HEADER-LIMIT) into ``fd``.

    Returns the bytes read and the file's length.
    """
    prefix = session.get_range(url, 0, _PREFIX_SIZE - 1, sink=fd)
    length = prefix.length
    if prefix.size < _PREFIX_SIZE or length <= _PREFIX_SIZE:
        return prefix.size, length
    size = int.from_bytes(os.pread(fd, _PREFIX_SIZE, 0), "little")
    if not 0 < size <= MAX_HEADER_SIZE:
        return prefix.size, length  # the prefix alone decides (HEADER-LIMIT)
    last = _PREFIX_SIZE + size - 1
    header = session.get_range(prefix.url, _PREFIX_SIZE, last, sink=fd)
    if header.length != length:
        raise RemoteError(
            f"the file's length changed between two requests ({length:,}, then "
            f"{header.length:,} bytes)"
        )
    return prefix.size + header.size, length


def _create(path: str) -> int:
    """Create ``path`` (and its folders) for writing; it must not exist."""
    try:
        # A name listed both as a file and as a folder fails here.
        os.makedirs(os.path.dirname(path), exist_ok=True)
        return os.open(path, os.O_RDWR | os.O_CREAT | os.O_EXCL, 0o600)
    except OSError as exc:
        raise RemoteError(
            f"cannot mirror {os.path.basename(path)!r}: {exc.strerror or exc}"
        ) from None


def _write(path: str, data: bytes) -> None:
    """Create ``path`` holding ``data`` (an index, read whole)."""
    fd = _create(path)
    try:
        written = 0
        while written < len(data):
            written += os.pwrite(fd, data[written:], written)
    except OSError as exc:
        raise RemoteError(f"cannot write {path}: {exc.strerror or exc}") from None
    finally:
        os.close(fd)


def _plain_name(name: str) -> bool:
    return name not in {"", ".", ".."} and not any(c in name for c in "/\\\0")
