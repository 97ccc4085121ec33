"""The versions a package registry serves, asked over HTTP(S) like its clients.

Every answer is untrusted: it is read with a timeout and a size cap, parsed as
JSON (or as XML with no document type, so no entity is ever expanded), and
only strings that parse as versions of the registry's scheme are kept.  The
base URL of each registry can be replaced (a mirror, or a fake on loopback).
"""

from __future__ import annotations

import json
import urllib.error
import urllib.parse
import urllib.request
import xml.etree.ElementTree as ET
from dataclasses import dataclass
from typing import Final

from matrix.versions import Ordered, Scheme, parse

__all__ = [
    "DEFAULT_BASES",
    "RegistryError",
    "Served",
    "fetch_versions",
]

DEFAULT_BASES: Final = {
    "pypi": "https://pypi.org/pypi",
    "npm": "https://registry.npmjs.org",
    "crates": "https://index.crates.io",
    "go": "https://proxy.golang.org",
    "maven": "https://repo1.maven.org/maven2",
}
SCHEMES: Final[dict[str, Scheme]] = {
    "pypi": "pep440",
    "npm": "semver",
    "crates": "semver",
    "go": "go",
    "maven": "pep440",
}
# torch's PyPI JSON (every file of every release) is the largest answer asked
# for, about 10 MB; nothing else comes near 1 MB
MAX_ANSWER: Final = 64 * 1024 * 1024
TIMEOUT_S: Final = 30.0
USER_AGENT: Final = (
    "stspec-matrix-watch (https://github.com/safetensors-spec/safetensors-spec)"
)


class RegistryError(Exception):
    """A registry did not answer, or answered something that is not a version list."""


@dataclass(frozen=True, slots=True)
class Served:
    """The versions one package's registry serves, newest first."""

    versions: tuple[Ordered, ...]

    @property
    def newest_stable(self) -> Ordered | None:
        """The newest version that is not a pre-release."""
        return next((v for v in self.versions if not v.prerelease), None)

    @property
    def newest_pre(self) -> Ordered | None:
        """The newest pre-release, if it is newer than every stable version."""
        newest = self.versions[0] if self.versions else None
        return newest if newest is not None and newest.prerelease else None


class _SameSchemeRedirects(urllib.request.HTTPRedirectHandler):
    """Follow redirects only to http(s): never to file:, ftp: or anything else."""

    def redirect_request(  # noqa: PLR0913, PLR0917 - urllib's signature
        self,
        req: urllib.request.Request,
        fp: object,
        code: int,
        msg: str,
        headers: object,
        newurl: str,
    ) -> urllib.request.Request | None:
        if urllib.parse.urlsplit(newurl).scheme not in {"http", "https"}:
            raise RegistryError(f"redirect to {newurl!r} refused: not http(s)")
        return super().redirect_request(req, fp, code, msg, headers, newurl)  # type: ignore[arg-type]


_OPENER: Final = urllib.request.build_opener(_SameSchemeRedirects)


def _get(url: str, accept: str = "application/json") -> bytes | None:
    """The body at ``url`` (None for 404/410), at most MAX_ANSWER bytes."""
    if urllib.parse.urlsplit(url).scheme not in {"http", "https"}:
        raise RegistryError(f"{url!r} is not an http(s) URL")
    request = urllib.request.Request(  # noqa: S310 - scheme checked above
        url, headers={"User-Agent": USER_AGENT, "Accept": accept}
    )
    try:
        with _OPENER.open(request, timeout=TIMEOUT_S) as answer:
            body: bytes = answer.read(MAX_ANSWER + 1)
    except urllib.error.HTTPError as exc:
        if exc.code in {404, 410}:
            return None
        raise RegistryError(f"{url} answered HTTP {exc.code}") from None
    except (urllib.error.URLError, OSError) as exc:
        raise RegistryError(f"{url} did not answer: {exc}") from None
    if len(body) > MAX_ANSWER:
        raise RegistryError(f"{url} answered more than {MAX_ANSWER} bytes")
    return body


def _json(url: str, accept: str = "application/json") -> object:
    body = _get(url, accept)
    if body is None:
        raise RegistryError(f"{url} answered 404: the registry does not serve it")
    try:
        return json.loads(body)
    except (ValueError, RecursionError):
        raise RegistryError(f"{url} answered something that is not JSON") from None


def _strings(value: object) -> list[str]:
    if isinstance(value, dict):
        return [k for k in value if isinstance(k, str)]
    if isinstance(value, list):
        return [v for v in value if isinstance(v, str)]
    return []


def _pypi(base: str, name: str) -> list[str]:
    answer = _json(f"{base}/{urllib.parse.quote(name, safe='')}/json")
    releases = answer.get("releases") if isinstance(answer, dict) else None
    if not isinstance(releases, dict):
        raise RegistryError(f"PyPI's answer for {name!r} has no releases object")
    # a release whose every file is yanked is not served to `pip install`
    return [
        version
        for version, files in releases.items()
        if isinstance(files, list)
        and files
        and not all(isinstance(f, dict) and f.get("yanked") is True for f in files)
    ]


def _npm(base: str, name: str) -> list[str]:
    # the abbreviated document npm install itself asks for
    answer = _json(
        f"{base}/{urllib.parse.quote(name, safe='@')}",
        "application/vnd.npm.install-v1+json",
    )
    versions = answer.get("versions") if isinstance(answer, dict) else None
    if not isinstance(versions, dict):
        raise RegistryError(f"npm's answer for {name!r} has no versions object")
    return [
        version
        for version, manifest in versions.items()
        if not (isinstance(manifest, dict) and "deprecated" in manifest)
    ]


def _crates(base: str, name: str) -> list[str]:
    # the sparse index cargo itself reads: one JSON object per published version
    lower = name.lower()
    if len(lower) <= 2:
        prefix = str(len(lower))
    elif len(lower) == 3:
        prefix = f"3/{lower[0]}"
    else:
        prefix = f"{lower[:2]}/{lower[2:4]}"
    body = _get(f"{base}/{prefix}/{urllib.parse.quote(lower, safe='')}", "text/plain")
    if body is None:
        raise RegistryError(f"the crates.io index does not serve {name!r}")
    versions = []
    for line in body.splitlines():
        try:
            entry = json.loads(line)
        except (ValueError, RecursionError):
            raise RegistryError(
                f"the index entry of {name!r} is not JSON lines"
            ) from None
        if (
            isinstance(entry, dict)
            and isinstance(entry.get("vers"), str)
            and entry.get("yanked") is not True
        ):
            versions.append(entry["vers"])
    return versions


def _go_escape(module: str) -> str:
    # the proxy protocol's case encoding: an upper-case letter becomes !lower
    return "".join(f"!{c.lower()}" if c.isupper() else c for c in module)


def _go(base: str, module: str) -> list[str]:
    path = urllib.parse.quote(_go_escape(module), safe="/!")
    body = _get(f"{base}/{path}/@v/list", "text/plain")
    if body is None:
        raise RegistryError(f"the Go proxy does not serve {module!r}")
    listed = body.decode("utf-8", "replace").split()
    if listed:
        return listed
    # a module with no tags: @latest names its newest pseudo-version
    latest = _json(f"{base}/{path}/@latest")
    version = latest.get("Version") if isinstance(latest, dict) else None
    return [version] if isinstance(version, str) else []


def _maven(base: str, coordinate: str) -> list[str]:
    group, _, artifact = coordinate.partition(":")
    url = f"{base}/{group.replace('.', '/')}/{urllib.parse.quote(artifact, safe='')}"
    body = _get(f"{url}/maven-metadata.xml", "application/xml")
    if body is None:
        raise RegistryError(f"Maven Central does not serve {coordinate!r}")
    if b"<!DOCTYPE" in body.upper() or b"<!ENTITY" in body.upper():
        raise RegistryError(
            f"{url}/maven-metadata.xml declares a document type: refused"
        )
    try:
        root = ET.fromstring(body)  # noqa: S314 - no DTD, so no entity expansion
    except ET.ParseError:
        raise RegistryError(f"{url}/maven-metadata.xml is not XML") from None
    return [v.text for v in root.iterfind("./versioning/versions/version") if v.text]


_ASK: Final = {
    "pypi": _pypi,
    "npm": _npm,
    "crates": _crates,
    "go": _go,
    "maven": _maven,
}


def fetch_versions(registry: str, package: str, bases: dict[str, str]) -> Served:
    """The versions ``registry`` serves for ``package`` (or RegistryError)."""
    base = bases.get(registry, DEFAULT_BASES[registry]).rstrip("/")
    scheme = SCHEMES[registry]
    parsed = [parse(text, scheme) for text in _ASK[registry](base, package)]
    ordered = sorted(
        (v for v in parsed if v is not None), key=lambda v: v.key, reverse=True
    )
    if not ordered:
        raise RegistryError(
            f"{registry} serves no version of {package!r} that reads as one"
        )
    return Served(tuple(ordered))
