"""``hf://ORG/REPO[@REVISION][/PATH]``: a Hugging Face Hub repository's files.

The files are listed through the Hub's API, as huggingface_hub's
``model_info(repo, revision=..., files_metadata=True)`` lists them:
``GET {endpoint}/api/models/{repo}/revision/{revision}?blobs=true``, whose
``siblings`` give each file's name (``rfilename``), size and, for a file
stored in Git LFS, its SHA-256 (``lfs.sha256``).  Each file is read through
``{endpoint}/{repo}/resolve/{revision}/{path}``, which the Hub redirects to
its CDN.  The endpoint is ``HF_ENDPOINT`` (default https://huggingface.co),
and a token in ``HF_TOKEN`` is sent to the endpoint only, never to the
hosts it redirects to.

A revision with a ``/`` (``refs/pr/1``) is written percent-encoded:
``hf://org/repo@refs%2Fpr%2F1``.  Every name the API lists is untrusted: one
that is not a plain relative path is refused, never used as a path.
"""

from __future__ import annotations

import json
import os
import re
import urllib.parse

from stspec.audit.remote import RemoteError

# No typing at run time (start-up cost, see stspec/record.py); mypy reads this as True.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Final, NamedTuple

    from stspec.audit.remote import Session
else:
    from stspec.record import NamedTuple

__all__ = ["HubFile", "HubPath", "endpoint", "listing", "parse"]

DEFAULT_ENDPOINT: Final = "https://huggingface.co"
# The API's answer for a repository of 100,000 files is about 20 MB.
_LISTING_LIMIT: Final = 64 << 20
_NAME: Final = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,95}")
_SHA256: Final = re.compile(r"[0-9a-f]{64}")
_MAX_PATH: Final = 1024


class HubPath(NamedTuple):
    """What an ``hf://`` argument names."""

    repo: str  # ORG/REPO
    revision: str  # decoded: refs/pr/1
    path: str  # a file or folder in the repository; "" for all of it
    spelled_revision: str  # as written after @, "" if none

    def shown(self, name: str) -> str:
        """How a file of the repository is named in the output."""
        at = f"@{self.spelled_revision}" if self.spelled_revision else ""
        return f"hf://{self.repo}{at}/{name}"

    def resolve(self, base: str, name: str) -> str:
        """Return the URL the Hub serves a file of the repository at."""
        revision = urllib.parse.quote(self.revision, safe="")
        return f"{base}/{self.repo}/resolve/{revision}/{urllib.parse.quote(name)}"

    def api(self, base: str) -> str:
        """Return the URL of the API's description of the repository."""
        revision = urllib.parse.quote(self.revision, safe="")
        return f"{base}/api/models/{self.repo}/revision/{revision}?blobs=true"


class HubFile(NamedTuple):
    """A file the API lists: its path, size and LFS SHA-256 (None if not LFS)."""

    name: str
    size: int | None
    sha256: str | None


def endpoint() -> str:
    """Return the Hub's base URL: ``HF_ENDPOINT``, as huggingface_hub reads it."""
    return os.environ.get("HF_ENDPOINT", DEFAULT_ENDPOINT).rstrip("/")


def parse(argument: str) -> HubPath:
    """Split ``hf://ORG/REPO[@REVISION][/PATH]``; refuse any other form."""
    rest = argument.removeprefix("hf://")
    parts = rest.split("/", 2)
    if len(parts) < 2:
        raise RemoteError(
            f"expected hf://ORG/REPO[@REVISION][/PATH], got {argument[:200]!r}"
        )
    org, repo, path = parts[0], parts[1], parts[2] if len(parts) == 3 else ""
    repo, _, spelled = repo.partition("@")
    for name in (org, repo):
        if not _NAME.fullmatch(name) or ".." in name or "--" in name:
            raise RemoteError(
                f"not a Hub repository name: {name[:100]!r} (letters, digits, "
                "'.', '_' and '-')"
            )
    revision = urllib.parse.unquote(spelled) if spelled else "main"
    if not revision or "\0" in revision or len(revision) > 256:
        raise RemoteError(f"not a revision: {spelled[:100]!r}")
    path = path.strip("/")
    if path and not _plain_path(path):
        raise RemoteError(f"not a path in a repository: {path[:200]!r}")
    return HubPath(f"{org}/{repo}", revision, path, spelled)


def listing(session: Session, hub: HubPath, base: str) -> list[HubFile]:
    """List the repository's files at the revision, through the Hub's API."""
    raw, _ = session.get_json(hub.api(base), _LISTING_LIMIT)
    try:
        answer = json.loads(raw)
    except (ValueError, RecursionError):
        raise RemoteError("the Hub's API answer is not JSON") from None
    siblings = answer.get("siblings") if isinstance(answer, dict) else None
    if not isinstance(siblings, list):
        raise RemoteError("the Hub's API answer has no list of files (siblings)")
    files = []
    for sibling in siblings:
        name = sibling.get("rfilename") if isinstance(sibling, dict) else None
        if not isinstance(name, str) or not _plain_path(name):
            raise RemoteError(
                f"the Hub's API lists a file name that is not a plain path: "
                f"{str(name)[:200]!r}"
            )
        files.append(HubFile(name, _size(sibling.get("size")), _lfs(sibling)))
    return files


def _size(value: object) -> int | None:
    return value if isinstance(value, int) and value >= 0 else None


def _lfs(sibling: dict[str, object]) -> str | None:
    lfs = sibling.get("lfs")
    sha256 = lfs.get("sha256") if isinstance(lfs, dict) else None
    if sha256 is None:
        return None
    if not isinstance(sha256, str) or not _SHA256.fullmatch(sha256):
        raise RemoteError(
            f"the Hub's API gives {sibling.get('rfilename')!r} an LFS sha256 that "
            f"is not 64 hex digits: {str(sha256)[:80]!r}"
        )
    return sha256


def _plain_path(path: str) -> bool:
    """Tell a relative path of plain names: no '', '.', '..', backslash, NUL."""
    if len(path) > _MAX_PATH or "\\" in path or "\0" in path:
        return False
    return all(part not in {"", ".", ".."} for part in path.split("/"))
