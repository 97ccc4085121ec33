"""Integrity: whether files are the bytes someone published, by SHA-256.

This is not format validity.  A file can match its published digest and
break every rule (a hostile publisher), or be valid and not be the file
that was published (a swapped shard); ``stspec check`` reports both apart.
Digests come from ``--sha256 FILE=HEX`` and from manifests in the format
``sha256sum`` writes and ``sha256sum -c`` reads (``HEX  NAME`` or
``HEX *NAME``, one a line, names relative to the manifest's folder); a
local file is read once, start to end, to compute its digest.  A remote
file is not downloaded: the digest the Hub records for it (LFS) is
compared instead, and reported as the Hub's claim.
"""

# ruff: noqa: PTH118, PTH120 - plain str paths, as in inputs.py

from __future__ import annotations

import hashlib
import os
import re

from stspec.audit.opening import regular_file

# No typing at run time (start-up cost, see stspec/record.py); mypy reads this as True.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Final, NamedTuple

    from stspec.audit.inputs import Target
    from stspec.audit.remote import Fetched
else:
    from stspec.record import NamedTuple

__all__ = [
    "Digest",
    "IntegrityError",
    "digest",
    "digests",
    "expected_digests",
    "pinned",
    "read_manifest",
]

_HEX: Final = re.compile(r"[0-9a-fA-F]{64}")
_LINE: Final = re.compile(r"([0-9a-fA-F]{64}) [ *](.+)")
_CHUNK: Final = 1 << 20
# A manifest of a million files is about 100 MB; this is far more than any
# model's, and bounds what a wrong --manifest argument makes the command read.
_MANIFEST_LIMIT: Final = 16 << 20


class IntegrityError(ValueError):
    """A --sha256 argument or a manifest line that cannot be used (exit 2)."""


class Digest(NamedTuple):
    """A file's SHA-256 as found, against the one expected (if any)."""

    file: str
    sha256: str | None  # None: it could not be computed (``error`` says why)
    expected: str | None = None
    source: str = "file"  # "file": computed here; "hub": the Hub's LFS record
    error: str | None = None

    @property
    def matches(self) -> bool | None:
        """True or False against ``expected``; None when nothing is expected."""
        if self.expected is None or self.sha256 is None:
            return None
        return self.sha256 == self.expected

    def as_dict(self) -> dict[str, object]:
        """Return the JSON form (``--json``)."""
        return {
            "file": self.file,
            "sha256": self.sha256,
            "expected": self.expected,
            "matches": self.matches,
            "source": self.source,
            "error": self.error,
        }


def pinned(argument: str) -> tuple[str, str]:
    """Split ``FILE=HEX`` (the last ``=``); the digest in lower case."""
    file, equals, hexdigest = argument.rpartition("=")
    if not equals or not file or not _HEX.fullmatch(hexdigest):
        raise IntegrityError(
            f"expected FILE=SHA256 with 64 hex digits, got {argument[:200]!r}"
        )
    return file, hexdigest.lower()


def read_manifest(path: str) -> dict[str, str]:
    """Read a ``sha256sum`` manifest: file path (joined to its folder) -> digest."""
    try:
        with regular_file(path) as fd:
            raw = os.pread(fd, _MANIFEST_LIMIT + 1, 0)
    except OSError as exc:
        raise IntegrityError(
            f"cannot read the manifest {path}: {exc.strerror or exc}"
        ) from None
    if len(raw) > _MANIFEST_LIMIT:
        raise IntegrityError(
            f"the manifest {path} is longer than {_MANIFEST_LIMIT:,} bytes"
        )
    folder = os.path.dirname(path)
    expected = {}
    for number, line in enumerate(raw.decode("utf-8", "replace").splitlines(), 1):
        if not line.strip() or line.startswith("#"):
            continue
        found = _LINE.fullmatch(line.rstrip("\r"))
        if found is None:
            raise IntegrityError(
                f"{path}:{number}: expected 'SHA256  FILE' (sha256sum's format), "
                f"got {line[:120]!r}"
            )
        expected[os.path.join(folder, found[2])] = found[1].lower()
    return expected


def digest(path: str, shown: str, expected: str | None = None) -> Digest:
    """Read ``path`` once, start to end, for its SHA-256."""
    sha = hashlib.sha256()
    try:
        with regular_file(path) as fd:
            offset = 0
            while chunk := os.pread(fd, _CHUNK, offset):
                sha.update(chunk)
                offset += len(chunk)
    except OSError as exc:
        return Digest(shown, None, expected, error=exc.strerror or str(exc))
    return Digest(shown, sha.hexdigest(), expected)


def expected_digests(
    pins: tuple[str, ...], manifests: tuple[str, ...]
) -> dict[str, str]:
    """Return file -> the SHA-256 it must have, from manifests and ``pins``.

    ``pins`` are --sha256 arguments; they override a manifest's line for the
    same file.  Raises IntegrityError for one that cannot be used.
    """
    expected: dict[str, str] = {}
    for manifest in manifests:
        expected.update(read_manifest(manifest))
    for argument in pins:
        file, hexdigest = pinned(argument)
        expected[file] = hexdigest
    return expected


def digests(
    targets: list[Target],
    expected: dict[str, str],
    remote: dict[str, Fetched],
    *,
    every: bool,
) -> list[Digest]:
    """Each file's SHA-256 against the one expected; every file's under --hash.

    ``remote`` maps a remote file's URL to what was read of it: its digest
    is the Hub's record, never computed.
    """
    found: list[Digest] = []
    done = set()
    for file, hexdigest in expected.items():
        if file in remote or file.lower().startswith(("https://", "http://", "hf://")):
            found.append(_remote_digest(file, remote.get(file), hexdigest))
        else:
            found.append(digest(file, file, hexdigest))
        done.add(os.path.normpath(file))
    for target in targets if every else ():
        if target.refused is not None or os.path.normpath(target.shown) in done:
            continue
        if target.remote is not None:
            found.append(_remote_digest(target.shown, target.remote, None))
        elif target.path != target.shown and not target.index:
            # A pipe, stdin, or a remote file's stand-in: only its header is
            # here (a remote index is copied whole, and hashed below).
            found.append(
                Digest(target.shown, None, error="a stream: its bytes were not kept")
            )
        else:
            found.append(digest(target.path, target.shown))
    return found


def _remote_digest(file: str, fetched: Fetched | None, wanted: str | None) -> Digest:
    if fetched is None:
        return Digest(file, None, wanted, error="not among the remote files checked")
    if fetched.sha256 is None:
        return Digest(
            file,
            None,
            wanted,
            error="the server records no SHA-256 for it (the Hub does for LFS "
            "files), and its bytes are not downloaded",
        )
    return Digest(file, fetched.sha256, wanted, source="hub")
